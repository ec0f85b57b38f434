package queue

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/berthsched/berth/core/framework"
)

// PendingPod is a snapshot of one pending pod for listings and Explain.
type PendingPod struct {
	// Info is a copy: changing it does not change the queue.
	Info     *framework.QueuedPodInfo
	SubQueue SubQueue
	// BackoffUntil is when the pod's current backoff ends; zero when it is
	// not backing off.
	BackoffUntil time.Time
}

// Stats counts the pods per sub-queue.
type Stats struct {
	Active, Backoff, Unschedulable, Gated, InFlight int
	// InFlightEvents is the length of the in-flight event log.
	InFlightEvents  int
	SchedulingCycle int64
}

// Stats returns the current counts.
func (q *PriorityQueue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := Stats{
		Active:          q.active.Len(),
		Backoff:         q.backoff.Len() + q.errBackoff.Len(),
		InFlight:        q.inFlightPods,
		InFlightEvents:  q.flights.Len() - q.inFlightPods,
		SchedulingCycle: q.schedulingCycle,
	}
	if q.opts.DisableQueueingHints {
		s.InFlightEvents = 0
	}
	for _, e := range q.unsched {
		if e.info.Gated() {
			s.Gated++
		} else {
			s.Unschedulable++
		}
	}
	return s
}

// Lookup returns the pod's snapshot, with pods in flight included.
func (q *PriorityQueue) Lookup(uid string) (PendingPod, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.all[uid]
	if !ok {
		return PendingPod{}, false
	}
	return q.snapshotLocked(e), true
}

// PendingPods lists every pod the queue holds, in flight included: activeQ
// in pop order, then backoffQ by expiry, then the unschedulable, gated and
// in-flight pods by namespace/name.
func (q *PriorityQueue) PendingPods() []PendingPod {
	q.mu.Lock()
	defer q.mu.Unlock()
	type item struct {
		e *entry
		p PendingPod
	}
	items := make([]item, 0, len(q.all))
	for _, e := range q.all {
		items = append(items, item{e, q.snapshotLocked(e)})
	}
	rank := map[SubQueue]int{Active: 0, Backoff: 1, Unschedulable: 2, Gated: 3, InFlight: 4}
	slices.SortFunc(items, func(a, b item) int {
		if c := cmp.Compare(rank[a.p.SubQueue], rank[b.p.SubQueue]); c != 0 {
			return c
		}
		switch a.p.SubQueue {
		case Active:
			if q.activeLess(a.e, b.e) {
				return -1
			}
			if q.activeLess(b.e, a.e) {
				return 1
			}
		case Backoff:
			if c := cmp.Or(cmp.Compare(a.e.backoffUntil, b.e.backoffUntil), cmp.Compare(a.e.seq, b.e.seq)); c != 0 {
				return c
			}
		}
		// The snapshot's pod: the scheduler owns e.info while in flight.
		return cmp.Compare(a.p.Info.Pod.Key(), b.p.Info.Pod.Key())
	})
	out := make([]PendingPod, len(items))
	for i, it := range items {
		out[i] = it.p
	}
	return out
}

func (q *PriorityQueue) snapshotLocked(e *entry) PendingPod {
	var info framework.QueuedPodInfo
	if e.flight != nil {
		// The scheduler owns e.info while the pod is in flight.
		info = e.flight.snapshot
	} else {
		info = *e.info
	}
	info.UnschedulablePlugins = maps.Clone(info.UnschedulablePlugins)
	info.PendingPlugins = maps.Clone(info.PendingPlugins)
	p := PendingPod{Info: &info, SubQueue: e.subQueue()}
	if e.state != stateInFlight && q.isBackingOff(&info) {
		p.BackoffUntil = q.backoffExpiry(&info)
	}
	return p
}
