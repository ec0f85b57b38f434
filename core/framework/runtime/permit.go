package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// MaxPermitTimeout bounds the wait a Permit plugin may ask for.
const MaxPermitTimeout = 15 * time.Minute

// RunPermitPlugins runs the Permit plugins in order. A rejection stops
// and names the plugin; a failure becomes an Error naming it. When some
// plugins ask to wait (each with its timeout, at most MaxPermitTimeout)
// and none rejects, the pod becomes a waiting pod and the result is Wait;
// the binding cycle then calls WaitOnPermit.
func (f *Framework) RunPermitPlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeName string) (status *framework.Status) {
	start := f.now()
	defer func() { f.observePoint(PointPermit, start, status.Code()) }()
	timeouts := make(map[string]time.Duration)
	var wait *framework.Status
	for _, pl := range f.permit {
		pstart := f.now()
		s, timeout := pl.Permit(ctx, state, pod, nodeName)
		f.observePlugin(PointPermit, pl.Name(), pstart, s.Code())
		switch {
		case s.IsSuccess():
		case s.IsRejected():
			return s.WithPlugin(pl.Name())
		case s.IsWait():
			timeouts[pl.Name()] = min(timeout, MaxPermitTimeout)
			wait = s
		default:
			return framework.AsStatus(fmt.Errorf("running Permit plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
		}
	}
	if wait == nil {
		return nil
	}
	wp := newWaitingPod(pod, timeouts)
	f.waitingPods.add(wp)
	wp.startTimers(f.timers, timeouts)
	wait.AppendReason("one or more plugins asked to wait and no plugin rejected pod")
	return wait
}

// WaitOnPermit blocks until the pod, if it is waiting, is allowed by every
// plugin that held it (nil), rejected or timed out (Unschedulable naming
// the plugin), or ctx ends (Error). A pod that is not waiting returns nil
// at once.
func (f *Framework) WaitOnPermit(ctx context.Context, pod *model.Pod) (status *framework.Status) {
	wp := f.waitingPods.get(pod.UID)
	if wp == nil {
		return nil
	}
	defer f.waitingPods.remove(pod.UID)
	start := f.now()
	select {
	case status = <-wp.result:
	case <-ctx.Done():
		wp.finish(framework.AsStatus(ctx.Err()))
		status = <-wp.result
	}
	if f.metrics != nil {
		f.metrics.ObservePermitWait(f.profileName, status.Code(), f.clock.Now().Sub(start))
	}
	if status.IsSuccess() || status.IsRejected() {
		return status
	}
	return framework.AsStatus(fmt.Errorf("waiting on permit for pod: %w", status.AsError())).WithPlugin(status.Plugin())
}

// IterateOverWaitingPods calls fn for every waiting pod (of every profile
// sharing the map). fn must not call RunPermitPlugins or WaitOnPermit.
func (f *Framework) IterateOverWaitingPods(fn func(framework.WaitingPod)) { f.waitingPods.iterate(fn) }

// GetWaitingPod returns the waiting pod with that UID, nil if none.
func (f *Framework) GetWaitingPod(uid string) framework.WaitingPod {
	if wp := f.waitingPods.get(uid); wp != nil {
		return wp
	}
	return nil
}

// RejectWaitingPod rejects the waiting pod with that UID ("removed"); it
// reports whether a waiting pod was rejected by this call.
func (f *Framework) RejectWaitingPod(uid string) bool {
	if wp := f.waitingPods.get(uid); wp != nil {
		return wp.reject("", "removed")
	}
	return false
}

// clockWithRealTimers adds real timers to a clock that has none.
type clockWithRealTimers struct{ framework.Clock }

func (clockWithRealTimers) AfterFunc(d time.Duration, fn func()) Timer { return time.AfterFunc(d, fn) }
