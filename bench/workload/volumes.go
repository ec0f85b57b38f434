package workload

import (
	"bufio"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/berthsched/berth/core/model"
)

// The volumes workload: every node has a CSINode allowing VolumeAttachLimit
// volumes of StorageDriver; a StorageClass "zonal-disk" of that driver binds
// on first consumer and may provision in every zone but the last; the driver
// reports capacity, one CSIStorageCapacity per zone; every other pending pod
// has a claim of its own of the class (10 GiB), so scheduling it checks the
// topologies and capacities, scores the capacity and provisions on the
// chosen node (the Bind carries the selected node).
//
// VolumesBound is the same cluster with every claim already bound to a
// volume of its own (claimRef and phase Bound, the claim's volumeName and
// bind-completed annotation), zonal: labelled with a zone and with node
// affinity to it. Scheduling checks the volume's node affinity, its zone,
// the attach limits and the access modes, and has nothing to bind, so a
// scheduler without a volume controller (kube-scheduler in kubeoracle,
// whose PreBind waits for one to bind what it chose) finishes it too.
const (
	Volumes           = "volumes"
	VolumesBound      = "volumes-bound"
	StorageDriver     = "disk.csi.example.com"
	VolumeAttachLimit = 64
)

// Storage is the storage objects of a workload, in Kubernetes' types.
type Storage struct {
	Classes    []*storagev1.StorageClass
	Drivers    []*storagev1.CSIDriver
	CSINodes   []*storagev1.CSINode
	Capacities []*storagev1.CSIStorageCapacity
	Volumes    []*corev1.PersistentVolume
	Claims     []*corev1.PersistentVolumeClaim
}

// Objects lists them in the order a scheduler takes them: classes first.
func (s *Storage) Objects() []any {
	var out []any
	for _, c := range s.Classes {
		out = append(out, c)
	}
	for _, d := range s.Drivers {
		out = append(out, d)
	}
	for _, n := range s.CSINodes {
		out = append(out, n)
	}
	for _, c := range s.Capacities {
		out = append(out, c)
	}
	for _, v := range s.Volumes {
		out = append(out, v)
	}
	for _, c := range s.Claims {
		out = append(out, c)
	}
	return out
}

func (g *gen) volumes(spec Spec, bound bool) {
	zones := make([]string, 0, Zones-1)
	for z := range Zones - 1 {
		zones = append(zones, fmt.Sprintf("zone-%d", z))
	}
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	s := &Storage{
		Classes: []*storagev1.StorageClass{{
			ObjectMeta: metav1.ObjectMeta{Name: "zonal-disk"}, Provisioner: StorageDriver, VolumeBindingMode: &wffc,
			AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
				{Key: model.LabelZone, Values: zones},
			}}},
		}},
		Drivers: []*storagev1.CSIDriver{{ObjectMeta: metav1.ObjectMeta{Name: StorageDriver},
			Spec: storagev1.CSIDriverSpec{AttachRequired: new(true), StorageCapacity: new(true)}}},
	}
	for _, n := range g.w.Nodes {
		s.CSINodes = append(s.CSINodes, &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: n.Name}, Spec: storagev1.CSINodeSpec{
			Drivers: []storagev1.CSINodeDriver{{Name: StorageDriver, NodeID: n.Name, Allocatable: &storagev1.VolumeNodeResources{Count: new(int32(VolumeAttachLimit))}}},
		}})
	}
	for z := range Zones {
		s.Capacities = append(s.Capacities, &storagev1.CSIStorageCapacity{
			ObjectMeta:       metav1.ObjectMeta{Namespace: "kube-system", Name: fmt.Sprintf("zonal-disk-zone-%d", z)},
			StorageClassName: "zonal-disk",
			NodeTopology:     &metav1.LabelSelector{MatchLabels: map[string]string{model.LabelZone: fmt.Sprintf("zone-%d", z)}},
			Capacity:         new(resource.MustParse(fmt.Sprintf("%dTi", 10+z))),
		})
	}
	class := "zonal-disk"
	for i := range spec.Pods {
		name := fmt.Sprintf("pod-%06d", i)
		p := g.pod(name, "volumes", podMilliCPU, podMemory)
		if i%2 == 0 {
			claim := "data-" + name
			s.Claims = append(s.Claims, &corev1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: claim},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &class,
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
				},
			})
			p.Volumes = []model.PodVolume{{Name: "data", ClaimName: claim}}
			if bound {
				s.Volumes = append(s.Volumes, boundVolume(s.Claims[len(s.Claims)-1], zones[(i/2)%len(zones)]))
			}
		}
		g.pending(p)
	}
	g.w.Storage = s
}

// boundVolume binds claim to a new zonal volume of its size in zone (the
// claim is changed to say so, as the volume controller would).
func boundVolume(claim *corev1.PersistentVolumeClaim, zone string) *corev1.PersistentVolume {
	name := "pv-" + claim.Name
	claim.Spec.VolumeName = name
	claim.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
	claim.Status.Phase = corev1.ClaimBound
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{model.LabelZone: zone}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      claim.Spec.Resources.Requests,
			AccessModes:                   claim.Spec.AccessModes,
			StorageClassName:              *claim.Spec.StorageClassName,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: claim.Namespace, Name: claim.Name},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: StorageDriver, VolumeHandle: name}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: model.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}},
			}}}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
	}
}

// writeYAML writes the storage objects as v1 and storage.k8s.io/v1
// documents.
func (s *Storage) writeYAML(w *bufio.Writer) error {
	for _, o := range s.Objects() {
		var typed any
		switch x := o.(type) {
		case *storagev1.StorageClass:
			c := *x
			c.TypeMeta = metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"}
			typed = &c
		case *storagev1.CSIDriver:
			c := *x
			c.TypeMeta = metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSIDriver"}
			typed = &c
		case *storagev1.CSINode:
			c := *x
			c.TypeMeta = metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSINode"}
			typed = &c
		case *storagev1.CSIStorageCapacity:
			c := *x
			c.TypeMeta = metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSIStorageCapacity"}
			typed = &c
		case *corev1.PersistentVolume:
			c := *x
			c.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"}
			typed = &c
		case *corev1.PersistentVolumeClaim:
			c := *x
			c.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}
			typed = &c
		}
		b, err := yaml.Marshal(typed)
		if err != nil {
			return fmt.Errorf("workload: writing a storage object: %w", err)
		}
		w.WriteString("---\n")
		w.Write(b)
	}
	return nil
}
