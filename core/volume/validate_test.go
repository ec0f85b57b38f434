package volume

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func pv(mut func(*corev1.PersistentVolume)) *corev1.PersistentVolume {
	v := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv1"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		},
	}
	if mut != nil {
		mut(v)
	}
	return v
}

func pvc(mut func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if mut != nil {
		mut(c)
	}
	return c
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		obj      any
		wantPath string // "" for valid
		wantMsg  string
	}{
		{name: "valid pv", obj: pv(nil)},
		{name: "valid pvc", obj: pvc(nil)},
		{name: "pv bad name", obj: pv(func(v *corev1.PersistentVolume) { v.Name = "Bad_Name" }), wantPath: "metadata.name", wantMsg: "Invalid value"},
		{name: "pv no access mode", obj: pv(func(v *corev1.PersistentVolume) { v.Spec.AccessModes = nil }), wantPath: "spec.accessModes", wantMsg: "at least 1 access mode is required"},
		{name: "pv unknown access mode", obj: pv(func(v *corev1.PersistentVolume) { v.Spec.AccessModes = append(v.Spec.AccessModes, "ReadSometimes") }),
			wantPath: "spec.accessModes[1]", wantMsg: `Unsupported value: "ReadSometimes"`},
		{name: "pv RWOP with another mode", obj: pv(func(v *corev1.PersistentVolume) {
			v.Spec.AccessModes = append(v.Spec.AccessModes, corev1.ReadWriteOncePod)
		}),
			wantPath: "spec.accessModes", wantMsg: "may not use ReadWriteOncePod with other access modes"},
		{name: "pv no capacity", obj: pv(func(v *corev1.PersistentVolume) { v.Spec.Capacity = nil }), wantPath: "spec.capacity[storage]", wantMsg: "Required value"},
		{name: "pv zero capacity", obj: pv(func(v *corev1.PersistentVolume) { v.Spec.Capacity[corev1.ResourceStorage] = resource.MustParse("0") }),
			wantPath: "spec.capacity[storage]", wantMsg: "must be greater than zero"},
		{name: "pv claimRef without namespace", obj: pv(func(v *corev1.PersistentVolume) { v.Spec.ClaimRef = &corev1.ObjectReference{Name: "data"} }),
			wantPath: "spec.claimRef.namespace", wantMsg: "Required value"},
		{name: "pv empty node affinity", obj: pv(func(v *corev1.PersistentVolume) {
			v.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{}}
		}), wantPath: "spec.nodeAffinity.required.nodeSelectorTerms", wantMsg: "must have at least one node selector term"},
		{name: "pv node affinity bad operator", obj: pv(func(v *corev1.PersistentVolume) {
			v.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: "Near", Values: []string{"a"}}},
			}}}}
		}), wantPath: "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator", wantMsg: "Near"},
		{name: "pv csi without handle", obj: pv(func(v *corev1.PersistentVolume) {
			v.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: "disk.csi.example.com"}
		}),
			wantPath: "spec.csi.volumeHandle", wantMsg: "Required value"},
		{name: "pvc no request", obj: pvc(func(c *corev1.PersistentVolumeClaim) { c.Spec.Resources.Requests = nil }),
			wantPath: "spec.resources.requests[storage]", wantMsg: "Required value"},
		{name: "pvc bad class", obj: pvc(func(c *corev1.PersistentVolumeClaim) { c.Spec.StorageClassName = new("Fast!") }),
			wantPath: "spec.storageClassName", wantMsg: "Invalid value"},
		{name: "pvc bad selector", obj: pvc(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn}}}
		}), wantPath: "spec.selector.matchExpressions[0].values", wantMsg: "must be specified when `operator` is 'In' or 'NotIn'"},
		{name: "pvc bad volume mode", obj: pvc(func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeMode = new(corev1.PersistentVolumeMode("Tape")) }),
			wantPath: "spec.volumeMode", wantMsg: `Unsupported value: "Tape"`},
		{name: "class without provisioner", obj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}},
			wantPath: "provisioner", wantMsg: "Required value"},
		{name: "class bad binding mode", obj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "p.example.com",
			VolumeBindingMode: new(storagev1.VolumeBindingMode("Later"))}, wantPath: "volumeBindingMode", wantMsg: `Unsupported value: "Later"`},
		{name: "class topology without values", obj: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "p.example.com",
			AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: "zone"}}}}},
			wantPath: "allowedTopologies[0].matchLabelExpressions[0].values", wantMsg: "Required value"},
		{name: "csinode duplicate driver", obj: &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: "d.example.com", NodeID: "n1"}, {Name: "d.example.com", NodeID: "n1"}}}}, wantPath: "spec.drivers[1].name", wantMsg: "Duplicate value"},
		{name: "csinode negative count", obj: &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: "d.example.com", NodeID: "n1", Allocatable: &storagev1.VolumeNodeResources{Count: new(int32(-1))}}}}},
			wantPath: "spec.drivers[0].allocatable.count", wantMsg: "must be greater than or equal to 0"},
		{name: "capacity without class", obj: &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c1"}},
			wantPath: "storageClassName", wantMsg: "Required value"},
		{name: "capacity negative", obj: &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c1"}, StorageClassName: "fast",
			Capacity: new(resource.MustParse("-1"))}, wantPath: "capacity", wantMsg: "must be greater than or equal to 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.obj)
			if tc.wantPath == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			fe, ok := err.(*FieldError)
			if !ok {
				t.Fatalf("Validate = %v, want a *FieldError at %s", err, tc.wantPath)
			}
			if fe.Path != tc.wantPath || !containsText(fe.Reason, tc.wantMsg) {
				t.Errorf("Validate = %s: %s, want %s: ...%s...", fe.Path, fe.Reason, tc.wantPath, tc.wantMsg)
			}
		})
	}
}

func containsText(s, sub string) bool {
	return strings.Contains(s, sub)
}
