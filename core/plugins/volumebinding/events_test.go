package volumebinding

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/volume"
)

func event(r framework.EventResource, a framework.ActionType) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: r, ActionType: a}
}

func class(name, provisioner string, mode storagev1.VolumeBindingMode, zones ...string) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode}
	if len(zones) > 0 {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: corev1.LabelTopologyZone, Values: zones}}}}
	}
	return sc
}

func capacity(class string, capacity, maxSize string, zone string) *storagev1.CSIStorageCapacity {
	c := &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cap-" + zone}, StorageClassName: class,
		NodeTopology: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelTopologyZone: zone}}}
	if capacity != "" {
		c.Capacity = new(resource.MustParse(capacity))
	}
	if maxSize != "" {
		c.MaximumVolumeSize = new(resource.MustParse(maxSize))
	}
	return c
}

func driver(name string, storageCapacity *bool) *storagev1.CSIDriver {
	return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: storagev1.CSIDriverSpec{StorageCapacity: storageCapacity}}
}

func csiNode(name, migrated string) *storagev1.CSINode {
	n := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if migrated != "" {
		n.Annotations = map[string]string{corev1.MigratedPluginsAnnotationKey: migrated}
	}
	return n
}

// TestHints: for each storage event VolumeBinding registers, whether a pod
// it rejected is queued, as kube 1.37's hints decide (and where Berth
// replaces objects kube refuses to change, queued on those changes too).
func TestHints(t *testing.T) {
	const disk = "disk.csi.example.com"
	wffc, immediate := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	on, off := new(true), new(false)

	tr := volume.NewTracker()
	for _, obj := range []any{
		class("fast", disk, wffc),
		class("other", "other.csi.example.com", wffc),
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: new("fast")}},
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "logs"}, Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: new("other")}},
	} {
		if _, err := tr.Set(obj); err != nil {
			t.Fatal(err)
		}
	}
	pl, err := New(context.Background(), nil, volumesHandle{t: tr})
	if err != nil {
		t.Fatal(err)
	}
	withClaim := func(claim string) *model.Pod {
		return &model.Pod{Namespace: "default", Name: "p", UID: "p", Volumes: []model.PodVolume{{Name: "v", ClaimName: claim}}}
	}
	inline := &model.Pod{Namespace: "default", Name: "i", UID: "i", Volumes: []model.PodVolume{{Name: "v", CSIDriver: disk}}}
	pod := withClaim("data")

	tests := []struct {
		name     string
		ev       framework.ClusterEvent
		pod      *model.Pod
		old, cur any
		want     framework.QueueingHint
	}{
		{name: "class added", ev: event(framework.EventStorageClass, framework.ActionAdd), cur: class("new", disk, wffc), want: framework.Queue},
		{name: "class topologies changed", ev: event(framework.EventStorageClass, framework.ActionUpdateOther),
			old: class("fast", disk, wffc, "a"), cur: class("fast", disk, wffc, "a", "b"), want: framework.Queue},
		{name: "class labels only changed", ev: event(framework.EventStorageClass, framework.ActionUpdateOther),
			old: class("fast", disk, wffc, "a"), cur: func() any { c := class("fast", disk, wffc, "a"); c.Labels = map[string]string{"x": "y"}; return c }(), want: framework.QueueSkip},
		{name: "class provisioner replaced", ev: event(framework.EventStorageClass, framework.ActionUpdateOther),
			old: class("fast", volume.NoProvisioner, wffc), cur: class("fast", disk, wffc), want: framework.Queue},
		{name: "class binding mode replaced", ev: event(framework.EventStorageClass, framework.ActionUpdateOther),
			old: class("fast", disk, immediate), cur: class("fast", disk, wffc), want: framework.Queue},
		{name: "class deleted: not registered", ev: event(framework.EventStorageClass, framework.ActionDelete), old: class("fast", disk, wffc), want: framework.QueueSkip},

		{name: "the pod's claim added", ev: event(framework.EventPersistentVolumeClaim, framework.ActionAdd),
			cur: &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "data"}}, want: framework.Queue},
		{name: "another claim", ev: event(framework.EventPersistentVolumeClaim, framework.ActionAdd),
			cur: &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}}, want: framework.QueueSkip},
		{name: "a claim of that name in another namespace", ev: event(framework.EventPersistentVolumeClaim, framework.ActionUpdateOther),
			old: &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns2", Name: "data"}},
			cur: &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns2", Name: "data"}}, want: framework.QueueSkip},

		{name: "any volume added", ev: event(framework.EventPersistentVolume, framework.ActionAdd), cur: &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}}, want: framework.Queue},
		{name: "volume deleted: not registered", ev: event(framework.EventPersistentVolume, framework.ActionDelete), old: &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}}, want: framework.QueueSkip},
		{name: "node relabelled", ev: event(framework.EventNode, framework.ActionUpdateNodeLabel), old: &model.Node{Name: "n"}, cur: &model.Node{Name: "n"}, want: framework.Queue},
		{name: "node tainted: not registered", ev: event(framework.EventNode, framework.ActionUpdateNodeAllocatable), old: &model.Node{Name: "n"}, cur: &model.Node{Name: "n"}, want: framework.QueueSkip},

		{name: "CSINode added", ev: event(framework.EventCSINode, framework.ActionAdd), cur: csiNode("n1", ""), want: framework.Queue},
		{name: "CSINode migrated plugins changed", ev: event(framework.EventCSINode, framework.ActionUpdateOther),
			old: csiNode("n1", ""), cur: csiNode("n1", "kubernetes.io/gce-pd"), want: framework.Queue},
		{name: "CSINode otherwise changed", ev: event(framework.EventCSINode, framework.ActionUpdateOther),
			old: csiNode("n1", "kubernetes.io/gce-pd"), cur: func() any {
				n := csiNode("n1", "kubernetes.io/gce-pd")
				n.Spec.Drivers = []storagev1.CSINodeDriver{{Name: disk}}
				return n
			}(), want: framework.QueueSkip},

		{name: "driver stops reporting capacity: claim of its class", ev: event(framework.EventCSIDriver, framework.ActionUpdateOther),
			old: driver(disk, on), cur: driver(disk, off), want: framework.Queue},
		{name: "driver stops reporting capacity: inline volume of it", ev: event(framework.EventCSIDriver, framework.ActionUpdateOther), pod: inline,
			old: driver(disk, on), cur: driver(disk, nil), want: framework.Queue},
		{name: "driver stops reporting capacity: claim of another driver's class", ev: event(framework.EventCSIDriver, framework.ActionUpdateOther), pod: withClaim("logs"),
			old: driver(disk, on), cur: driver(disk, off), want: framework.QueueSkip},
		{name: "driver starts reporting capacity", ev: event(framework.EventCSIDriver, framework.ActionUpdateOther),
			old: driver(disk, off), cur: driver(disk, on), want: framework.QueueSkip},
		{name: "driver reporting capacity deleted", ev: event(framework.EventCSIDriver, framework.ActionDelete), old: driver(disk, on), want: framework.Queue},
		{name: "driver not reporting capacity deleted", ev: event(framework.EventCSIDriver, framework.ActionDelete), old: driver(disk, nil), want: framework.QueueSkip},
		{name: "driver added: not registered", ev: event(framework.EventCSIDriver, framework.ActionAdd), cur: driver(disk, off), want: framework.QueueSkip},

		{name: "capacity added", ev: event(framework.EventCSIStorageCapacity, framework.ActionAdd), cur: capacity("fast", "1Gi", "", "a"), want: framework.Queue},
		{name: "capacity grew", ev: event(framework.EventCSIStorageCapacity, framework.ActionUpdateOther),
			old: capacity("fast", "1Gi", "", "a"), cur: capacity("fast", "2Gi", "", "a"), want: framework.Queue},
		{name: "capacity shrank", ev: event(framework.EventCSIStorageCapacity, framework.ActionUpdateOther),
			old: capacity("fast", "2Gi", "", "a"), cur: capacity("fast", "1Gi", "", "a"), want: framework.QueueSkip},
		{name: "capacity grew but the maximum volume size did not", ev: event(framework.EventCSIStorageCapacity, framework.ActionUpdateOther),
			old: capacity("fast", "1Gi", "1Gi", "a"), cur: capacity("fast", "5Gi", "1Gi", "a"), want: framework.QueueSkip},
		{name: "maximum volume size dropped, capacity larger", ev: event(framework.EventCSIStorageCapacity, framework.ActionUpdateOther),
			old: capacity("fast", "5Gi", "1Gi", "a"), cur: capacity("fast", "5Gi", "", "a"), want: framework.Queue},
		{name: "capacity first known", ev: event(framework.EventCSIStorageCapacity, framework.ActionUpdateOther),
			old: capacity("fast", "", "", "a"), cur: capacity("fast", "1Gi", "", "a"), want: framework.Queue},
		{name: "capacity moved to another zone", ev: event(framework.EventCSIStorageCapacity, framework.ActionUpdateOther),
			old: capacity("fast", "1Gi", "", "a"), cur: capacity("fast", "1Gi", "", "b"), want: framework.Queue},
		{name: "capacity deleted: not registered", ev: event(framework.EventCSIStorageCapacity, framework.ActionDelete), old: capacity("fast", "1Gi", "", "a"), want: framework.QueueSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.pod
			if p == nil {
				p = pod
			}
			if got := plugintest.Hint(t, pl.(*VolumeBinding), tc.ev, p, tc.old, tc.cur); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
