package volumezone

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

// TestHints: for each event VolumeZone registers, whether a pod it
// rejected is queued, as kube 1.37's hints decide.
func TestHints(t *testing.T) {
	pl, err := New(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := func(r framework.EventResource, a framework.ActionType) framework.ClusterEvent {
		return framework.ClusterEvent{Resource: r, ActionType: a}
	}
	pod := &model.Pod{Namespace: "default", Name: "p", UID: "p", Volumes: []model.PodVolume{
		{Name: "d", ClaimName: "data"},
		{Name: "e", ClaimName: "p-e", Ephemeral: &model.ClaimTemplate{}},
	}}
	classOf := func(mode *storagev1.VolumeBindingMode) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Provisioner: "x", VolumeBindingMode: mode}
	}
	wffc, immediate := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	zone := func(z string) map[string]string { return map[string]string{corev1.LabelTopologyZone: z} }
	tests := []struct {
		name     string
		ev       framework.ClusterEvent
		old, cur any
		want     framework.QueueingHint
	}{
		{name: "WaitForFirstConsumer class added", ev: ev(framework.EventStorageClass, framework.ActionAdd), cur: classOf(&wffc), want: framework.Queue},
		{name: "Immediate class added", ev: ev(framework.EventStorageClass, framework.ActionAdd), cur: classOf(&immediate), want: framework.QueueSkip},
		{name: "class without a mode added", ev: ev(framework.EventStorageClass, framework.ActionAdd), cur: classOf(nil), want: framework.QueueSkip},
		{name: "class updated: not registered", ev: ev(framework.EventStorageClass, framework.ActionUpdateOther), old: classOf(&wffc), cur: classOf(&wffc), want: framework.QueueSkip},

		{name: "the pod's claim bound", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionUpdateOther), old: boundClaim("data", "", ""), cur: boundClaim("data", "pv", ""), want: framework.Queue},
		{name: "the pod's ephemeral claim (VolumeZone ignores them)", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionAdd), cur: boundClaim("p-e", "", ""), want: framework.QueueSkip},
		{name: "another claim", ev: ev(framework.EventPersistentVolumeClaim, framework.ActionAdd), cur: boundClaim("x", "", ""), want: framework.QueueSkip},

		{name: "volume added", ev: ev(framework.EventPersistentVolume, framework.ActionAdd), cur: labelledVolume("pv", zone("a")), want: framework.Queue},
		{name: "volume's zone changed", ev: ev(framework.EventPersistentVolume, framework.ActionUpdateOther), old: labelledVolume("pv", zone("a")), cur: labelledVolume("pv", zone("b")), want: framework.Queue},
		{name: "volume's zone label removed", ev: ev(framework.EventPersistentVolume, framework.ActionUpdateOther), old: labelledVolume("pv", zone("a")), cur: labelledVolume("pv", nil), want: framework.Queue},
		{name: "volume otherwise changed", ev: ev(framework.EventPersistentVolume, framework.ActionUpdateOther),
			old: labelledVolume("pv", zone("a")), cur: func() any { v := labelledVolume("pv", zone("a")); v.Labels["team"] = "x"; return v }(), want: framework.QueueSkip},
		{name: "volume deleted: not registered", ev: ev(framework.EventPersistentVolume, framework.ActionDelete), old: labelledVolume("pv", zone("a")), want: framework.QueueSkip},

		{name: "node added", ev: ev(framework.EventNode, framework.ActionAdd), cur: &model.Node{Name: "n"}, want: framework.Queue},
		{name: "node relabelled", ev: ev(framework.EventNode, framework.ActionUpdateNodeLabel), old: &model.Node{Name: "n"}, cur: &model.Node{Name: "n"}, want: framework.Queue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := plugintest.Hint(t, pl.(*VolumeZone), tc.ev, pod, tc.old, tc.cur); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
