package queue

import (
	"context"
	"log/slog"
	"time"

	"github.com/berthsched/berth/core/framework"
)

// detachLocked takes the entry out of its container; it is then in none
// (stateNew) until the caller puts it somewhere. Pods in flight are in no
// container, so only their state changes.
func (q *PriorityQueue) detachLocked(e *entry) {
	switch e.state {
	case stateActive:
		q.active.Remove(e.index)
	case stateBackoff:
		q.backoff.Remove(e.index)
	case stateErrorBackoff:
		q.errBackoff.Remove(e.index)
	case stateUnschedulable:
		last := len(q.unsched) - 1
		moved := q.unsched[last]
		q.unsched[e.index] = moved
		moved.index = e.index
		q.unsched[last] = nil
		q.unsched = q.unsched[:last]
		e.index = -1
	}
	e.state = stateNew
}

// toUnschedulableLocked puts the entry among the unschedulable (or gated)
// pods, or refreshes what it records about an entry already there.
func (q *PriorityQueue) toUnschedulableLocked(e *entry) {
	e.profile = q.hints.id(profileOf(e.info.Pod))
	e.rejected = hasRejectors(e.info)
	e.rejectors = q.hints.rejectorMask(e.info)
	if e.state == stateUnschedulable {
		return
	}
	q.detachLocked(e)
	e.index = len(q.unsched)
	q.unsched = append(q.unsched, e)
	e.state = stateUnschedulable
}

// moveToActiveLocked runs the PreEnqueue plugins (unless the pod comes
// straight from backoffQ, where they already ran) and moves the pod to
// activeQ, or among the gated pods when a plugin holds it. It reports
// whether the pod entered activeQ. label names the move in logs. The first
// time a pod enters activeQ is its InitialAttemptTimestamp, as in kube.
func (q *PriorityQueue) moveToActiveLocked(ctx context.Context, e *entry, label string, fromBackoff bool) bool {
	if !fromBackoff || q.opts.DisablePopFromBackoffQ {
		q.runPreEnqueueLocked(ctx, e.info)
	}
	if e.info.Gated() {
		if e.state == stateActive || e.state == stateBackoff || e.state == stateErrorBackoff {
			return false
		}
		q.toUnschedulableLocked(e)
		q.logMove(e, "pod gated", label)
		return false
	}
	if e.info.InitialAttemptTimestamp.IsZero() {
		e.info.InitialAttemptTimestamp = q.opts.Clock.Now()
	}
	q.detachLocked(e)
	q.active.Push(e)
	e.state = stateActive
	q.logMove(e, "pod moved to activeQ", label)
	return true
}

// moveToBackoffLocked moves the pod to backoffQ, or to the error backoff
// heap when no plugin rejected it. When pods may be popped from backoffQ,
// PreEnqueue runs here and a held pod goes among the gated pods instead.
// It reports whether the pod entered backoffQ.
func (q *PriorityQueue) moveToBackoffLocked(ctx context.Context, e *entry, label string) bool {
	if !q.opts.DisablePopFromBackoffQ {
		q.runPreEnqueueLocked(ctx, e.info)
		if e.info.Gated() {
			q.toUnschedulableLocked(e)
			q.logMove(e, "pod gated", label)
			return false
		}
	}
	q.detachLocked(e)
	e.backoffUntil = q.backoffExpiry(e.info).UnixNano()
	if hasRejectors(e.info) {
		q.backoff.Push(e)
		e.state = stateBackoff
	} else {
		q.errBackoff.Push(e)
		e.state = stateErrorBackoff
	}
	q.logMove(e, "pod moved to backoffQ", label)
	return true
}

// runPreEnqueueLocked runs the profile's PreEnqueue plugins, the one that
// gated the pod last time first, and records the first that refuses.
func (q *PriorityQueue) runPreEnqueueLocked(ctx context.Context, info *framework.QueuedPodInfo) {
	plugins := q.opts.PreEnqueuePlugins[profileOf(info.Pod)]
	gating := info.GatingPlugin
	if gating != "" {
		for _, pl := range plugins {
			if pl.Name() == gating && !q.preEnqueuePasses(ctx, pl, info) {
				return
			}
		}
	}
	for _, pl := range plugins {
		if pl.Name() != gating && !q.preEnqueuePasses(ctx, pl, info) {
			return
		}
	}
	info.GatingPlugin, info.GatingPluginMessage = "", ""
}

func (q *PriorityQueue) preEnqueuePasses(ctx context.Context, pl framework.PreEnqueuePlugin, info *framework.QueuedPodInfo) bool {
	s := pl.PreEnqueue(ctx, info.Pod)
	if s.IsSuccess() {
		return true
	}
	if info.UnschedulablePlugins == nil {
		info.UnschedulablePlugins = make(map[string]struct{}, 1)
	}
	info.UnschedulablePlugins[pl.Name()] = struct{}{}
	info.GatingPlugin, info.GatingPluginMessage = pl.Name(), s.Message()
	if s.Code() == framework.Error {
		q.opts.Logger.Error("PreEnqueue plugin failed", "pod", info.Pod.Key(), "plugin", pl.Name(), "err", s.AsError())
	}
	return false
}

// backoffDuration is initial·2^(count−1), capped at the maximum.
func (q *PriorityQueue) backoffDuration(count int) time.Duration {
	return capBackoff(q.opts.PodInitialBackoff, q.opts.PodMaxBackoff, count)
}

func capBackoff(initial, limit time.Duration, count int) time.Duration {
	if count <= 0 {
		return 0
	}
	shift := count - 1
	if shift >= 63 || initial > limit>>shift {
		return limit
	}
	return initial << shift
}

// backoffExpiry is when the pod's backoff ends: after its consecutive
// internal errors if any, else after its unschedulable attempts, counted
// from the last failure. Zero means no backoff.
func (q *PriorityQueue) backoffExpiry(info *framework.QueuedPodInfo) time.Time {
	if q.opts.PodMaxBackoff == 0 {
		return time.Time{}
	}
	count := info.UnschedulableCount
	if info.ConsecutiveErrorsCount > 0 {
		count = info.ConsecutiveErrorsCount
	}
	if count == 0 {
		return time.Time{}
	}
	d := q.backoffDuration(count)
	if info.Pod.SchedulingGroup != "" {
		d = capBackoff(q.opts.PodInitialBackoff, q.opts.GroupMaxBackoff, count)
	}
	return q.alignToWindow(info.Timestamp.Add(d))
}

// alignToWindow rounds down to the backoff window when pods may be popped
// from backoffQ, so pods whose backoff ends in the same second are ordered
// by priority.
func (q *PriorityQueue) alignToWindow(t time.Time) time.Time {
	if q.opts.DisablePopFromBackoffQ {
		return t
	}
	return t.Truncate(backoffWindow)
}

func (q *PriorityQueue) isBackingOff(info *framework.QueuedPodInfo) bool {
	return !q.backoffExpiry(info).Before(q.alignToWindow(q.opts.Clock.Now()))
}

func backoffLess(a, b *entry) bool { return a.backoffUntil < b.backoffUntil }

// logMove logs a move at debug level; the arguments are only built when
// debug logging is on, as moves happen for every pod of an event.
func (q *PriorityQueue) logMove(e *entry, msg, label string) {
	if !q.opts.Logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	q.opts.Logger.Debug(msg, "pod", e.key(), "subQueue", e.subQueue(), "gatingPlugin", e.info.GatingPlugin, "event", label)
}
