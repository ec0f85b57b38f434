package queue

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPendingPodsAndStats(t *testing.T) {
	ctx := context.Background()
	q := newTestQueue(t, nil)
	q.add(t, pod("flying").Priority(100).Obj())
	q.pop(t)
	q.add(t, pod("unsched").Priority(90).Obj())
	q.fail(t, q.pop(t), []string{fit}, nil)
	q.add(t, pod("backing").Priority(80).Obj())
	pi := q.pop(t)
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeTaint, nil, bigNode, nil) // helps nobody
	q.fail(t, pi, nil, nil)                                            // internal error
	q.add(t, pod("gated").Gate("g").Obj())
	q.add(t, pod("a2").Priority(1).Obj())
	q.clock.Step(time.Second)
	q.add(t, pod("a1").Priority(5).Obj())

	type row struct {
		Name     string
		SubQueue SubQueue
		Backoff  time.Duration // from t0, 0 when none
		Attempts int
	}
	var got []row
	for _, p := range q.PendingPods() {
		r := row{Name: p.Info.Pod.Name, SubQueue: p.SubQueue, Attempts: p.Info.Attempts}
		if !p.BackoffUntil.IsZero() {
			r.Backoff = p.BackoffUntil.Sub(t0)
		}
		got = append(got, r)
	}
	want := []row{
		{Name: "a1", SubQueue: Active},
		{Name: "a2", SubQueue: Active},
		{Name: "backing", SubQueue: Backoff, Backoff: time.Second, Attempts: 1},
		{Name: "unsched", SubQueue: Unschedulable, Backoff: time.Second, Attempts: 1},
		{Name: "gated", SubQueue: Gated},
		{Name: "flying", SubQueue: InFlight, Attempts: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PendingPods (-want +got):\n%s", diff)
	}
	wantStats := Stats{Active: 2, Backoff: 1, Unschedulable: 1, Gated: 1, InFlight: 1, InFlightEvents: 1, SchedulingCycle: 3}
	if diff := cmp.Diff(wantStats, q.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}

	// Snapshots are copies.
	p, _ := q.Lookup("uid-unsched")
	p.Info.UnschedulablePlugins["Other"] = struct{}{}
	p.Info.Attempts = 42
	again, _ := q.Lookup("uid-unsched")
	if diff := cmp.Diff(map[string]struct{}{fit: {}}, again.Info.UnschedulablePlugins); diff != "" || again.Info.Attempts != 1 {
		t.Errorf("snapshot changed the queue: attempts %d, plugins (-want +got):\n%s", again.Info.Attempts, diff)
	}
	if _, ok := q.Lookup("uid-nobody"); ok {
		t.Error("Lookup found an unknown pod")
	}
}

// TestConcurrentUse runs the scheduler's calls against the queue's readers;
// run with -race. The scheduler writes the QueuedPodInfo it popped while
// Lookup and PendingPods read the queue.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	q := newTestQueue(t, nil)
	const n = 200
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // ingest
		defer wg.Done()
		for i := range n {
			q.add(t, pod("p"+itoa(i)).Obj())
		}
	}()
	go func() { // scheduler
		defer wg.Done()
		for range n {
			pi, err := q.Pop(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			pi.UnschedulablePlugins = set(fit)
			if err := q.AddUnschedulableIfNotPresent(ctx, pi, q.SchedulingCycle()); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	go func() { // admin and events
		defer wg.Done()
		for i := range n {
			q.PendingPods()
			q.Lookup("uid-p" + itoa(i))
			q.Stats()
			q.MoveAllToActiveOrBackoffQueue(ctx, nodeTaint, nil, bigNode, nil)
			q.Nominator().NominatedPodsForNode("n1")
		}
	}()
	wg.Wait()
	if s := q.Stats(); s.Unschedulable != n {
		t.Errorf("Stats = %+v, want %d unschedulable", s, n)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
