package queue

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

func TestPopOrder(t *testing.T) {
	type added struct {
		name     string
		priority int32
	}
	tests := []struct {
		name        string
		pods        []added // added one second apart
		sameInstant bool    // added at the same clock reading
		want        []string
	}{
		{
			name: "higher priority first",
			pods: []added{{"low", 1}, {"high", 100}, {"mid", 50}},
			want: []string{"high", "mid", "low"},
		},
		{
			name: "equal priority in arrival order",
			pods: []added{{"a", 5}, {"b", 5}, {"c", 5}},
			want: []string{"a", "b", "c"},
		},
		{
			name:        "equal priority and timestamp in arrival order",
			pods:        []added{{"a", 5}, {"b", 5}, {"c", 5}, {"d", 5}, {"e", 5}, {"f", 5}},
			sameInstant: true,
			want:        []string{"a", "b", "c", "d", "e", "f"},
		},
		{
			name:        "same instant, priority first",
			pods:        []added{{"a", 1}, {"b", 5}, {"c", 1}, {"d", 5}},
			sameInstant: true,
			want:        []string{"b", "d", "a", "c"},
		},
		{
			name: "negative priorities after zero",
			pods: []added{{"neg", -10}, {"zero", 0}, {"neg2", -10}},
			want: []string{"zero", "neg", "neg2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			for _, p := range tc.pods {
				q.add(t, pod(p.name).Priority(p.priority).Obj())
				if !tc.sameInstant {
					q.clock.Step(time.Second)
				}
			}
			var got []string
			for range tc.pods {
				got = append(got, q.pop(t).Pod.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pop order (-want +got):\n%s", diff)
			}
			if c := q.SchedulingCycle(); c != int64(len(tc.pods)) {
				t.Errorf("SchedulingCycle = %d, want %d", c, len(tc.pods))
			}
		})
	}
}

func TestAddErrors(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(q *testQueue)
		pod     *model.Pod
		wantErr error
	}{
		{name: "new pod", pod: pod("p").Obj()},
		{name: "already queued", setup: func(q *testQueue) { q.add(t, pod("p").Obj()) }, pod: pod("p").Obj(), wantErr: ErrAlreadyQueued},
		{name: "in flight", setup: func(q *testQueue) { q.add(t, pod("p").Obj()); q.pop(t) }, pod: pod("p").Obj(), wantErr: ErrAlreadyQueued},
		{name: "bound", pod: pod("p").Node("n1").Obj(), wantErr: ErrBound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			if tc.setup != nil {
				tc.setup(q)
			}
			if err := q.Add(context.Background(), tc.pod); !errors.Is(err, tc.wantErr) {
				t.Errorf("Add error = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestBackoffDuration(t *testing.T) {
	tests := []struct {
		name             string
		initial, max     time.Duration
		failures         int
		wantBackoffUntil time.Duration // from the failure
	}{
		{name: "first failure", failures: 1, wantBackoffUntil: 1 * time.Second},
		{name: "second doubles", failures: 2, wantBackoffUntil: 2 * time.Second},
		{name: "third", failures: 3, wantBackoffUntil: 4 * time.Second},
		{name: "fourth", failures: 4, wantBackoffUntil: 8 * time.Second},
		{name: "capped at max", failures: 5, wantBackoffUntil: 10 * time.Second},
		{name: "stays capped", failures: 70, wantBackoffUntil: 10 * time.Second},
		{name: "custom initial", initial: 3 * time.Second, max: 20 * time.Second, failures: 2, wantBackoffUntil: 6 * time.Second},
		{name: "custom cap", initial: 3 * time.Second, max: 5 * time.Second, failures: 2, wantBackoffUntil: 5 * time.Second},
		{name: "custom under cap", initial: 3 * time.Second, max: 7 * time.Second, failures: 2, wantBackoffUntil: 6 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, func(o *Options) { o.PodInitialBackoff, o.PodMaxBackoff = tc.initial, tc.max })
			info := pod("p").Obj()
			pi := newQueuedInfo(info)
			pi.Timestamp = t0
			pi.UnschedulableCount = tc.failures
			if got, want := q.backoffExpiry(pi), t0.Add(tc.wantBackoffUntil); !got.Equal(want) {
				t.Errorf("backoff expiry = %v, want %v", got.Sub(t0), want.Sub(t0))
			}
			// Errors count on their own and win while they last.
			pi.ConsecutiveErrorsCount = 1
			if got, want := q.backoffExpiry(pi), t0.Add(q.backoffDuration(1)); !got.Equal(want) {
				t.Errorf("error backoff expiry = %v, want %v", got.Sub(t0), want.Sub(t0))
			}
		})
	}
}

// Pod group members back off as pods do, up to GroupMaxBackoff instead of
// PodMaxBackoff.
func TestGroupBackoff(t *testing.T) {
	tests := []struct {
		name     string
		groupMax time.Duration
		failures int
		want     time.Duration
	}{
		{name: "past the pod cap", failures: 5, want: 16 * time.Second},
		{name: "default cap", failures: 20, want: DefaultGroupMaxBackoff},
		{name: "custom cap", groupMax: 30 * time.Second, failures: 20, want: 30 * time.Second},
		{name: "never below the pod cap", groupMax: time.Second, failures: 20, want: 10 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, func(o *Options) { o.GroupMaxBackoff = tc.groupMax })
			member := pod("p").Obj()
			member.SchedulingGroup = "g"
			pi := newQueuedInfo(member)
			pi.Timestamp, pi.UnschedulableCount = t0, tc.failures
			if got := q.backoffExpiry(pi).Sub(t0); got != tc.want {
				t.Errorf("member backoff = %v, want %v", got, tc.want)
			}
			alone := newQueuedInfo(pod("q").Obj())
			alone.Timestamp, alone.UnschedulableCount = t0, tc.failures
			if got := q.backoffExpiry(alone).Sub(t0); got > DefaultPodMaxBackoff {
				t.Errorf("a pod of no group backs off %v, over the pod cap", got)
			}
		})
	}
}

// TestBackoffGrowsWithFailures drives one pod through repeated failures
// and checks when each backoff ends.
func TestBackoffGrowsWithFailures(t *testing.T) {
	q := newTestQueue(t, nil)
	q.add(t, pod("p").Obj())
	var got []time.Duration
	for range 6 {
		pi := q.pop(t)
		failedAt := q.clock.Now()
		q.fail(t, pi, []string{fit}, nil)
		q.MoveAllToActiveOrBackoffQueue(context.Background(), nodeAdd, nil, &model.Node{Name: "n"}, nil)
		p, _ := q.Lookup("uid-p")
		got = append(got, p.BackoffUntil.Sub(failedAt))
		q.clock.Step(time.Minute)
		q.FlushBackoffQCompleted(context.Background())
	}
	want := []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff per failure (-want +got):\n%s", diff)
	}
}

func TestBackoffWindowAlignment(t *testing.T) {
	tests := []struct {
		name        string
		disablePop  bool
		failAfter   time.Duration // since t0
		checkAt     time.Duration
		wantBacking bool
	}{
		// Expiry 1.3s is aligned down to 1s; the pod is done once the
		// clock's window passes 1s, i.e. at 2s.
		{name: "aligned: same window", failAfter: 300 * time.Millisecond, checkAt: 1900 * time.Millisecond, wantBacking: true},
		{name: "aligned: next window", failAfter: 300 * time.Millisecond, checkAt: 2 * time.Second, wantBacking: false},
		{name: "unaligned: before expiry", disablePop: true, failAfter: 300 * time.Millisecond, checkAt: 1299 * time.Millisecond, wantBacking: true},
		{name: "unaligned: after expiry", disablePop: true, failAfter: 300 * time.Millisecond, checkAt: 1301 * time.Millisecond, wantBacking: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, func(o *Options) { o.DisablePopFromBackoffQ = tc.disablePop })
			pi := newQueuedInfo(pod("p").Obj())
			pi.Timestamp = t0.Add(tc.failAfter)
			pi.UnschedulableCount = 1
			q.clock.Step(tc.checkAt)
			if got := q.isBackingOff(pi); got != tc.wantBacking {
				t.Errorf("isBackingOff = %v, want %v", got, tc.wantBacking)
			}
		})
	}
}

func TestPopBlocksUntilAdd(t *testing.T) {
	q := newTestQueue(t, nil)
	res := q.popAsync(context.Background())
	q.waitPopBlocked(t, res)
	q.add(t, pod("late").Obj())
	if got := result(t, res).name(); got != "late" {
		t.Errorf("Pop returned %s, want late", got)
	}
}

func TestPopEnds(t *testing.T) {
	tests := []struct {
		name    string
		end     func(q *testQueue, cancel context.CancelFunc)
		wantErr error
	}{
		{name: "Close", end: func(q *testQueue, _ context.CancelFunc) { q.Close() }, wantErr: ErrClosed},
		{name: "context canceled", end: func(_ *testQueue, cancel context.CancelFunc) { cancel() }, wantErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res := q.popAsync(ctx)
			q.waitPopBlocked(t, res)
			tc.end(q, cancel)
			if err := result(t, res).err; !errors.Is(err, tc.wantErr) {
				t.Errorf("Pop error = %v, want %v", err, tc.wantErr)
			}
			// Later Pops end the same way, without blocking.
			if _, err := q.Pop(ctx); !errors.Is(err, tc.wantErr) {
				t.Errorf("second Pop error = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// TestPopWaitsOutErrorBackoff checks that a pod backing off after an
// internal error is never popped early, unlike a rejected one: Pop blocks
// until the backoff flush moves it to activeQ.
func TestPopWaitsOutErrorBackoff(t *testing.T) {
	ctx := context.Background()
	q := newTestQueue(t, nil)
	q.add(t, pod("p").Obj())
	q.fail(t, q.pop(t), nil, nil)
	if got := q.where("uid-p"); got != Backoff {
		t.Fatalf("after an internal error the pod is in %q, want Backoff", got)
	}
	res := q.popAsync(ctx)
	q.waitPopBlocked(t, res)
	q.clock.Step(2 * time.Second)
	q.FlushBackoffQCompleted(ctx)
	if got := result(t, res).name(); got != "p" {
		t.Errorf("Pop returned %s, want p", got)
	}
}

// TestPopWakesWhenPodEntersBackoffQ checks that a Pop blocked on an empty
// queue takes a pod that fails into backoffQ: backoffQ's head is poppable.
func TestPopWakesWhenPodEntersBackoffQ(t *testing.T) {
	ctx := context.Background()
	q := newTestQueue(t, nil)
	q.add(t, pod("p").Obj())
	pi := q.pop(t)
	res := q.popAsync(ctx)
	q.waitPopBlocked(t, res)
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
	q.fail(t, pi, []string{fit}, nil)
	if got := result(t, res).name(); got != "p" {
		t.Errorf("Pop returned %s, want p", got)
	}
}

// TestCloseForgetsPodsInFlight checks that Close drops the pods in flight:
// their attempts will never be reported.
func TestCloseForgetsPodsInFlight(t *testing.T) {
	q := newTestQueue(t, nil)
	q.add(t, pod("flying").Obj(), pod("waiting").Priority(-1).Obj())
	q.pop(t)
	q.Close()
	if got := q.where("uid-flying"); got != "" {
		t.Errorf("after Close the popped pod is in %q, want forgotten", got)
	}
	if got := q.where("uid-waiting"); got != Active {
		t.Errorf("after Close the queued pod is in %q, want Active", got)
	}
	if s := q.Stats(); s.InFlight != 0 || s.InFlightEvents != 0 {
		t.Errorf("after Close: %+v", s)
	}
}

func TestPopFromBackoffQ(t *testing.T) {
	tests := []struct {
		name       string
		disablePop bool
		want       string // "" when Pop would block
	}{
		{name: "activeQ empty: head of backoffQ", want: "high"},
		{name: "disabled: blocks", disablePop: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, func(o *Options) { o.DisablePopFromBackoffQ = tc.disablePop })
			q.add(t, pod("low").Priority(1).Obj(), pod("high").Priority(10).Obj())
			// Both fail in the same second after a node was added during
			// their attempts: both back off until the same window.
			a, b := q.pop(t), q.pop(t)
			q.MoveAllToActiveOrBackoffQueue(context.Background(), nodeAdd, nil, &model.Node{Name: "n"}, nil)
			q.fail(t, b, []string{fit}, nil)
			q.fail(t, a, []string{fit}, nil)
			if got := q.Stats().Backoff; got != 2 {
				t.Fatalf("backoffQ has %d pods, want 2", got)
			}
			// nextLocked is what Pop takes without blocking.
			q.mu.Lock()
			e := q.nextLocked()
			q.mu.Unlock()
			got := ""
			if e != nil {
				got = e.info.Pod.Name
			}
			if got != tc.want {
				t.Errorf("next pod = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestActiveQBeforeBackoffQ(t *testing.T) {
	q := newTestQueue(t, nil)
	q.add(t, pod("backing").Priority(100).Obj())
	pi := q.pop(t)
	q.MoveAllToActiveOrBackoffQueue(context.Background(), nodeAdd, nil, &model.Node{Name: "n"}, nil)
	q.fail(t, pi, []string{fit}, nil)
	q.add(t, pod("fresh").Priority(1).Obj())
	if got := q.pop(t).Pod.Name; got != "fresh" {
		t.Errorf("popped %s, want fresh (activeQ first)", got)
	}
}

// TestRunAlignsBackoffFlush drives Run's loops with the fake clock: the
// backoff flush runs at every whole second, the first at the next one
// after Run starts, and moves a pod the moment its backoff window has
// passed; the unschedulable flush runs every 30 seconds.
func TestRunAlignsBackoffFlush(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := newTestQueue(t, nil)
	q.clock.Step(300 * time.Millisecond)
	q.add(t, pod("p").Obj())
	pi := q.pop(t)
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
	q.fail(t, pi, []string{fit}, nil) // backs off until the window of t0+1s
	if got := q.where("uid-p"); got != Backoff {
		t.Fatalf("pod is in %q, want Backoff", got)
	}

	q.Run(ctx)
	armed := []time.Time{q.clock.awaitTimer(t), q.clock.awaitTimer(t)}
	slices.SortFunc(armed, time.Time.Compare)
	want := []time.Time{t0.Add(time.Second), t0.Add(30*time.Second + 300*time.Millisecond)}
	if diff := cmp.Diff(want, armed); diff != "" {
		t.Fatalf("first flushes at (-want +got):\n%s", diff)
	}
	for _, step := range []struct {
		to   time.Duration // since t0
		want SubQueue
	}{
		{to: time.Second, want: Backoff},    // still the pod's window
		{to: 2 * time.Second, want: Active}, // the window has passed
	} {
		q.clock.Step(t0.Add(step.to).Sub(q.clock.Now()))
		// The loop flushes, then arms the next whole second.
		if got, want := q.clock.awaitTimer(t), t0.Add(step.to+time.Second); !got.Equal(want) {
			t.Fatalf("after the flush at +%v the next one is at +%v, want +%v", step.to, got.Sub(t0), want.Sub(t0))
		}
		if got := q.where("uid-p"); got != step.want {
			t.Errorf("after the flush at +%v the pod is in %q, want %q", step.to, got, step.want)
		}
	}
	// A flush that wakes late still re-aligns to the next whole second.
	q.clock.Step(t0.Add(3*time.Second + 400*time.Millisecond).Sub(q.clock.Now()))
	if got, want := q.clock.awaitTimer(t), t0.Add(4*time.Second); !got.Equal(want) {
		t.Errorf("after a late flush the next one is at +%v, want +%v", got.Sub(t0), want.Sub(t0))
	}
}

// TestRequeuedTiesPopInFailureOrder checks that pods failing at the same
// clock reading with equal priority come back first-failed, first-popped,
// whether they pop from backoffQ or are moved to activeQ by an event.
func TestRequeuedTiesPopInFailureOrder(t *testing.T) {
	ctx := context.Background()
	for _, viaEvent := range []bool{false, true} {
		name := "from backoffQ"
		if viaEvent {
			name = "moved by an event"
		}
		t.Run(name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			names := []string{"a", "b", "c", "d", "e", "f"}
			for _, n := range names {
				q.add(t, pod(n).Obj())
			}
			popped := map[string]*framework.QueuedPodInfo{}
			for range names {
				pi := q.pop(t)
				popped[pi.Pod.Name] = pi
			}
			if !viaEvent {
				// Seen in flight: each failure goes to backoffQ.
				q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
			}
			failOrder := []string{"d", "b", "f", "a", "e", "c"}
			for _, n := range failOrder {
				q.fail(t, popped[n], []string{fit}, nil)
			}
			if viaEvent {
				q.clock.Step(time.Minute)
				q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
			}
			var got []string
			for range names {
				got = append(got, q.pop(t).Pod.Name)
			}
			if diff := cmp.Diff(failOrder, got); diff != "" {
				t.Errorf("pop order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInitialAttemptTimestamp checks that it is set when the pod first
// enters activeQ, not when it is popped, and never changes afterwards.
func TestInitialAttemptTimestamp(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(q *testQueue) *framework.QueuedPodInfo // returns the last popped info
		want time.Duration                               // since t0
	}{
		{
			name: "added, popped later",
			run: func(q *testQueue) *framework.QueuedPodInfo {
				q.add(t, pod("p").Obj())
				q.clock.Step(5 * time.Second)
				return q.pop(t)
			},
		},
		{
			name: "added gated, gates lifted later",
			run: func(q *testQueue) *framework.QueuedPodInfo {
				q.add(t, pod("p").Gate("g").Obj())
				q.clock.Step(time.Minute)
				mustUpdate(t, q, nil, pod("p").Obj())
				q.clock.Step(5 * time.Second)
				return q.pop(t)
			},
			want: time.Minute,
		},
		{
			name: "retried after a failure",
			run: func(q *testQueue) *framework.QueuedPodInfo {
				q.add(t, pod("p").Obj())
				q.clock.Step(5 * time.Second)
				q.fail(t, q.pop(t), nil, nil)
				q.clock.Step(time.Minute)
				q.FlushBackoffQCompleted(ctx)
				return q.pop(t)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			pi := tc.run(q)
			if got := pi.InitialAttemptTimestamp.Sub(t0); got != tc.want {
				t.Errorf("InitialAttemptTimestamp = t0+%v, want t0+%v", got, tc.want)
			}
		})
	}
}
