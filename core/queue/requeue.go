package queue

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// strategy is where an event (or a failed attempt) sends a rejected pod.
type strategy uint8

const (
	// queueSkip: the event cannot help; the pod stays unschedulable.
	queueSkip strategy = iota
	// queueAfterBackoff: to backoffQ if still backing off, else activeQ.
	queueAfterBackoff
	// queueImmediately: to activeQ (a Pending plugin's wait is over).
	queueImmediately
)

// podTopologySpread is the plugin whose rejections any pod event in the
// namespace may resolve (AssignedPodAdded/AssignedPodUpdated).
const podTopologySpread = "PodTopologySpread"

// AddUnschedulableIfNotPresent requeues a pod whose attempt failed and ends
// its flight. The scheduler sets pi.UnschedulablePlugins/PendingPlugins to
// the plugins that rejected it, or clears them on an internal error.
//
// With queueing hints (the default), the pod goes to activeQ/backoffQ if an
// event received during its attempt may make it schedulable by the hints of
// its rejecting plugins, and among the unschedulable pods otherwise. A pod
// that hit an internal error always goes to backoff. Without hints, the pod
// goes to backoffQ if a move request happened since podSchedulingCycle.
//
// A pod deleted or bound during its attempt (or, with Options.PodLookup,
// unknown or bound there) is dropped. It returns ErrAlreadyQueued if the pod
// is already queued.
func (q *PriorityQueue) AddUnschedulableIfNotPresent(ctx context.Context, pi *framework.QueuedPodInfo, podSchedulingCycle int64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	uid := pi.Pod.UID
	e, known := q.all[uid]
	if known && e.state != stateInFlight {
		return fmt.Errorf("queue requeue %s (%s): %w", pi.Pod.Key(), e.subQueue(), ErrAlreadyQueued)
	}
	if !known {
		e = &entry{state: stateNew, index: -1}
	}
	e.info = pi
	defer q.endFlightLocked(e)

	if hasRejectors(pi) {
		pi.UnschedulableCount++
		pi.ConsecutiveErrorsCount = 0
	} else {
		pi.ConsecutiveErrorsCount++
	}
	q.stampLocked(e)

	if !q.refreshLocked(e) {
		delete(q.all, uid)
		return nil
	}
	q.all[uid] = e

	if q.opts.DisableQueueingHints {
		if q.moveRequestCycle >= podSchedulingCycle || !hasRejectors(pi) {
			q.moveToBackoffLocked(ctx, e, labelScheduleAttemptFailure)
		} else {
			q.toUnschedulableLocked(e)
		}
	} else {
		q.requeueLocked(ctx, e, q.hintForFailedAttempt(e), labelScheduleAttemptFailure)
	}
	q.logMove(e, "pod requeued after a failed attempt", labelScheduleAttemptFailure)
	q.broadcastIfPoppableLocked(e)
	return nil
}

// RequeueActive ends the flight of a pod its pod group's successful cycle
// left out and puts it straight back in activeQ, keeping its queue
// timestamp and place among equals, as kube 1.37's queue requeues the rest
// of a group after a successful attempt (preserving the timestamp so the
// next attempt, which may preempt, comes first). pi's rejecting plugins are
// kept for explain; no attempt is counted against it. A pod deleted or
// bound meanwhile is dropped; ErrAlreadyQueued if it is queued already.
func (q *PriorityQueue) RequeueActive(ctx context.Context, pi *framework.QueuedPodInfo) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	uid := pi.Pod.UID
	e, known := q.all[uid]
	if !known || e.state != stateInFlight {
		return fmt.Errorf("queue requeue %s: %w", pi.Pod.Key(), ErrAlreadyQueued)
	}
	e.info = pi
	defer q.endFlightLocked(e)
	if !q.refreshLocked(e) {
		delete(q.all, uid)
		return nil
	}
	q.moveToActiveLocked(ctx, e, labelScheduleAttemptFailure, false)
	q.broadcastIfPoppableLocked(e)
	return nil
}

// refreshLocked brings a failed pod up to date with what happened during
// its attempt. It reports false when the pod must not be requeued.
func (q *PriorityQueue) refreshLocked(e *entry) bool {
	latest := e.info.Pod
	if f := e.flight; f != nil {
		if f.gone {
			return false
		}
		if f.latest != nil {
			latest = f.latest
		}
	}
	if q.opts.PodLookup != nil {
		p, ok := q.opts.PodLookup(e.info.Pod.UID)
		if !ok {
			return false
		}
		latest = p
	}
	if latest.NodeName != "" {
		return false
	}
	if latest != e.info.Pod {
		if pi, err := framework.NewPodInfo(latest); err == nil {
			e.info.PodInfo = pi
		}
	}
	return true
}

// hintForFailedAttempt judges the events recorded while the pod was in
// flight with the hints of the plugins that rejected it.
func (q *PriorityQueue) hintForFailedAttempt(e *entry) strategy {
	if !hasRejectors(e.info) || e.flight == nil || e.flight.mark == nil {
		// An internal error, or a pod that was not in flight: retry after
		// backoff rather than wait for the periodic flush.
		return queueAfterBackoff
	}
	result := queueSkip
	profile := q.hints.id(profileOf(e.info.Pod))
	for el := e.flight.mark.Next(); el != nil; el = el.Next() {
		ev, ok := el.Value.(*clusterEvent)
		if !ok {
			continue
		}
		switch q.worthRequeuing(e.info, ev.event, ev.oldObj, ev.newObj, q.hints.forEvent(profile, ev.event)) {
		case queueImmediately:
			return queueImmediately
		case queueAfterBackoff:
			result = queueAfterBackoff
			if len(e.info.PendingPlugins) == 0 {
				return result
			}
		}
	}
	return result
}

// requeueLocked sends the pod where the strategy says; PreEnqueue may still
// hold it among the gated pods.
func (q *PriorityQueue) requeueLocked(ctx context.Context, e *entry, s strategy, label string) {
	switch {
	case s == queueSkip:
		q.toUnschedulableLocked(e)
	case s == queueAfterBackoff && q.isBackingOff(e.info):
		q.moveToBackoffLocked(ctx, e, label)
	default:
		q.moveToActiveLocked(ctx, e, label, false)
	}
}

// MoveAllToActiveOrBackoffQueue tells the queue about a cluster event: the
// unschedulable pods that pass preCheck (nil: all) and that the event may
// help, by the hints of the plugins that rejected them, move to backoffQ or
// activeQ. Pods in flight see the event when their attempt fails.
func (q *PriorityQueue) MoveAllToActiveOrBackoffQueue(ctx context.Context, event framework.ClusterEvent, oldObj, newObj any, preCheck func(*model.Pod) bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.moveAllLocked(ctx, event, oldObj, newObj, preCheck)
}

func (q *PriorityQueue) moveAllLocked(ctx context.Context, event framework.ClusterEvent, oldObj, newObj any, preCheck func(*model.Pod) bool) {
	if !q.hints.interested(event) {
		return
	}
	hints := q.hints.cache(event)
	activated := false
	// Backwards, so that removing a pod (its place taken by the last one,
	// already seen) does not disturb the walk.
	for i := len(q.unsched) - 1; i >= 0; i-- {
		e := q.unsched[i]
		if hints.canSkip(e) || (preCheck != nil && !preCheck(e.info.Pod)) {
			continue
		}
		if q.moveOneLocked(ctx, e, hints, oldObj, newObj) {
			activated = true
		}
	}
	q.afterMovesLocked(event, oldObj, newObj, activated)
}

// AssignedPodAdded is told that a pod was bound or assumed. It moves the
// unschedulable pods the new pod may help through a cross-node term: those
// with a required affinity term matching it, and those rejected by
// PodTopologySpread in its namespace.
func (q *PriorityQueue) AssignedPodAdded(ctx context.Context, pod *model.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.movePodsLocked(ctx, q.crossTopologyPodsLocked(pod), EventAssignedPodAdd(), nil, pod)
}

// AssignedPodUpdated is told that a bound pod changed. A scale-down may
// free room for any pod; other changes only matter to cross-node terms, as
// in AssignedPodAdded.
func (q *PriorityQueue) AssignedPodUpdated(ctx context.Context, oldPod, newPod *model.Pod, event framework.ClusterEvent) {
	q.mu.Lock()
	defer q.mu.Unlock()
	scaleDown := framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionUpdatePodScaleDown}
	if scaleDown.Matches(event) {
		q.moveAllLocked(ctx, event, oldPod, newPod, nil)
		return
	}
	q.movePodsLocked(ctx, q.crossTopologyPodsLocked(newPod), event, oldPod, newPod)
}

func (q *PriorityQueue) crossTopologyPodsLocked(pod *model.Pod) []*entry {
	var nsLabels map[string]string
	if q.opts.Namespaces != nil {
		nsLabels, _ = q.opts.Namespaces.NamespaceLabels(pod.Namespace)
	}
	var out []*entry
	for _, e := range q.unsched {
		if _, ok := e.info.UnschedulablePlugins[podTopologySpread]; ok && e.info.Pod.Namespace == pod.Namespace {
			out = append(out, e)
			continue
		}
		for i := range e.info.RequiredAffinityTerms {
			if e.info.RequiredAffinityTerms[i].Matches(pod, nsLabels) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// movePodsLocked moves the given unschedulable pods that the event may help
// and records the event for the pods in flight.
func (q *PriorityQueue) movePodsLocked(ctx context.Context, candidates []*entry, event framework.ClusterEvent, oldObj, newObj any) {
	if !q.hints.interested(event) {
		return
	}
	hints := q.hints.cache(event)
	activated := false
	for _, e := range candidates {
		if e.state == stateUnschedulable && !hints.canSkip(e) && q.moveOneLocked(ctx, e, hints, oldObj, newObj) {
			activated = true
		}
	}
	q.afterMovesLocked(event, oldObj, newObj, activated)
}

// moveOneLocked moves one unschedulable pod if the event may help it and
// reports whether it can now be popped.
func (q *PriorityQueue) moveOneLocked(ctx context.Context, e *entry, hints *hintCache, oldObj, newObj any) bool {
	event := hints.event
	if e.info.Gated() && !isWildCard(event) && !matchesAny(q.hints.pluginEvents[e.info.GatingPlugin], event) {
		// Only an event the gating plugin registered can lift the gate.
		return false
	}
	s := q.worthRequeuing(e.info, event, oldObj, newObj, hints.get(e.profile))
	if s == queueSkip {
		return false
	}
	q.requeueLocked(ctx, e, s, event.Label)
	return e.state == stateActive || (e.state == stateBackoff && !q.opts.DisablePopFromBackoffQ)
}

// afterMovesLocked finishes an event: without hints it is a move request
// for the pods in flight; with hints it joins the in-flight log.
func (q *PriorityQueue) afterMovesLocked(event framework.ClusterEvent, oldObj, newObj any, activated bool) {
	q.moveRequestCycle = q.schedulingCycle
	q.recordEventLocked(event, oldObj, newObj)
	if activated {
		q.cond.Broadcast()
	}
}

func matchesAny(registered []framework.ClusterEvent, ev framework.ClusterEvent) bool {
	for _, r := range registered {
		if r.Matches(ev) {
			return true
		}
	}
	return false
}

// FlushBackoffQCompleted moves the pods whose backoff has ended to activeQ.
// Run calls it at every whole second; a simulator may call it after moving
// its clock.
func (q *PriorityQueue) FlushBackoffQCompleted(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var done []*entry
	for _, h := range [...]*entryHeap{q.backoff, q.errBackoff} {
		for {
			e, ok := h.Peek()
			if !ok || q.isBackingOff(e.info) {
				break
			}
			h.Pop()
			e.state = stateNew
			done = append(done, e)
		}
	}
	activated := false
	for _, e := range done {
		if q.moveToActiveLocked(ctx, e, labelBackoffComplete, true) {
			activated = true
		}
	}
	if activated {
		q.cond.Broadcast()
	}
}

// FlushUnschedulablePodsLeftover retries the pods that have waited among the
// unschedulable pods longer than PodMaxInUnschedulablePodsDuration since
// their last attempt (their queue timestamp). Run calls it every 30
// seconds. A gated pod keeps the timestamp it was added with, so once it is
// older than that duration every flush runs its PreEnqueue plugins again,
// as in kube.
func (q *PriorityQueue) FlushUnschedulablePodsLeftover(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.opts.Clock.Now()
	var stale []*entry
	for _, e := range q.unsched {
		if now.Sub(e.info.Timestamp) > q.opts.PodMaxInUnschedulablePodsDuration {
			stale = append(stale, e)
		}
	}
	if len(stale) > 0 {
		q.movePodsLocked(ctx, stale, EventUnschedulableTimeout(), nil, nil)
	}
}
