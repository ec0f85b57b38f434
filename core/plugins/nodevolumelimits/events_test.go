package nodevolumelimits

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
)

// limits is a CSINode listing drivers with their counts (-1: no count).
func limits(counts map[string]int32) *storagev1.CSINode {
	n := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	for d, c := range counts {
		nd := storagev1.CSINodeDriver{Name: d, NodeID: "n1"}
		if c >= 0 {
			nd.Allocatable = &storagev1.VolumeNodeResources{Count: new(c)}
		}
		n.Spec.Drivers = append(n.Spec.Drivers, nd)
	}
	return n
}

// TestHints: for each event NodeVolumeLimits registers, whether a pod it
// rejected is queued, as kube 1.37's hints decide, and, where Berth's
// VolumeLimitScaling check reads what kube's hints do not, queued then too.
func TestHints(t *testing.T) {
	pl, err := New(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := func(r framework.EventResource, a framework.ActionType) framework.ClusterEvent {
		return framework.ClusterEvent{Resource: r, ActionType: a}
	}
	pod := podUsing("p", "data")
	onNode := func(p *model.Pod, node, nominated string) *model.Pod {
		p.NodeName, p.NominatedNodeName = node, nominated
		return p
	}
	prevent := func(v *bool) *storagev1.CSIDriver {
		return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: driver}, Spec: storagev1.CSIDriverSpec{PreventPodSchedulingIfMissing: v}}
	}
	claimNamed := func(ns, name string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	tests := []struct {
		name     string
		ev       framework.ClusterEvent
		old, cur any
		want     framework.QueueingHint
	}{
		{name: "CSINode added", ev: ev(framework.EventCSINode, framework.ActionAdd), cur: limits(map[string]int32{driver: 1}), want: framework.Queue},
		{name: "limit raised", ev: ev(framework.EventCSINode, framework.ActionUpdateOther),
			old: limits(map[string]int32{driver: 1}), cur: limits(map[string]int32{driver: 2}), want: framework.Queue},
		{name: "limit first given", ev: ev(framework.EventCSINode, framework.ActionUpdateOther),
			old: limits(map[string]int32{driver: -1}), cur: limits(map[string]int32{driver: 3}), want: framework.Queue},
		{name: "limit lowered", ev: ev(framework.EventCSINode, framework.ActionUpdateOther),
			old: limits(map[string]int32{driver: 2}), cur: limits(map[string]int32{driver: 1}), want: framework.QueueSkip},
		{name: "limit unchanged", ev: ev(framework.EventCSINode, framework.ActionUpdateOther),
			old: limits(map[string]int32{driver: 2}), cur: limits(map[string]int32{driver: 2}), want: framework.QueueSkip},
		{name: "driver newly listed without a count", ev: ev(framework.EventCSINode, framework.ActionUpdateOther),
			old: limits(map[string]int32{}), cur: limits(map[string]int32{driver: -1}), want: framework.Queue},
		{name: "driver no longer listed", ev: ev(framework.EventCSINode, framework.ActionUpdateOther),
			old: limits(map[string]int32{driver: 2}), cur: limits(map[string]int32{}), want: framework.QueueSkip},
		{name: "CSINode deleted: not registered", ev: ev(framework.EventCSINode, framework.ActionDelete), old: limits(map[string]int32{driver: 2}), want: framework.QueueSkip},

		{name: "bound pod with a claim deleted", ev: ev(framework.EventAssignedPod, framework.ActionDelete), old: onNode(podUsing("q", "other"), "n1", ""), want: framework.Queue},
		{name: "nominated pod with a claim deleted", ev: ev(framework.EventAssignedPod, framework.ActionDelete), old: onNode(podUsing("q", "other"), "", "n1"), want: framework.Queue},
		{name: "bound pod without claims deleted", ev: ev(framework.EventAssignedPod, framework.ActionDelete), old: onNode(podUsing("q"), "n1", ""), want: framework.QueueSkip},
		{name: "bound pod with an inline CSI volume only deleted", ev: ev(framework.EventAssignedPod, framework.ActionDelete),
			old: func() any {
				p := onNode(podUsing("q"), "n1", "")
				p.Volumes = []model.PodVolume{{Name: "i", CSIDriver: driver}}
				return p
			}(), want: framework.QueueSkip},

		{name: "the pod's claim added", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionAdd), cur: claimNamed("default", "data"), want: framework.Queue},
		{name: "another claim added", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionAdd), cur: claimNamed("default", "x"), want: framework.QueueSkip},
		{name: "its name in another namespace", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionAdd), cur: claimNamed("ns2", "data"), want: framework.QueueSkip},
		{name: "claim updated: not registered", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionUpdateOther), old: claimNamed("default", "data"), cur: claimNamed("default", "data"), want: framework.QueueSkip},

		{name: "driver stops requiring to be listed", ev: ev(framework.EventCSIDriver, framework.ActionUpdateOther), old: prevent(new(true)), cur: prevent(new(false)), want: framework.Queue},
		{name: "driver requiring to be listed deleted", ev: ev(framework.EventCSIDriver, framework.ActionDelete), old: prevent(new(true)), want: framework.Queue},
		{name: "driver starts requiring to be listed", ev: ev(framework.EventCSIDriver, framework.ActionUpdateOther), old: prevent(nil), cur: prevent(new(true)), want: framework.QueueSkip},
		{name: "driver not requiring it deleted", ev: ev(framework.EventCSIDriver, framework.ActionDelete), old: prevent(nil), want: framework.QueueSkip},
		{name: "driver added: not registered", ev: ev(framework.EventCSIDriver, framework.ActionAdd), cur: prevent(nil), want: framework.QueueSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := plugintest.Hint(t, pl.(*CSILimits), tc.ev, pod, tc.old, tc.cur); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
