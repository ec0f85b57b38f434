package queue

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// t0 is aligned to a second, so backoff windows are easy to reason about.
var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeClock is a settable clock with timers: Step fires the timers it
// passes, and every timer armed is announced on armed.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	armed  chan time.Time // deadlines of the timers armed, buffered
}

type fakeTimer struct {
	c    *fakeClock
	at   time.Time
	f    func()
	done bool // fired or stopped
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0, armed: make(chan time.Time, 64)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Step moves the clock forward and runs the timers that are due, in
// deadline order, outside the clock's lock.
func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	kept := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.done:
		case !t.at.After(c.now):
			t.done = true
			due = append(due, t)
		default:
			kept = append(kept, t)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	for _, t := range due {
		t.f()
	}
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) framework.Timer {
	c.mu.Lock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	select {
	case c.armed <- t.at:
	default:
		panic("fakeClock: too many timers armed and not awaited")
	}
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	pending := !t.done
	t.done = true
	return pending
}

// awaitTimer returns the deadline of the next timer armed.
func (c *fakeClock) awaitTimer(t testing.TB) time.Time {
	t.Helper()
	select {
	case at := <-c.armed:
		return at
	case <-time.After(10 * time.Second):
		t.Fatal("no timer armed")
		return time.Time{}
	}
}

// prioritySort is kube's PrioritySort: higher priority first, then the
// earlier queue timestamp.
func prioritySort(a, b *framework.QueuedPodInfo) bool {
	if a.Pod.Priority != b.Pod.Priority {
		return a.Pod.Priority > b.Pod.Priority
	}
	return a.Timestamp.Before(b.Timestamp)
}

// gatePlugin holds pods that have scheduling gates, like SchedulingGates.
type gatePlugin struct{ calls int }

func (*gatePlugin) Name() string { return "SchedulingGates" }

func (g *gatePlugin) PreEnqueue(_ context.Context, pod *model.Pod) *framework.Status {
	g.calls++
	if len(pod.SchedulingGates) > 0 {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for scheduling gates")
	}
	return nil
}

// Plugin names used by the test hints.
const (
	fit      = "NodeResourcesFit" // cares about node adds (any) and assigned pod deletes
	taints   = "TaintToleration"  // cares about node taint changes only
	picky    = "Picky"            // node adds, but its hint accepts only nodes named "big"
	waiter   = "Waiter"           // a Pending rejector: node adds
	labels   = "LabelWatcher"     // the pod's own label updates
	failing  = "Failing"          // node adds; its hint always errs
	topology = podTopologySpread
)

var (
	nodeAdd       = framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd, Label: "NodeAdd"}
	nodeTaint     = framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeTaint, Label: "NodeTaintChange"}
	nodeLabel     = framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeLabel, Label: "NodeLabelChange"}
	podLabelEvent = framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionUpdatePodLabel}
)

func testHints() map[string]QueueingHintMap {
	pickyHint := func(_ *model.Pod, _, newObj any) (framework.QueueingHint, error) {
		if n, ok := newObj.(*model.Node); ok && n.Name == "big" {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}
	failingHint := func(*model.Pod, any, any) (framework.QueueingHint, error) {
		return framework.QueueSkip, errors.New("boom")
	}
	return map[string]QueueingHintMap{
		model.DefaultSchedulerName: {
			nodeAdd: {
				{PluginName: fit},
				{PluginName: picky, Fn: pickyHint},
				{PluginName: waiter},
				{PluginName: failing, Fn: failingHint},
			},
			EventAssignedPodDelete(): {{PluginName: fit}},
			nodeTaint:                {{PluginName: taints}},
			podLabelEvent:            {{PluginName: labels}},
			{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionUpdatePodSchedulingGatesEliminated}: {{PluginName: "SchedulingGates"}},
		},
	}
}

type testQueue struct {
	*PriorityQueue
	clock *fakeClock
	gate  *gatePlugin
}

func newTestQueue(t testing.TB, mod func(*Options)) *testQueue {
	t.Helper()
	clock, gate := newFakeClock(), &gatePlugin{}
	opts := Options{
		Clock:             clock,
		QueueingHints:     testHints(),
		PreEnqueuePlugins: map[string][]framework.PreEnqueuePlugin{model.DefaultSchedulerName: {gate}},
	}
	if mod != nil {
		mod(&opts)
	}
	q := New(prioritySort, opts)
	t.Cleanup(q.Close)
	return &testQueue{PriorityQueue: q, clock: clock, gate: gate}
}

func (q *testQueue) add(t testing.TB, pods ...*model.Pod) {
	t.Helper()
	for _, p := range pods {
		if err := q.Add(context.Background(), p); err != nil {
			t.Fatalf("Add(%s): %v", p.Name, err)
		}
	}
}

func (q *testQueue) pop(t testing.TB) *framework.QueuedPodInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pi, err := q.Pop(ctx)
	if err != nil {
		t.Fatalf("Pop: %v", err)
	}
	return pi
}

// fail ends pi's attempt as the scheduler does after a rejection by the
// named plugins (none: an internal error), pending ones in pending.
func (q *testQueue) fail(t testing.TB, pi *framework.QueuedPodInfo, unschedulable, pending []string) {
	t.Helper()
	pi.UnschedulablePlugins, pi.PendingPlugins = set(unschedulable...), set(pending...)
	if err := q.AddUnschedulableIfNotPresent(context.Background(), pi, q.SchedulingCycle()); err != nil {
		t.Fatalf("AddUnschedulableIfNotPresent(%s): %v", pi.Pod.Name, err)
	}
}

// where returns the sub-queue of the pod, "" when the queue forgot it.
func (q *testQueue) where(uid string) SubQueue {
	p, ok := q.Lookup(uid)
	if !ok {
		return ""
	}
	return p.SubQueue
}

func set(names ...string) map[string]struct{} {
	if len(names) == 0 {
		return nil
	}
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}

func pod(name string) *mt.PodBuilder { return mt.MakePod(name) }

func newQueuedInfo(p *model.Pod) *framework.QueuedPodInfo {
	return &framework.QueuedPodInfo{PodInfo: framework.MustPodInfo(p)}
}

// popResult is what a Pop run by popAsync returned.
type popResult struct {
	info *framework.QueuedPodInfo
	err  error
}

func (r popResult) name() string {
	if r.err != nil {
		return "error " + r.err.Error()
	}
	return r.info.Pod.Name
}

// popAsync runs Pop(ctx) on its own goroutine; its result arrives on the
// channel.
func (q *testQueue) popAsync(ctx context.Context) <-chan popResult {
	ch := make(chan popResult, 1)
	go func() {
		pi, err := q.Pop(ctx)
		ch <- popResult{pi, err}
	}()
	return ch
}

// waitPopBlocked returns once the Pop behind res waits for a pod inside
// the queue; it fails the test if that Pop returns instead. It yields the
// processor rather than sleep.
func (q *testQueue) waitPopBlocked(t testing.TB, res <-chan popResult) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		q.mu.Lock()
		blocked := q.blockedPops
		q.mu.Unlock()
		if blocked > 0 {
			return
		}
		select {
		case r := <-res:
			t.Fatalf("Pop returned (%s) instead of blocking", r.name())
		case <-deadline:
			t.Fatal("Pop neither blocked nor returned")
		default:
			runtime.Gosched()
		}
	}
}

// result waits for the Pop behind res to return.
func result(t testing.TB, res <-chan popResult) popResult {
	t.Helper()
	select {
	case r := <-res:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("Pop still blocked")
		return popResult{}
	}
}
