package volumerestrictions

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
)

// TestHints: for each event VolumeRestrictions registers, whether a pod it
// rejected is queued, as kube 1.37's hints decide.
func TestHints(t *testing.T) {
	pl, err := New(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := func(r framework.EventResource, a framework.ActionType) framework.ClusterEvent {
		return framework.ClusterEvent{Resource: r, ActionType: a}
	}
	pod := podUsing("p", "data")
	inNamespace := func(p *model.Pod, ns string) *model.Pod { p.Namespace = ns; return p }
	ephemeral := &model.Pod{Namespace: "default", Name: "q", Volumes: []model.PodVolume{{Name: "d", ClaimName: "data", Ephemeral: &model.ClaimTemplate{}}}}
	tests := []struct {
		name     string
		ev       framework.ClusterEvent
		old, cur any
		want     framework.QueueingHint
	}{
		{name: "pod using the claim deleted", ev: ev(framework.EventAssignedPod, framework.ActionDelete), old: podUsing("q", "data"), want: framework.Queue},
		{name: "pod using another claim deleted", ev: ev(framework.EventAssignedPod, framework.ActionDelete), old: podUsing("q", "other"), want: framework.QueueSkip},
		{name: "pod of another namespace deleted", ev: ev(framework.EventAssignedPod, framework.ActionDelete), old: inNamespace(podUsing("q", "data"), "ns2"), want: framework.QueueSkip},
		{name: "pod with an ephemeral claim of the name deleted", ev: ev(framework.EventAssignedPod, framework.ActionDelete), old: ephemeral, want: framework.QueueSkip},
		{name: "pending pod deleted: not registered", ev: ev(framework.EventUnscheduledPod, framework.ActionDelete), old: podUsing("q", "data"), want: framework.QueueSkip},

		{name: "node added", ev: ev(framework.EventNode, framework.ActionAdd), cur: &model.Node{Name: "n"}, want: framework.Queue},
		{name: "node relabelled: not registered", ev: ev(framework.EventNode, framework.ActionUpdateNodeLabel), old: &model.Node{Name: "n"}, cur: &model.Node{Name: "n"}, want: framework.QueueSkip},

		{name: "the pod's claim added", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionAdd), cur: claimWith("data", corev1.ReadWriteOncePod), want: framework.Queue},
		{name: "another claim added", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionAdd), cur: claimWith("x", corev1.ReadWriteOncePod), want: framework.QueueSkip},
		{name: "the pod's claim updated: not registered", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionUpdateOther),
			old: claimWith("data", corev1.ReadWriteOncePod), cur: claimWith("data", corev1.ReadWriteOncePod), want: framework.QueueSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := plugintest.Hint(t, pl.(*VolumeRestrictions), tc.ev, pod, tc.old, tc.cur); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
