package queue

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

func TestPodUpdateEvents(t *testing.T) {
	const (
		unscheduled = framework.EventUnscheduledPod
		assigned    = framework.EventAssignedPod
	)
	tests := []struct {
		name     string
		old, new *model.Pod
		want     []framework.ActionType
		resource framework.EventResource
	}{
		{name: "nothing the scheduler reads", old: pod("p").Obj(), new: pod("p").Ready().Obj(), want: []framework.ActionType{framework.ActionUpdatePodOther}, resource: unscheduled},
		{name: "labels", old: pod("p").Obj(), new: pod("p").Label("a", "b").Obj(), want: []framework.ActionType{framework.ActionUpdatePodLabel}, resource: unscheduled},
		{name: "empty and nil labels are equal", old: &model.Pod{Labels: map[string]string{}}, new: &model.Pod{}, want: []framework.ActionType{framework.ActionUpdatePodOther}, resource: unscheduled},
		{name: "cpu lowered", old: pod("p").Req(mt.Res(200, 0)).Obj(), new: pod("p").Req(mt.Res(100, 0)).Obj(), want: []framework.ActionType{framework.ActionUpdatePodScaleDown}, resource: unscheduled},
		{name: "cpu raised", old: pod("p").Req(mt.Res(100, 0)).Obj(), new: pod("p").Req(mt.Res(200, 0)).Obj(), want: []framework.ActionType{framework.ActionUpdatePodOther}, resource: unscheduled},
		{
			name: "extended resource dropped", resource: unscheduled,
			old: pod("p").Req(model.ResourceList{"example.com/gpu": 1}).Obj(), new: pod("p").Obj(),
			want: []framework.ActionType{framework.ActionUpdatePodScaleDown},
		},
		{name: "gates removed", old: pod("p").Gate("g").Obj(), new: pod("p").Obj(), want: []framework.ActionType{framework.ActionUpdatePodSchedulingGatesEliminated}, resource: unscheduled},
		{name: "one gate of two removed", old: pod("p").Gate("g").Gate("h").Obj(), new: pod("p").Gate("h").Obj(), want: []framework.ActionType{framework.ActionUpdatePodOther}, resource: unscheduled},
		{name: "toleration added", old: pod("p").Obj(), new: pod("p").Toleration(model.Toleration{Key: "k"}).Obj(), want: []framework.ActionType{framework.ActionUpdatePodToleration}, resource: unscheduled},
		{
			name: "several at once, on a bound pod", resource: assigned,
			old: pod("p").Node("n").Req(mt.Res(200, 0)).Obj(), new: pod("p").Node("n").Label("a", "b").Req(mt.Res(100, 0)).Obj(),
			want: []framework.ActionType{framework.ActionUpdatePodLabel, framework.ActionUpdatePodScaleDown},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []framework.ActionType
			for _, ev := range PodUpdateEvents(tc.old, tc.new) {
				if ev.Resource != tc.resource {
					t.Errorf("event %s on %s, want %s", ev.Label, ev.Resource, tc.resource)
				}
				got = append(got, ev.ActionType)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPodUpdateReachesOnlyInterestedPlugins checks that a pod update with
// no specific change wakes only plugins registered for every pod update,
// whether the updated pod is bound (another pod's event) or is the
// unschedulable pod itself.
func TestPodUpdateReachesOnlyInterestedPlugins(t *testing.T) {
	ctx := context.Background()
	const anyUpdate = "AnyUpdate" // registered for every pod update
	hints := func(o *Options) {
		o.QueueingHints[model.DefaultSchedulerName][framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionUpdate}] = []QueueingHintFunction{{PluginName: anyUpdate}}
	}
	boundUpdate := func(oldPod, newPod *model.Pod) func(q *testQueue) {
		return func(q *testQueue) {
			for _, ev := range PodUpdateEvents(oldPod, newPod) {
				q.MoveAllToActiveOrBackoffQueue(ctx, ev, oldPod, newPod, nil)
			}
		}
	}
	selfUpdate := func(newPod *model.Pod) func(q *testQueue) {
		return func(q *testQueue) { mustUpdate(t, q, nil, newPod) }
	}
	bound := pod("web").Node("n1").Label("app", "web").Obj()
	tests := []struct {
		name     string
		rejector string
		update   func(q *testQueue)
		want     SubQueue
	}{
		{name: "bound pod readiness, label registration", rejector: labels, update: boundUpdate(bound, pod("web").Node("n1").Label("app", "web").Ready().Obj()), want: Unschedulable},
		{name: "bound pod readiness, update registration", rejector: anyUpdate, update: boundUpdate(bound, pod("web").Node("n1").Label("app", "web").Ready().Obj()), want: Backoff},
		{name: "bound pod labels, label registration", rejector: labels, update: boundUpdate(bound, pod("web").Node("n1").Label("app", "db").Obj()), want: Backoff},
		{name: "own nomination, label registration", rejector: labels, update: selfUpdate(pod("p").Nominated("n2").Obj()), want: Unschedulable},
		{name: "own nomination, update registration", rejector: anyUpdate, update: selfUpdate(pod("p").Nominated("n2").Obj()), want: Backoff},
		{name: "own labels, label registration", rejector: labels, update: selfUpdate(pod("p").Label("v", "2").Obj()), want: Backoff},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, hints)
			q.add(t, pod("p").Obj())
			q.fail(t, q.pop(t), []string{tc.rejector}, nil)
			tc.update(q)
			if got := q.where("uid-p"); got != tc.want {
				t.Errorf("pod is in %q, want %q", got, tc.want)
			}
		})
	}
}
