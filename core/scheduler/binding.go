package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
)

// binding is a pod assumed on a node and on its way to being bound.
type binding struct {
	fwk   framework.Framework
	state *framework.CycleState
	qpi   *framework.QueuedPodInfo // the assumed pod (NodeName set)
	host  string
	start time.Time
}

// runBindingCycle waits for Permit, runs PreBind, Bind and PostBind, and
// undoes the assumption if any of them fails. It returns the failure
// status, nil when the bind was issued (or the outcome was already
// settled by the caller).
func (s *Scheduler) runBindingCycle(ctx context.Context, b *binding) *framework.Status {
	f := s.bindingCycle(ctx, b)
	if f == nil {
		return nil
	}
	s.handleBindingCycleError(ctx, b, f)
	return f.status
}

func (s *Scheduler) bindingCycle(ctx context.Context, b *binding) *failure {
	queuedAt, f := s.prepareBind(ctx, b)
	if f != nil {
		return f
	}
	if st := b.fwk.RunBindPlugins(ctx, b.state, b.qpi.Pod, b.host); !st.IsSuccess() {
		if s.takeBind(b.qpi.Pod.UID) == nil {
			return nil // the caller already settled the bind
		}
		return &failure{status: st, nominating: clearNomination}
	}
	s.bound(ctx, b, queuedAt)
	return nil
}

// prepareBind is the binding cycle up to Bind: WaitOnPermit, PreBind, and
// the bind recorded as awaiting its outcome. It returns when the pod was
// first queued (zero if unknown).
func (s *Scheduler) prepareBind(ctx context.Context, b *binding) (time.Time, *failure) {
	pod := b.qpi.Pod
	if st := b.fwk.WaitOnPermit(ctx, pod); !st.IsSuccess() {
		return time.Time{}, bindingRejection(st, b.host, pod.Key())
	}
	// The pod is still in flight during PreBind: a rejection there makes it
	// unschedulable, judged against the events seen since it was popped.
	if st := b.fwk.RunPreBindPlugins(ctx, b.state, pod, b.host); !st.IsSuccess() {
		return time.Time{}, bindingRejection(st, b.host, pod.Key())
	}
	// PreBind is the last point that can find the pod unschedulable: from
	// here on a failure is an error, retried after backoff, so the queue can
	// forget the attempt and the events it kept for it.
	s.queue.Done(pod.UID)
	// The check and the record are one step, so a deletion either comes
	// first (no bind) or finds the bind recorded (and takes it).
	// A read lock suffices: a deletion takes the state's lock for writing, and binding
	// goroutines, thousands at a time under load, do not queue on each other.
	s.state.mu.RLock()
	cur, ok := s.state.pods[pod.UID]
	alive := ok && cur.NodeName == ""
	var queuedAt time.Time
	if rec := s.state.records[pod.UID]; rec != nil {
		queuedAt = rec.queuedAt
	}
	if alive {
		s.bindsMu.Lock()
		s.binds[pod.UID] = b
		s.bindsMu.Unlock()
	}
	s.state.mu.RUnlock()
	if !alive {
		err := fmt.Errorf("pod %s was deleted or bound elsewhere before its bind to %s", pod.Key(), b.host)
		return time.Time{}, &failure{status: framework.AsStatus(err), nominating: clearNomination}
	}
	return queuedAt, nil
}

// bound ends a binding cycle whose Bind was issued: metrics and PostBind.
func (s *Scheduler) bound(ctx context.Context, b *binding, queuedAt time.Time) {
	pod := b.qpi.Pod
	if s.opts.Metrics != nil && !queuedAt.IsZero() {
		s.opts.Metrics.ObservePodScheduled(b.fwk.ProfileName(), b.qpi.Attempts, s.clock.Now().Sub(queuedAt))
	}
	s.logger.Debug("pod bound", "pod", pod.Key(), "node", b.host)
	b.fwk.RunPostBindPlugins(ctx, b.state, pod, b.host)
}

// bindingRejection is the failure of a binding cycle that Permit or
// PreBind stopped on host. A rejection carries a one-node FitError naming
// the plugin, as kube's, so the pod waits among the unschedulable pods for
// an event that plugin cares about; anything else is an internal error.
func bindingRejection(st *framework.Status, host, podKey string) *failure {
	f := &failure{status: st, nominating: clearNomination}
	if st.IsRejected() {
		d := framework.Diagnosis{NodeToStatus: framework.NewNodeToStatus()}
		d.NodeToStatus.Set(host, st)
		d.AddUnschedulablePlugin(st.Plugin())
		f.fitErr = &framework.FitError{PodKey: podKey, NumAllNodes: 1, Diagnosis: d}
	}
	return f
}

// Binding reports whether pod, the version a binding cycle handed to the
// Bind plugins, still awaits its bind: false once the pod was deleted or
// replaced, or its binding settled or abandoned. The planner asks it
// (under its own lock) to refuse writing a Bind nobody waits for.
func (s *Scheduler) Binding(pod *model.Pod) bool {
	s.bindsMu.Lock()
	defer s.bindsMu.Unlock()
	b := s.binds[pod.UID]
	return b != nil && b.qpi.Pod == pod
}

// takeBind removes and returns the pod's binding awaiting confirmation.
func (s *Scheduler) takeBind(uid string) *binding {
	s.bindsMu.Lock()
	defer s.bindsMu.Unlock()
	b := s.binds[uid]
	delete(s.binds, uid)
	return b
}

// handleBindingCycleError undoes the assumption, tells the queue the node
// has room again and requeues the pod.
func (s *Scheduler) handleBindingCycleError(ctx context.Context, b *binding, f *failure) {
	assumed := b.qpi.Pod
	if s.unreserveAndForget(ctx, b.state, b.fwk, assumed, b.host) {
		// Forgetting the assumed pod frees its node, like a pod deletion.
		if f.status.IsRejected() {
			// After requeueing the pod, so the event is not counted for
			// the pod's own attempt (kube does the same).
			defer s.queue.MoveAllToActiveOrBackoffQueue(ctx, queue.EventAssignedPodDelete(), assumed, nil, func(p *model.Pod) bool {
				return p.UID != assumed.UID
			})
		} else {
			s.queue.MoveAllToActiveOrBackoffQueue(ctx, queue.EventAssignedPodDelete(), assumed, nil, nil)
		}
	}
	s.handleFailure(ctx, b.fwk, b.qpi, f, true)
}

// ReportBindResult settles a bind the scheduler issued (through the Bind
// decision): ok confirms it, as the pod arriving bound through AddPod would;
// a failure forgets the assumption and requeues the pod with backoff. It
// returns ErrNoBindInFlight when no bind of the pod to node awaits an
// outcome (a confirmation of a pod already bound there is not an error).
func (s *Scheduler) ReportBindResult(ctx context.Context, podUID, node string, ok bool, reason string) error {
	s.bindsMu.Lock()
	b := s.binds[podUID]
	if b != nil && b.host == node {
		delete(s.binds, podUID)
	} else {
		b = nil
	}
	s.bindsMu.Unlock()
	if b == nil {
		if st, found := s.cache.Pod(podUID); ok && found && !st.Assumed && st.Pod.NodeName == node {
			return nil
		}
		return fmt.Errorf("report bind of %s to %s: %w", podUID, node, ErrNoBindInFlight)
	}
	if ok {
		cur, found := s.state.lookup(podUID)
		if !found {
			return fmt.Errorf("report bind of %s to %s: %w", podUID, node, ErrPodNotFound)
		}
		bound := *cur
		bound.NodeName = node
		return s.AddPod(ctx, &bound)
	}
	if reason == "" {
		reason = "the caller reported the bind failed"
	}
	s.state.updateRecord(podUID, func(r *podRecord) { r.bindFailure = reason })
	st := framework.NewStatus(framework.Error, fmt.Sprintf("binding %s to %s failed: %s", b.qpi.Pod.Key(), node, reason))
	s.handleBindingCycleError(ctx, b, &failure{status: st, nominating: clearNomination})
	return nil
}
