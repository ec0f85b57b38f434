package queue

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue/heap"
)

// Errors returned by the queue; match them with errors.Is.
var (
	// ErrClosed: the queue was closed.
	ErrClosed = errors.New("scheduling queue closed")
	// ErrAlreadyQueued: the pod is already waiting in the queue (or is in
	// flight, for Add).
	ErrAlreadyQueued = errors.New("pod already in the scheduling queue")
	// ErrBound: a bound pod was added; only pending pods are queued.
	ErrBound = errors.New("pod is already bound to a node")
)

// PriorityQueue is kube-scheduler's scheduling queue: activeQ, backoffQ, the
// unschedulable (and gated) pods, the pods in flight with the events seen
// during their attempts, and the nominator.
//
// Lock order: mu, then the nominator's lock. PreEnqueue plugins, queueing
// hint functions and Options.PodLookup run under mu and must not call the
// queue.
type PriorityQueue struct {
	mu   sync.Mutex
	cond sync.Cond

	opts      Options              // with defaults applied
	timers    framework.TimerClock // Options.Clock, with real timers if it has none
	less      framework.LessFunc
	hints     hintIndex
	nominator *Nominator

	// all indexes every pod the queue knows by UID: queued or in flight.
	all        map[string]*entry
	active     *entryHeap // by the QueueSort less
	backoff    *entryHeap // rejected pods, by backoff expiry
	errBackoff *entryHeap // pods that hit an internal error, by expiry
	unsched    []*entry   // unschedulable and gated pods

	// flights is the in-flight log: one mark (*entry) per pod in flight and
	// the events (*clusterEvent) received since the oldest one was popped.
	flights      *list.List
	inFlightPods int

	// seq is the last sequence number given with a queue timestamp.
	seq uint64

	schedulingCycle  int64
	moveRequestCycle int64 // only used with DisableQueueingHints
	// blockedPops counts the Pops waiting for a pod.
	blockedPops int

	closed bool
	done   chan struct{}
}

type entryHeap = heap.Heap[*entry]

// clusterEvent is an event recorded in the in-flight log.
type clusterEvent struct {
	event          framework.ClusterEvent
	oldObj, newObj any
}

// New returns an empty queue ordering activeQ with less.
func New(less framework.LessFunc, opts Options) *PriorityQueue {
	o := opts.withDefaults()
	q := &PriorityQueue{
		opts:             o,
		timers:           timersOf(o.Clock),
		less:             less,
		nominator:        NewNominator(o.PodLookup),
		all:              make(map[string]*entry),
		flights:          list.New(),
		moveRequestCycle: -1,
		done:             make(chan struct{}),
	}
	q.cond.L = &q.mu
	q.hints = newHintIndex(o.QueueingHints)
	setIndex := func(e *entry, i int) { e.index = i }
	q.active = heap.New(q.activeLess, setIndex)
	q.errBackoff = heap.New(backoffLess, setIndex)
	if o.DisablePopFromBackoffQ {
		q.backoff = heap.New(backoffLess, setIndex)
	} else {
		// Pods may be popped from backoffQ: ties in expiry go by the
		// activeQ order.
		q.backoff = heap.New(func(a, b *entry) bool {
			if a.backoffUntil != b.backoffUntil {
				return a.backoffUntil < b.backoffUntil
			}
			return q.activeLess(a, b)
		}, setIndex)
	}
	return q
}

// activeLess is activeQ's order: the QueueSort's, then, among the pods it
// ties, the one whose queue timestamp was set first. The last rule is
// Berth's, for determinism: kube leaves the order of tied pods to its heap,
// and with a coarse clock (many pods added in one tick, or a simulated
// clock standing still) equal priorities and timestamps are common. It
// makes such pods pop first-in, first-out.
func (q *PriorityQueue) activeLess(a, b *entry) bool {
	if q.less(a.info, b.info) {
		return true
	}
	if q.less(b.info, a.info) {
		return false
	}
	return a.seq < b.seq
}

// stampLocked sets the pod's queue timestamp to now and takes the next
// sequence number, which orders pods with equal timestamps.
func (q *PriorityQueue) stampLocked(e *entry) {
	e.info.Timestamp = q.opts.Clock.Now()
	q.seq++
	e.seq = q.seq
}

// Nominator returns the queue's nominator.
func (q *PriorityQueue) Nominator() *Nominator { return q.nominator }

// Run starts the periodic flushes: backoffQ at every whole second of the
// clock, the unschedulable pods every 30 seconds. They stop when ctx ends
// or the queue is closed.
//
// As in kube, the backoff flush is aligned to the backoff window: backoff
// expiries are rounded to whole seconds, so flushing at the start of each
// second moves a pod as soon as its window has passed, in priority order,
// instead of up to a second later. Each wait is measured again from the
// clock, so the flushes do not drift.
func (q *PriorityQueue) Run(ctx context.Context) {
	go q.every(ctx, q.untilNextBackoffWindow, q.FlushBackoffQCompleted)
	go q.every(ctx, func() time.Duration { return unschedulableFlushInterval }, q.FlushUnschedulablePodsLeftover)
}

// every runs f after each wait until ctx ends or the queue is closed.
func (q *PriorityQueue) every(ctx context.Context, wait func() time.Duration, f func(context.Context)) {
	for q.sleep(ctx, wait()) {
		f(ctx)
	}
}

// untilNextBackoffWindow is the time left until the next whole backoff
// window (the next second) starts.
func (q *PriorityQueue) untilNextBackoffWindow() time.Duration {
	now := q.opts.Clock.Now()
	return now.Truncate(backoffWindow).Add(backoffWindow).Sub(now)
}

// sleep waits d on the clock's timers. It reports false, early, when ctx
// ends or the queue is closed.
func (q *PriorityQueue) sleep(ctx context.Context, d time.Duration) bool {
	fired := make(chan struct{})
	t := q.timers.AfterFunc(d, func() { close(fired) })
	select {
	case <-fired:
		return true
	case <-ctx.Done():
	case <-q.done:
	}
	t.Stop()
	return false
}

// Close closes the queue: blocked and later Pops return ErrClosed, the
// flush loops stop, and pods in flight are forgotten.
func (q *PriorityQueue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	close(q.done)
	for uid, e := range q.all {
		if e.state == stateInFlight {
			q.endFlightLocked(e)
			delete(q.all, uid)
		}
	}
	q.cond.Broadcast()
}

// SchedulingCycle returns the number of pods popped so far.
func (q *PriorityQueue) SchedulingCycle() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.schedulingCycle
}

// Add queues a new pending pod: to activeQ, or among the gated pods if a
// PreEnqueue plugin holds it.
func (q *PriorityQueue) Add(ctx context.Context, pod *model.Pod) error {
	if pod.NodeName != "" {
		return fmt.Errorf("queue add %s: %w", pod.Key(), ErrBound)
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return fmt.Errorf("queue add %s: %w", pod.Key(), err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok := q.all[pod.UID]; ok {
		return fmt.Errorf("queue add %s (%s): %w", pod.Key(), e.subQueue(), ErrAlreadyQueued)
	}
	q.enqueueNewLocked(ctx, pi, EventUnscheduledPodAdd().Label)
	return nil
}

// enqueueNewLocked queues a pod the queue did not know. It takes the
// nomination the pod carries (or one restored for it) whether it enters
// activeQ or is gated, as kube 1.37 does (1.36 only for activeQ): a gated
// pod's nomination keeps its room.
func (q *PriorityQueue) enqueueNewLocked(ctx context.Context, pi *framework.PodInfo, label string) {
	e := q.newEntryLocked(pi)
	q.nominator.AddNominatedPod(pi, nil)
	if q.moveToActiveLocked(ctx, e, label, false) {
		q.cond.Broadcast()
	}
}

func (q *PriorityQueue) newEntryLocked(pi *framework.PodInfo) *entry {
	e := &entry{info: &framework.QueuedPodInfo{PodInfo: pi}, state: stateNew, index: -1}
	q.stampLocked(e)
	q.all[pi.Pod.UID] = e
	return e
}

// Update replaces a pending pod with its new version, as kube does:
//   - in flight: the update is recorded as an event of the attempt, and the
//     new version is used if the attempt fails;
//   - in activeQ or backoffQ: updated in place;
//   - unschedulable or gated: updated, and moved to activeQ/backoffQ when the
//     hints of its rejecting plugins (or PreEnqueue, for gated pods) say
//     the update may make it schedulable;
//   - unknown: added to activeQ.
//
// A new version that is bound leaves the queue (as kube's informer filter
// turns it into a delete). oldPod may be nil: the queued version is used.
func (q *PriorityQueue) Update(ctx context.Context, oldPod, newPod *model.Pod) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if newPod.NodeName != "" {
		q.deleteLocked(newPod)
		return nil
	}
	e := q.all[newPod.UID]
	if oldPod == nil && e != nil {
		oldPod = e.currentPod()
	}
	var events []framework.ClusterEvent
	if oldPod != nil && !q.opts.DisableQueueingHints {
		events = PodUpdateEvents(oldPod, newPod)
	}
	if e != nil && e.state == stateInFlight {
		for _, ev := range events {
			q.recordEventLocked(ev, oldPod, newPod)
		}
		e.flight.latest = newPod
		return nil
	}
	pi, err := framework.NewPodInfo(newPod)
	if err != nil {
		return fmt.Errorf("queue update %s: %w", newPod.Key(), err)
	}
	if e == nil {
		q.enqueueNewLocked(ctx, pi, EventUnscheduledPodUpdate().Label)
		return nil
	}
	e.info.PodInfo = pi
	q.nominator.UpdateNominatedPod(oldPod, pi)
	switch e.state {
	case stateActive:
		q.active.Fix(e.index)
		return nil
	case stateBackoff:
		q.backoff.Fix(e.index)
		return nil
	case stateErrorBackoff:
		q.errBackoff.Fix(e.index)
		return nil
	}
	// Unschedulable or gated.
	if q.opts.DisableQueueingHints {
		if !podUpdated(oldPod, newPod) {
			return nil
		}
		if q.isBackingOff(e.info) {
			q.moveToBackoffLocked(ctx, e, EventUnscheduledPodUpdate().Label)
		} else {
			q.moveToActiveLocked(ctx, e, EventUnscheduledPodUpdate().Label, false)
		}
		q.broadcastIfPoppableLocked(e)
		return nil
	}
	q.toUnschedulableLocked(e) // the new version may have new hints
	for _, ev := range events {
		strategy := q.worthRequeuing(e.info, ev, oldPod, newPod, q.hints.forEvent(e.profile, ev))
		q.requeueLocked(ctx, e, strategy, ev.Label)
		if e.state != stateUnschedulable {
			q.broadcastIfPoppableLocked(e)
			break
		}
	}
	return nil
}

// currentPod is the newest version of the pod the queue has.
func (e *entry) currentPod() *model.Pod {
	if e.flight != nil && e.flight.latest != nil {
		return e.flight.latest
	}
	if e.flight != nil {
		return e.flight.snapshot.Pod
	}
	return e.info.Pod
}

// podUpdated reports whether the update touches more than status fields
// (used without queueing hints, as kube's isPodUpdated).
func podUpdated(oldPod, newPod *model.Pod) bool {
	strip := func(p *model.Pod) model.Pod {
		c := *p
		c.NominatedNodeName, c.StartTime, c.Ready = "", time.Time{}, false
		return c
	}
	a, b := strip(oldPod), strip(newPod)
	return !reflect.DeepEqual(a, b)
}

// Delete forgets a pod and its nomination. A pod in flight is dropped when
// its attempt ends.
func (q *PriorityQueue) Delete(pod *model.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.deleteLocked(pod)
}

func (q *PriorityQueue) deleteLocked(pod *model.Pod) {
	q.nominator.DeleteNominatedPodIfExists(pod)
	e, ok := q.all[pod.UID]
	if !ok {
		return
	}
	if e.state == stateInFlight {
		e.flight.gone = true
		return
	}
	q.detachLocked(e)
	delete(q.all, pod.UID)
}

// Activate moves the given pods from backoffQ or the unschedulable pods to
// activeQ. A pod in flight is retried as soon as its attempt fails; unknown
// pods are ignored.
func (q *PriorityQueue) Activate(pods map[string]*model.Pod) {
	ctx := context.Background()
	q.mu.Lock()
	defer q.mu.Unlock()
	activated := false
	for _, k := range slices.Sorted(maps.Keys(pods)) {
		pod := pods[k]
		e, ok := q.all[pod.UID]
		if ok {
			switch e.state {
			case stateUnschedulable:
				if q.moveToActiveLocked(ctx, e, EventForceActivate().Label, false) {
					activated = true
					continue
				}
			case stateBackoff, stateErrorBackoff:
				q.detachLocked(e)
				if q.moveToActiveLocked(ctx, e, EventForceActivate().Label, true) {
					activated = true
					continue
				}
			case stateInFlight:
				if !q.opts.DisableQueueingHints {
					q.recordEventLocked(EventForceActivate(), nil, pod)
				}
			}
		}
		q.moveRequestCycle = q.schedulingCycle
	}
	if activated {
		q.cond.Broadcast()
	}
}

// Pop removes the head of activeQ and returns it, blocking while there is
// none. When activeQ is empty it takes the pod whose backoff ends first
// (unless DisablePopFromBackoffQ). It returns ErrClosed once the queue is
// closed and ctx's error when ctx ends. Every popped pod is in flight until
// Done or AddUnschedulableIfNotPresent.
func (q *PriorityQueue) Pop(ctx context.Context) (*framework.QueuedPodInfo, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var stop func() bool
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	for {
		if q.closed {
			return nil, ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e := q.nextLocked(); e != nil {
			return q.startFlightLocked(e), nil
		}
		if stop == nil && ctx.Done() != nil {
			stop = context.AfterFunc(ctx, func() {
				q.mu.Lock()
				q.cond.Broadcast()
				q.mu.Unlock()
			})
		}
		q.blockedPops++
		q.cond.Wait()
		q.blockedPops--
	}
}

// nextLocked removes and returns the next pod to schedule, nil if none.
func (q *PriorityQueue) nextLocked() *entry {
	if e, ok := q.active.Pop(); ok {
		return e
	}
	if q.opts.DisablePopFromBackoffQ {
		return nil
	}
	if e, ok := q.backoff.Pop(); ok {
		q.logMove(e, "pod popped from backoffQ", labelPopFromBackoffQ)
		return e
	}
	return nil
}

func (q *PriorityQueue) startFlightLocked(e *entry) *framework.QueuedPodInfo {
	e.info.Attempts++
	q.schedulingCycle++
	e.state = stateInFlight
	e.index = -1
	f := &flight{snapshot: *e.info}
	f.snapshot.UnschedulablePlugins = maps.Clone(e.info.UnschedulablePlugins)
	f.snapshot.PendingPlugins = maps.Clone(e.info.PendingPlugins)
	if !q.opts.DisableQueueingHints {
		f.mark = q.flights.PushBack(e)
	}
	e.flight = f
	q.inFlightPods++
	return e.info
}

// Done ends the attempt of a popped pod that is not coming back to the
// queue (assumed and binding, or given up); the queue forgets it.
// AddUnschedulableIfNotPresent ends the attempt itself. Done leaves the
// nominator alone: as in kube, the scheduler forgets the pod's nomination
// when it assumes the pod.
func (q *PriorityQueue) Done(uid string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.all[uid]
	if !ok || e.state != stateInFlight {
		return
	}
	q.endFlightLocked(e)
	delete(q.all, uid)
}

// endFlightLocked drops the pod's mark from the in-flight log and the events
// no pod in flight can need any more.
func (q *PriorityQueue) endFlightLocked(e *entry) {
	if e.flight == nil {
		return
	}
	if e.flight.mark != nil {
		q.flights.Remove(e.flight.mark)
		for front := q.flights.Front(); front != nil; front = q.flights.Front() {
			if _, isEvent := front.Value.(*clusterEvent); !isEvent {
				break
			}
			q.flights.Remove(front)
		}
	}
	e.flight = nil
	q.inFlightPods--
}

// recordEventLocked appends an event to the in-flight log if a pod is in
// flight, so that pod's failure can be judged against it.
func (q *PriorityQueue) recordEventLocked(ev framework.ClusterEvent, oldObj, newObj any) {
	if q.inFlightPods == 0 || q.opts.DisableQueueingHints {
		return
	}
	q.flights.PushBack(&clusterEvent{event: ev, oldObj: oldObj, newObj: newObj})
}

func (q *PriorityQueue) broadcastIfPoppableLocked(e *entry) {
	if e.state == stateActive || (e.state == stateBackoff && !q.opts.DisablePopFromBackoffQ) {
		q.cond.Broadcast()
	}
}

// Take puts queued pods in flight as Pop would, for a cycle that schedules
// them together with a popped pod (a pod group's cycle). Pods in flight
// already, gated by a PreEnqueue plugin or unknown are left alone. Every
// pod taken is in flight until Done or AddUnschedulableIfNotPresent.
func (q *PriorityQueue) Take(uids []string) []*framework.QueuedPodInfo {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*framework.QueuedPodInfo
	for _, uid := range uids {
		e, ok := q.all[uid]
		if !ok || e.state == stateInFlight || e.state == stateNew || e.info.GatingPlugin != "" {
			continue
		}
		q.detachLocked(e)
		out = append(out, q.startFlightLocked(e))
	}
	return out
}
