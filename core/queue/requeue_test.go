package queue

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

var (
	bigNode   = &model.Node{Name: "big"}
	smallNode = &model.Node{Name: "small"}
)

// TestFailedAttempt covers where a pod goes when its attempt fails,
// judged by what happened while it was in flight.
func TestFailedAttempt(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name          string
		opts          func(*Options)
		before        func(q *testQueue) // before the pod is popped
		during        func(q *testQueue) // while it is in flight
		unschedulable []string
		pending       []string
		want          SubQueue // "" = dropped
		wantErrors    int      // ConsecutiveErrorsCount after the failure
	}{
		{
			name:          "nothing happened: unschedulable",
			unschedulable: []string{fit},
			want:          Unschedulable,
		},
		{
			name:          "node added during the attempt: backoff",
			during:        func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil) },
			unschedulable: []string{fit},
			want:          Backoff,
		},
		{
			name:          "node added before the attempt does not count",
			before:        func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil) },
			unschedulable: []string{fit},
			want:          Unschedulable,
		},
		{
			name:          "event the rejecting plugin did not register",
			during:        func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil) },
			unschedulable: []string{taints},
			want:          Unschedulable,
		},
		{
			name:          "hint says skip",
			during:        func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, smallNode, nil) },
			unschedulable: []string{picky},
			want:          Unschedulable,
		},
		{
			name:          "hint says queue",
			during:        func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil) },
			unschedulable: []string{picky},
			want:          Backoff,
		},
		{
			name:          "hint error counts as queue",
			during:        func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, smallNode, nil) },
			unschedulable: []string{failing},
			want:          Backoff,
		},
		{
			name:          "one of several rejectors is enough",
			during:        func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, smallNode, nil) },
			unschedulable: []string{picky, fit},
			want:          Backoff,
		},
		{
			name:    "pending plugin answered: straight to activeQ",
			during:  func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil) },
			pending: []string{waiter},
			want:    Active,
		},
		{
			name:    "pending plugin not answered: unschedulable",
			during:  func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeTaint, nil, bigNode, nil) },
			pending: []string{waiter},
			want:    Unschedulable,
		},
		{
			name:       "internal error: error backoff",
			want:       Backoff,
			wantErrors: 1,
		},
		{
			name: "events kept while an older pod is in flight",
			before: func(q *testQueue) {
				q.add(t, pod("older").Priority(100).Obj())
				q.pop(t) // stays in flight; the pod under test is popped next
			},
			during: func(q *testQueue) {
				q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
				q.Done("uid-older")
			},
			unschedulable: []string{fit},
			want:          Backoff,
		},
		{
			name:          "own label update during the attempt",
			during:        func(q *testQueue) { mustUpdate(t, q, nil, pod("p").Label("app", "x").Obj()) },
			unschedulable: []string{labels},
			want:          Backoff,
		},
		{
			name:          "own update the rejector ignores",
			during:        func(q *testQueue) { mustUpdate(t, q, nil, pod("p").Label("app", "x").Obj()) },
			unschedulable: []string{fit},
			want:          Unschedulable,
		},
		{
			name:          "activated during the attempt",
			during:        func(q *testQueue) { q.Activate(map[string]*model.Pod{"p": pod("p").Obj()}) },
			unschedulable: []string{taints},
			want:          Backoff,
		},
		{
			name:          "another pod activated during the attempt",
			before:        func(q *testQueue) { q.add(t, pod("other").Priority(-1).Obj()) },
			during:        func(q *testQueue) { q.Activate(map[string]*model.Pod{"o": pod("other").Obj()}) },
			unschedulable: []string{taints},
			want:          Unschedulable,
		},
		{
			name:          "deleted during the attempt: dropped",
			during:        func(q *testQueue) { q.Delete(pod("p").Obj()) },
			unschedulable: []string{fit},
		},
		{
			name:          "bound during the attempt: dropped",
			during:        func(q *testQueue) { mustUpdate(t, q, nil, pod("p").Node("n1").Obj()) },
			unschedulable: []string{fit},
		},
		{
			name: "pod lookup says gone: dropped",
			opts: func(o *Options) {
				o.PodLookup = func(string) (*model.Pod, bool) { return nil, false }
			},
			unschedulable: []string{fit},
		},
		{
			name: "pod lookup says bound: dropped",
			opts: func(o *Options) {
				o.PodLookup = func(string) (*model.Pod, bool) { return pod("p").Node("n1").Obj(), true }
			},
			unschedulable: []string{fit},
		},
		{
			name:          "no hints: activated during the attempt: backoff",
			opts:          func(o *Options) { o.DisableQueueingHints = true },
			during:        func(q *testQueue) { q.Activate(map[string]*model.Pod{"p": pod("p").Obj()}) },
			unschedulable: []string{taints},
			want:          Backoff,
		},
		{
			name:          "no hints: move request during the cycle: backoff",
			opts:          func(o *Options) { o.DisableQueueingHints = true },
			during:        func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeTaint, nil, bigNode, nil) },
			unschedulable: []string{fit},
			want:          Backoff,
		},
		{
			name:          "no hints: move request before the cycle: unschedulable",
			opts:          func(o *Options) { o.DisableQueueingHints = true },
			before:        func(q *testQueue) { q.MoveAllToActiveOrBackoffQueue(ctx, nodeTaint, nil, bigNode, nil) },
			unschedulable: []string{fit},
			want:          Unschedulable,
		},
		{
			name:          "no hints: no move request: unschedulable",
			opts:          func(o *Options) { o.DisableQueueingHints = true },
			unschedulable: []string{fit},
			want:          Unschedulable,
		},
		{
			name:       "no hints: internal error: backoff",
			opts:       func(o *Options) { o.DisableQueueingHints = true },
			want:       Backoff,
			wantErrors: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, tc.opts)
			if tc.before != nil {
				tc.before(q)
			}
			q.add(t, pod("p").Obj())
			pi := q.pop(t)
			if pi.Pod.Name != "p" {
				t.Fatalf("popped %s, want p", pi.Pod.Name)
			}
			if tc.during != nil {
				tc.during(q)
			}
			q.fail(t, pi, tc.unschedulable, tc.pending)
			if got := q.where("uid-p"); got != tc.want {
				t.Errorf("pod is in %q, want %q", got, tc.want)
			}
			if tc.want == "" {
				return
			}
			p, _ := q.Lookup("uid-p")
			if p.Info.ConsecutiveErrorsCount != tc.wantErrors {
				t.Errorf("ConsecutiveErrorsCount = %d, want %d", p.Info.ConsecutiveErrorsCount, tc.wantErrors)
			}
			if s := q.Stats(); s.InFlight != 0 || s.InFlightEvents != 0 {
				t.Errorf("in flight after the attempt: %+v", s)
			}
		})
	}
}

// TestRejectionResetsErrorCount checks that a plugin rejection ends a run
// of internal errors: the next backoff counts rejections only.
func TestRejectionResetsErrorCount(t *testing.T) {
	ctx := context.Background()
	q := newTestQueue(t, nil)
	q.add(t, pod("p").Obj())
	for range 3 { // error backoffs of 1s, 2s, 4s
		q.fail(t, q.pop(t), nil, nil)
		q.clock.Step(time.Minute)
		q.FlushBackoffQCompleted(ctx)
	}
	pi := q.pop(t)
	failedAt := q.clock.Now()
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
	q.fail(t, pi, []string{fit}, nil)
	p, _ := q.Lookup("uid-p")
	if p.SubQueue != Backoff || p.Info.ConsecutiveErrorsCount != 0 || p.Info.UnschedulableCount != 1 {
		t.Fatalf("after the rejection: %s, %d errors, %d rejections; want Backoff, 0, 1", p.SubQueue, p.Info.ConsecutiveErrorsCount, p.Info.UnschedulableCount)
	}
	if got := p.BackoffUntil.Sub(failedAt); got != time.Second {
		t.Errorf("backoff after the first rejection = %v, want 1s", got)
	}
}

func TestFailedAttemptUsesLatestVersion(t *testing.T) {
	q := newTestQueue(t, nil)
	q.add(t, pod("p").Obj())
	pi := q.pop(t)
	mustUpdate(t, q, nil, pod("p").Label("v", "2").Obj())
	if got := q.where("uid-p"); got != InFlight {
		t.Fatalf("updated pod in flight is in %q, want InFlight", got)
	}
	q.fail(t, pi, []string{fit}, nil)
	p, _ := q.Lookup("uid-p")
	if got := p.Info.Pod.Labels["v"]; got != "2" {
		t.Errorf("requeued pod has label v=%q, want 2", got)
	}
}

func TestRequeueErrors(t *testing.T) {
	q := newTestQueue(t, nil)
	q.add(t, pod("p").Obj())
	p, _ := q.Lookup("uid-p")
	err := q.AddUnschedulableIfNotPresent(context.Background(), p.Info, q.SchedulingCycle())
	if !errors.Is(err, ErrAlreadyQueued) {
		t.Errorf("requeue of a queued pod: error %v, want ErrAlreadyQueued", err)
	}
}

// TestRequeueAfterDone covers a pod that fails after Done (a binding
// failure): it is retried after backoff, like an internal error.
func TestRequeueAfterDone(t *testing.T) {
	q := newTestQueue(t, nil)
	q.add(t, pod("p").Obj())
	pi := q.pop(t)
	q.Done("uid-p")
	if got := q.where("uid-p"); got != "" {
		t.Fatalf("after Done the pod is in %q, want forgotten", got)
	}
	q.fail(t, pi, nil, nil)
	if got := q.where("uid-p"); got != Backoff {
		t.Errorf("pod is in %q, want Backoff", got)
	}
}

// TestEventMoves covers a cluster event reaching a pod that is already
// among the unschedulable pods.
func TestEventMoves(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name          string
		pod           *model.Pod
		unschedulable []string
		pending       []string
		wait          time.Duration // clock step after the failure
		event         framework.ClusterEvent
		newObj        any
		preCheck      func(*model.Pod) bool
		want          SubQueue
	}{
		{name: "registered event, backing off", unschedulable: []string{fit}, event: nodeAdd, newObj: bigNode, want: Backoff},
		{name: "registered event, backoff over", unschedulable: []string{fit}, wait: 3 * time.Second, event: nodeAdd, newObj: bigNode, want: Active},
		{name: "unregistered event", unschedulable: []string{fit}, event: nodeLabel, newObj: bigNode, want: Unschedulable},
		{name: "event for another plugin", unschedulable: []string{taints}, event: nodeAdd, newObj: bigNode, want: Unschedulable},
		{name: "hint skips", unschedulable: []string{picky}, event: nodeAdd, newObj: smallNode, want: Unschedulable},
		{name: "hint queues", unschedulable: []string{picky}, event: nodeAdd, newObj: bigNode, want: Backoff},
		{name: "preCheck refuses", unschedulable: []string{fit}, event: nodeAdd, newObj: bigNode, preCheck: func(*model.Pod) bool { return false }, want: Unschedulable},
		{name: "pending plugin: activeQ despite backoff", pending: []string{waiter}, event: nodeAdd, newObj: bigNode, want: Active},
		{name: "pending and unschedulable, only the latter answers", unschedulable: []string{fit}, pending: []string{picky}, event: nodeAdd, newObj: smallNode, want: Backoff},
		{name: "wildcard for this pod", unschedulable: []string{taints}, event: EventForceActivate(), newObj: pod("p").Obj(), want: Backoff},
		{name: "wildcard for another pod", unschedulable: []string{taints}, event: EventForceActivate(), newObj: pod("other").Obj(), want: Unschedulable},
		{
			name: "profile without hints: any event of interest moves", pod: pod("p").SchedulerName("other").Obj(),
			unschedulable: []string{taints}, event: nodeAdd, newObj: bigNode, want: Backoff,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			p := tc.pod
			if p == nil {
				p = pod("p").Obj()
			}
			q.add(t, p)
			q.fail(t, q.pop(t), tc.unschedulable, tc.pending)
			if got := q.where("uid-p"); got != Unschedulable {
				t.Fatalf("after the failure the pod is in %q", got)
			}
			q.clock.Step(tc.wait)
			q.MoveAllToActiveOrBackoffQueue(ctx, tc.event, nil, tc.newObj, tc.preCheck)
			if got := q.where("uid-p"); got != tc.want {
				t.Errorf("pod is in %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGatedPodsAndEvents(t *testing.T) {
	ctx := context.Background()
	q := newTestQueue(t, nil)
	q.add(t, pod("g").Gate("example.com/wait").Obj())
	if got := q.where("uid-g"); got != Gated {
		t.Fatalf("gated pod is in %q, want Gated", got)
	}
	calls := q.gate.calls
	// An event the gating plugin did not register does not even run PreEnqueue.
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
	if q.gate.calls != calls {
		t.Errorf("PreEnqueue ran %d more times for an unrelated event", q.gate.calls-calls)
	}
	// A wildcard re-checks the gate: still gated.
	q.MoveAllToActiveOrBackoffQueue(ctx, EventUnschedulableTimeout(), nil, nil, nil)
	if got := q.where("uid-g"); got != Gated || q.gate.calls != calls+1 {
		t.Errorf("after a wildcard: pod in %q, PreEnqueue calls +%d; want Gated, +1", got, q.gate.calls-calls)
	}
	p, _ := q.Lookup("uid-g")
	if diff := cmp.Diff(map[string]struct{}{"SchedulingGates": {}}, p.Info.UnschedulablePlugins); diff != "" {
		t.Errorf("UnschedulablePlugins (-want +got):\n%s", diff)
	}
	if p.Info.GatingPluginMessage != "waiting for scheduling gates" {
		t.Errorf("GatingPluginMessage = %q", p.Info.GatingPluginMessage)
	}
}

func TestFlushBackoffQ(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name          string
		unschedulable []string // none: internal error
		wait          time.Duration
		want          SubQueue
	}{
		{name: "still backing off", unschedulable: []string{fit}, wait: 1500 * time.Millisecond, want: Backoff},
		{name: "backoff over", unschedulable: []string{fit}, wait: 2 * time.Second, want: Active},
		{name: "error backoff over", wait: 2 * time.Second, want: Active},
		{name: "error backoff not over", wait: 900 * time.Millisecond, want: Backoff},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			q.add(t, pod("p").Obj())
			pi := q.pop(t)
			q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
			q.fail(t, pi, tc.unschedulable, nil)
			if got := q.where("uid-p"); got != Backoff {
				t.Fatalf("after the failure the pod is in %q, want Backoff", got)
			}
			q.clock.Step(tc.wait)
			q.FlushBackoffQCompleted(ctx)
			if got := q.where("uid-p"); got != tc.want {
				t.Errorf("pod is in %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFlushUnschedulable(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		wait    time.Duration
		maxWait time.Duration
		pending bool
		want    SubQueue
	}{
		{name: "not long enough", wait: 5 * time.Minute, want: Unschedulable},
		{name: "longer than 5 minutes", wait: 5*time.Minute + time.Second, want: Active},
		{name: "pending plugins too", wait: 5*time.Minute + time.Second, pending: true, want: Active},
		{name: "configured duration", wait: 61 * time.Second, maxWait: time.Minute, want: Active},
		{name: "configured duration, short of it", wait: 59 * time.Second, maxWait: time.Minute, want: Unschedulable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, func(o *Options) { o.PodMaxInUnschedulablePodsDuration = tc.maxWait })
			q.add(t, pod("p").Obj())
			if tc.pending {
				q.fail(t, q.pop(t), nil, []string{waiter})
			} else {
				q.fail(t, q.pop(t), []string{fit}, nil)
			}
			q.clock.Step(tc.wait)
			q.FlushUnschedulablePodsLeftover(ctx)
			if got := q.where("uid-p"); got != tc.want {
				t.Errorf("pod is in %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFlushGatedPod checks that a gated pod, whose queue timestamp stays
// the time it was added, is re-checked by every flush once it is older than
// PodMaxInUnschedulablePodsDuration.
func TestFlushGatedPod(t *testing.T) {
	ctx := context.Background()
	q := newTestQueue(t, nil)
	q.add(t, pod("g").Gate("wait").Obj())
	var checks []int
	for range 14 { // 7 minutes of 30-second flushes
		q.clock.Step(30 * time.Second)
		before := q.gate.calls
		q.FlushUnschedulablePodsLeftover(ctx)
		checks = append(checks, q.gate.calls-before)
	}
	want := []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}
	if diff := cmp.Diff(want, checks); diff != "" {
		t.Errorf("PreEnqueue runs per flush (-want +got):\n%s", diff)
	}
	if got := q.where("uid-g"); got != Gated {
		t.Errorf("pod is in %q, want Gated", got)
	}
}

func TestActivate(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(q *testQueue) // leaves pod p somewhere
		want  SubQueue
	}{
		{name: "from unschedulable", setup: func(q *testQueue) { q.fail(t, q.pop(t), []string{fit}, nil) }, want: Active},
		{
			name: "from backoff",
			setup: func(q *testQueue) {
				pi := q.pop(t)
				q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
				q.fail(t, pi, []string{fit}, nil)
			},
			want: Active,
		},
		{name: "from error backoff", setup: func(q *testQueue) { q.fail(t, q.pop(t), nil, nil) }, want: Active},
		{name: "already active", want: Active},
		{name: "in flight stays in flight", setup: func(q *testQueue) { q.pop(t) }, want: InFlight},
		{name: "unknown pod ignored", setup: func(q *testQueue) { q.Delete(pod("p").Obj()) }, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			q.add(t, pod("p").Obj())
			if tc.setup != nil {
				tc.setup(q)
			}
			q.Activate(map[string]*model.Pod{"default/p": pod("p").Obj()})
			if got := q.where("uid-p"); got != tc.want {
				t.Errorf("pod is in %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAssignedPodEvents(t *testing.T) {
	ctx := context.Background()
	affinity := model.PodAffinityTerm{
		LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		TopologyKey:   model.LabelHostname,
	}
	assignedEvent := framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionAdd | framework.ActionUpdatePodLabel | framework.ActionUpdatePodScaleDown}
	tests := []struct {
		name          string
		pending       *model.Pod
		unschedulable []string
		call          func(q *testQueue)
		want          SubQueue
	}{
		{
			name:          "added pod matches required affinity",
			pending:       pod("p").PodAffinity(0, affinity).Obj(),
			unschedulable: []string{"InterPodAffinity"},
			call:          func(q *testQueue) { q.AssignedPodAdded(ctx, pod("db").Label("app", "db").Node("n1").Obj()) },
			want:          Backoff,
		},
		{
			name:          "added pod does not match",
			pending:       pod("p").PodAffinity(0, affinity).Obj(),
			unschedulable: []string{"InterPodAffinity"},
			call:          func(q *testQueue) { q.AssignedPodAdded(ctx, pod("web").Label("app", "web").Node("n1").Obj()) },
			want:          Unschedulable,
		},
		{
			name:          "rejected by topology spread, same namespace",
			pending:       pod("p").Obj(),
			unschedulable: []string{topology},
			call:          func(q *testQueue) { q.AssignedPodAdded(ctx, pod("any").Node("n1").Obj()) },
			want:          Backoff,
		},
		{
			name:          "rejected by topology spread, other namespace",
			pending:       pod("p").Obj(),
			unschedulable: []string{topology},
			call:          func(q *testQueue) { q.AssignedPodAdded(ctx, pod("any").Namespace("other").Node("n1").Obj()) },
			want:          Unschedulable,
		},
		{
			name:          "label update matches affinity",
			pending:       pod("p").PodAffinity(0, affinity).Obj(),
			unschedulable: []string{"InterPodAffinity"},
			call: func(q *testQueue) {
				q.AssignedPodUpdated(ctx, pod("db").Node("n1").Obj(), pod("db").Label("app", "db").Node("n1").Obj(),
					framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionUpdatePodLabel})
			},
			want: Backoff,
		},
		{
			name:          "scale-down reaches every pod",
			pending:       pod("p").Obj(),
			unschedulable: []string{"InterPodAffinity"},
			call: func(q *testQueue) {
				q.AssignedPodUpdated(ctx, pod("db").Node("n1").Obj(), pod("db").Node("n1").Obj(),
					framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionUpdatePodScaleDown})
			},
			want: Backoff,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, func(o *Options) {
				o.QueueingHints = map[string]QueueingHintMap{model.DefaultSchedulerName: {
					{Resource: framework.EventPod, ActionType: assignedEvent.ActionType}: {{PluginName: "InterPodAffinity"}, {PluginName: topology}},
				}}
			})
			q.add(t, tc.pending)
			q.fail(t, q.pop(t), tc.unschedulable, nil)
			tc.call(q)
			if got := q.where("uid-p"); got != tc.want {
				t.Errorf("pod is in %q, want %q", got, tc.want)
			}
		})
	}
}

func mustUpdate(t testing.TB, q *testQueue, oldPod, newPod *model.Pod) {
	t.Helper()
	if err := q.Update(context.Background(), oldPod, newPod); err != nil {
		t.Fatalf("Update(%s): %v", newPod.Name, err)
	}
}

// TestGatedAfterFailure covers a pod that failed, then got a gate: events
// its old rejector registered no longer run PreEnqueue for it; only the
// gating plugin's events do.
func TestGatedAfterFailure(t *testing.T) {
	ctx := context.Background()
	q := newTestQueue(t, nil)
	q.add(t, pod("p").Obj())
	q.fail(t, q.pop(t), []string{fit}, nil)
	mustUpdate(t, q, nil, pod("p").Gate("g").Obj())
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil) // fit's event: PreEnqueue runs and gates
	if got := q.where("uid-p"); got != Gated {
		t.Fatalf("pod is in %q, want Gated", got)
	}
	calls := q.gate.calls
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
	if q.gate.calls != calls {
		t.Errorf("PreEnqueue ran for an event the gating plugin did not register")
	}
	q.clock.Step(time.Minute)
	mustUpdate(t, q, nil, pod("p").Obj())
	if got := q.where("uid-p"); got != Active {
		t.Errorf("after the gate is lifted the pod is in %q, want Active", got)
	}
}
