package queue

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// TestRandomOperations runs random sequences of queue operations and checks
// the queue's invariants after each one: a pod is in exactly one sub-queue
// (or in flight), the containers and indexes agree, the counts match, and
// deleted pods are neither queued nor nominated.
func TestRandomOperations(t *testing.T) {
	modes := []struct {
		name string
		opts func(*Options)
	}{
		{name: "default"},
		{name: "no hints", opts: func(o *Options) { o.DisableQueueingHints = true }},
		{name: "no pop from backoffQ", opts: func(o *Options) { o.DisablePopFromBackoffQ = true }},
	}
	for _, mode := range modes {
		for seed := uint64(1); seed <= 20; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", mode.name, seed), func(t *testing.T) {
				runRandom(t, seed, mode.opts)
			})
		}
	}
}

func runRandom(t *testing.T, seed uint64, opts func(*Options)) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 7))
	q := newTestQueue(t, opts)
	alive := map[string]*model.Pod{} // pods added and not deleted or bound
	var inFlight []*framework.QueuedPodInfo
	next := 0
	randomPod := func() *model.Pod {
		if len(alive) == 0 {
			return nil
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range alive {
				if !yield(k) {
					return
				}
			}
		})
		return alive[keys[r.IntN(len(keys))]]
	}
	plugins := []string{fit, taints, picky, waiter, labels, failing, topology}
	randomSet := func() []string {
		var out []string
		for _, p := range plugins {
			if r.IntN(4) == 0 {
				out = append(out, p)
			}
		}
		return out
	}
	events := []framework.ClusterEvent{nodeAdd, nodeTaint, nodeLabel, EventAssignedPodDelete(), EventUnschedulableTimeout()}
	nodes := []*model.Node{bigNode, smallNode}

	for step := 0; step < 400; step++ {
		var op string
		switch k := r.IntN(12); {
		case k <= 2:
			op = "add"
			b := pod(fmt.Sprintf("p%d", next)).Priority(int32(r.IntN(3)))
			next++
			if r.IntN(4) == 0 {
				b.Gate("g")
			}
			if r.IntN(5) == 0 {
				b.Nominated("n1")
			}
			p := b.Obj()
			q.add(t, p)
			alive[p.UID] = p
		case k == 3:
			op = "update"
			if old := randomPod(); old != nil {
				nw := *old
				switch r.IntN(3) {
				case 0:
					nw.Labels = map[string]string{"v": fmt.Sprint(step)}
				case 1:
					nw.SchedulingGates = nil
				default:
					nw.Tolerations = append(slices.Clone(nw.Tolerations), model.Toleration{Key: "k"})
				}
				mustUpdate(t, q, old, &nw)
				alive[nw.UID] = &nw
			}
		case k == 4:
			op = "delete"
			if p := randomPod(); p != nil {
				q.Delete(p)
				delete(alive, p.UID)
			}
		case k <= 6:
			op = "pop"
			q.mu.Lock()
			ready := q.active.Len() > 0 || (q.backoff.Len() > 0 && !q.opts.DisablePopFromBackoffQ)
			q.mu.Unlock()
			if ready {
				inFlight = append(inFlight, q.pop(t))
			}
		case k == 7:
			op = "finish"
			if len(inFlight) > 0 {
				i := r.IntN(len(inFlight))
				pi := inFlight[i]
				inFlight = slices.Delete(inFlight, i, i+1)
				switch r.IntN(4) {
				case 0: // bound: the scheduler drops the nomination when it assumes the pod
					q.Nominator().DeleteNominatedPodIfExists(pi.Pod)
					q.Done(pi.Pod.UID)
					delete(alive, pi.Pod.UID)
				case 1: // internal error
					q.fail(t, pi, nil, nil)
				default:
					q.fail(t, pi, randomSet(), randomSet())
				}
			}
		case k == 8:
			op = "event"
			q.MoveAllToActiveOrBackoffQueue(ctx, events[r.IntN(len(events))], nil, nodes[r.IntN(2)], nil)
		case k == 9:
			op = "activate"
			if p := randomPod(); p != nil {
				q.Activate(map[string]*model.Pod{p.Key(): p})
			}
		case k == 10:
			op = "assigned pod"
			q.AssignedPodAdded(ctx, pod("bound").Label("app", "db").Node("n1").Obj())
		default:
			op = "time"
			q.clock.Step(time.Duration(r.IntN(400)) * time.Second)
			q.FlushBackoffQCompleted(ctx)
			q.FlushUnschedulablePodsLeftover(ctx)
		}
		if err := checkInvariants(q.PriorityQueue, alive, len(inFlight)); err != nil {
			t.Fatalf("step %d (%s): %v", step, op, err)
		}
	}
}

func checkInvariants(q *PriorityQueue, alive map[string]*model.Pod, wantInFlight int) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	containers := []struct {
		name  string
		items []*entry
		state state
	}{
		{"activeQ", q.active.Items(), stateActive},
		{"backoffQ", q.backoff.Items(), stateBackoff},
		{"error backoffQ", q.errBackoff.Items(), stateErrorBackoff},
		{"unschedulable", q.unsched, stateUnschedulable},
	}
	seen := map[*entry]string{}
	total := 0
	for _, c := range containers {
		for i, e := range c.items {
			if prev, dup := seen[e]; dup {
				return fmt.Errorf("%s is in %s and %s", e.key(), prev, c.name)
			}
			seen[e] = c.name
			if e.state != c.state || e.index != i {
				return fmt.Errorf("%s in %s at %d records state %d index %d", e.key(), c.name, i, e.state, e.index)
			}
			if q.all[e.info.Pod.UID] != e {
				return fmt.Errorf("%s in %s is not indexed", e.key(), c.name)
			}
			if e.flight != nil {
				return fmt.Errorf("%s in %s still has a flight", e.key(), c.name)
			}
			if e.info.Gated() && c.state != stateUnschedulable {
				return fmt.Errorf("gated %s in %s", e.key(), c.name)
			}
		}
		total += len(c.items)
	}
	for i := 1; i < q.active.Len(); i++ {
		items := q.active.Items()
		if q.less(items[i].info, items[(i-1)/2].info) {
			return fmt.Errorf("activeQ heap order broken at %d", i)
		}
	}
	inFlight := 0
	for uid, e := range q.all {
		switch {
		case e.state == stateInFlight:
			inFlight++
			if e.flight == nil || e.index != -1 {
				return fmt.Errorf("in-flight %s without flight or with index %d", uid, e.index)
			}
		case seen[e] == "":
			return fmt.Errorf("%s (state %d) is in no container", uid, e.state)
		}
		if _, ok := alive[uid]; !ok && e.state != stateInFlight {
			return fmt.Errorf("%s is queued but was deleted or bound", uid)
		}
	}
	if inFlight != wantInFlight || inFlight != q.inFlightPods {
		return fmt.Errorf("in flight: %d entries, %d counted, want %d", inFlight, q.inFlightPods, wantInFlight)
	}
	if total+inFlight != len(q.all) {
		return fmt.Errorf("%d in containers + %d in flight != %d known", total, inFlight, len(q.all))
	}
	for uid := range alive {
		if _, ok := q.all[uid]; !ok {
			return fmt.Errorf("alive pod %s is unknown to the queue", uid)
		}
	}
	marks := 0
	for el := q.flights.Front(); el != nil; el = el.Next() {
		if _, ok := el.Value.(*entry); ok {
			marks++
		}
	}
	if !q.opts.DisableQueueingHints && marks != inFlight {
		return fmt.Errorf("%d marks in the in-flight log, %d pods in flight", marks, inFlight)
	}
	if inFlight == 0 && q.flights.Len() != 0 {
		return fmt.Errorf("in-flight log keeps %d events with no pod in flight", q.flights.Len())
	}
	for _, nom := range q.nominator.All() {
		if _, ok := alive[nom.PodUID]; !ok {
			return fmt.Errorf("%s is nominated but was deleted or bound", nom.PodKey)
		}
	}
	return nil
}
