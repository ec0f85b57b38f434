package queue

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// place leaves newPod in the named state; for InFlight it returns the
// popped info.
func place(t *testing.T, q *testQueue, newPod *model.Pod, where SubQueue) *framework.QueuedPodInfo {
	t.Helper()
	var popped *framework.QueuedPodInfo
	ctx := context.Background()
	q.add(t, newPod)
	switch where {
	case Active, Gated:
	case Backoff:
		pi := q.pop(t)
		q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
		q.fail(t, pi, []string{fit}, nil)
	case Unschedulable:
		q.fail(t, q.pop(t), []string{fit}, nil)
	case InFlight:
		popped = q.pop(t)
	}
	if got := q.where(newPod.UID); got != where {
		t.Fatalf("setup: pod is in %q, want %q", got, where)
	}
	return popped
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name      string
		opts      func(*Options)
		oldPod    *model.Pod
		from      SubQueue // "" = unknown to the queue
		newPod    *model.Pod
		wait      time.Duration // clock step before the update
		want      SubQueue
		wantLabel string // the queued version's label "v"
	}{
		{name: "active: in place", oldPod: pod("p").Obj(), from: Active, newPod: pod("p").Label("v", "2").Obj(), want: Active, wantLabel: "2"},
		{name: "backoff: in place", oldPod: pod("p").Obj(), from: Backoff, newPod: pod("p").Label("v", "2").Obj(), want: Backoff, wantLabel: "2"},
		{
			name: "unschedulable: update the rejector's hint accepts", oldPod: pod("p").Obj(), from: Unschedulable,
			opts:   func(o *Options) { o.QueueingHints[model.DefaultSchedulerName][podLabelEvent][0].PluginName = fit },
			newPod: pod("p").Label("v", "2").Obj(), want: Backoff, wantLabel: "2",
		},
		{
			name: "unschedulable: accepted after backoff: activeQ", oldPod: pod("p").Obj(), from: Unschedulable,
			opts:   func(o *Options) { o.QueueingHints[model.DefaultSchedulerName][podLabelEvent][0].PluginName = fit },
			newPod: pod("p").Label("v", "2").Obj(), wait: 2 * time.Second, want: Active, wantLabel: "2",
		},
		{name: "unschedulable: update no rejector cares about", oldPod: pod("p").Obj(), from: Unschedulable, newPod: pod("p").Label("v", "2").Obj(), want: Unschedulable, wantLabel: "2"},
		{name: "gated: gates removed", oldPod: pod("p").Gate("g").Obj(), from: Gated, newPod: pod("p").Label("v", "2").Obj(), want: Active, wantLabel: "2"},
		{name: "gated: one gate of two removed", oldPod: pod("p").Gate("g").Gate("h").Obj(), from: Gated, newPod: pod("p").Gate("h").Label("v", "2").Obj(), want: Gated, wantLabel: "2"},
		{name: "gated: other change", oldPod: pod("p").Gate("g").Obj(), from: Gated, newPod: pod("p").Gate("g").Label("v", "2").Obj(), want: Gated, wantLabel: "2"},
		{name: "unknown: added", newPod: pod("p").Label("v", "2").Obj(), want: Active, wantLabel: "2"},
		{name: "unknown and gated", newPod: pod("p").Gate("g").Label("v", "2").Obj(), want: Gated, wantLabel: "2"},
		{name: "in flight: stays in flight", oldPod: pod("p").Obj(), from: InFlight, newPod: pod("p").Label("v", "2").Obj(), want: InFlight, wantLabel: ""},
		{name: "bound: leaves the queue", oldPod: pod("p").Obj(), from: Unschedulable, newPod: pod("p").Node("n1").Obj(), want: ""},
		{
			name: "no hints: spec change moves", oldPod: pod("p").Obj(), from: Unschedulable,
			opts:   func(o *Options) { o.DisableQueueingHints = true },
			newPod: pod("p").Label("v", "2").Obj(), want: Backoff, wantLabel: "2",
		},
		{
			name: "no hints: status-only change stays", oldPod: pod("p").Label("v", "1").Obj(), from: Unschedulable,
			opts:   func(o *Options) { o.DisableQueueingHints = true },
			newPod: pod("p").Label("v", "1").Ready().Nominated("n2").Obj(), want: Unschedulable, wantLabel: "1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, tc.opts)
			if tc.from != "" {
				place(t, q, tc.oldPod, tc.from)
			}
			q.clock.Step(tc.wait)
			mustUpdate(t, q, tc.oldPod, tc.newPod)
			if got := q.where("uid-p"); got != tc.want {
				t.Errorf("pod is in %q, want %q", got, tc.want)
			}
			if tc.want == "" {
				return
			}
			p, _ := q.Lookup("uid-p")
			if got := p.Info.Pod.Labels["v"]; got != tc.wantLabel {
				t.Errorf("queued version has v=%q, want %q", got, tc.wantLabel)
			}
		})
	}
}

func TestUpdateReordersActiveQ(t *testing.T) {
	q := newTestQueue(t, nil)
	q.add(t, pod("a").Priority(10).Obj())
	q.clock.Step(time.Second)
	q.add(t, pod("b").Priority(5).Obj())
	mustUpdate(t, q, nil, pod("b").Priority(20).Obj())
	var got []string
	for range 2 {
		got = append(got, q.pop(t).Pod.Name)
	}
	if diff := cmp.Diff([]string{"b", "a"}, got); diff != "" {
		t.Errorf("pop order (-want +got):\n%s", diff)
	}
}

func TestDelete(t *testing.T) {
	for _, from := range []SubQueue{Active, Backoff, Unschedulable, Gated, InFlight} {
		t.Run(string(from), func(t *testing.T) {
			q := newTestQueue(t, nil)
			p := pod("p").Nominated("n1").Obj()
			if from == Gated {
				p = pod("p").Gate("g").Nominated("n1").Obj()
			}
			popped := place(t, q, p, from)
			q.Nominator().AddNominatedPod(framework.MustPodInfo(p), nil)
			q.Delete(p)
			if got := q.Nominator().NominatedPodsForNode("n1"); len(got) != 0 {
				t.Errorf("nomination survived the delete: %d pods on n1", len(got))
			}
			wantAfterDelete := SubQueue("")
			if from == InFlight {
				wantAfterDelete = InFlight // until its attempt ends
			}
			if got := q.where("uid-p"); got != wantAfterDelete {
				t.Errorf("after Delete the pod is in %q, want %q", got, wantAfterDelete)
			}
			if from == InFlight {
				q.fail(t, popped, []string{fit}, nil)
				if got := q.where("uid-p"); got != "" {
					t.Errorf("deleted pod requeued into %q", got)
				}
			}
			if s := q.Stats(); s != (Stats{SchedulingCycle: s.SchedulingCycle}) {
				t.Errorf("queue not empty: %+v", s)
			}
		})
	}
}
