package podbook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
)

// Scheduler is the scheduler's view of the pods that outcomes change;
// *scheduler.Scheduler satisfies it.
type Scheduler interface {
	// AddPod applies a pod; in berthd, one the object store admitted
	// already (the pod kind's own Upsert, core/objstore).
	AddPod(ctx context.Context, pod *model.Pod) error
	DeletePod(ctx context.Context, pod *model.Pod) error
	ReportBindResult(ctx context.Context, podUID, node string, ok bool, reason string) error
	// Unbind makes a pod held as bound pending again.
	Unbind(ctx context.Context, uid string) error
	Pod(uid string) (*model.Pod, bool)
}

// Outcomes applies what the orchestrator sends about pods (upserts,
// deletions, bind reports, the end of a re-list) to the scheduler and to
// the book in step. Its rules:
//   - a pod arriving bound settles its bind and ends its nomination and
//     last Unschedulable message, as a Bind does;
//   - a pod re-listed pending whose bind from before a restart is
//     outstanding is held on that bind's node until the bind is settled
//     (so no pod is bound twice across a crash), and a pending pod sent
//     without a nomination gets the one the log holds;
//   - a failure is durable before the pod is requeued, so a restart never
//     holds a pod on a node the orchestrator gave up on;
//   - a deletion forgets every record of the pod;
//   - a complete re-list forgets the records restored for pods it did not
//     bring back.
type Outcomes struct {
	book   *Book
	sched  Scheduler
	logger *slog.Logger
}

// NewOutcomes returns the rules over b and sched.
func NewOutcomes(b *Book, sched Scheduler, logger *slog.Logger) *Outcomes {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Outcomes{book: b, sched: sched, logger: logger}
}

// AddPod upserts a pod (see Outcomes for the rules).
func (o *Outcomes) AddPod(ctx context.Context, pod *model.Pod) error {
	if pod.NodeName == "" {
		return o.sched.AddPod(ctx, o.withRestored(pod))
	}
	if err := o.sched.AddPod(ctx, pod); err != nil {
		return err
	}
	// Bound by the orchestrator rather than by a Bind, the pod's
	// nomination ends as a Bind would end it: in the store too, where a
	// follower replica lists it.
	if err := o.book.remove(ctx, pod.UID, false, o.book.facts.forget(pod.UID)...); err != nil {
		return err
	}
	return o.settle(ctx, pod.UID, false)
}

// UpdatePod is AddPod.
func (o *Outcomes) UpdatePod(ctx context.Context, pod *model.Pod) error { return o.AddPod(ctx, pod) }

// withRestored returns a pending pod as AddPod gives it to the scheduler:
// held on the node of its bind from before a restart (Book.HeldOnNode,
// which the pods' admission asks first), or carrying the
// nomination the log holds (as kube's pod status would carry it), so a
// nomination restored after a restart steers the pod's next attempt
// exactly as before.
func (o *Outcomes) withRestored(pod *model.Pod) *model.Pod {
	if r, ok := o.book.Outstanding(KindBind, pod.UID); ok && r.Restored {
		held := *pod
		held.NodeName = r.Node
		return &held
	}
	if node, ok := o.book.Nomination(pod.UID); ok && pod.NominatedNodeName == "" {
		nominated := *pod
		nominated.NominatedNodeName = node
		return &nominated
	}
	return pod
}

// DeletePod forgets the pod, and its records, nomination and last
// Unschedulable message.
func (o *Outcomes) DeletePod(ctx context.Context, pod *model.Pod) error {
	err := o.sched.DeletePod(ctx, pod)
	if ferr := o.forget(ctx, pod.UID); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

func (o *Outcomes) forget(ctx context.Context, uid string) error { return o.book.Forget(ctx, uid) }

// ReportBindResult settles a bind. A failure is durable before the pod is
// requeued.
func (o *Outcomes) ReportBindResult(ctx context.Context, podUID, node string, ok bool, reason string) error {
	r, outstanding := o.book.Outstanding(KindBind, podUID)
	if outstanding && r.Restored {
		return o.reportRestored(ctx, podUID, r.Node, node, ok)
	}
	if !ok && outstanding && r.Node == node {
		if err := o.settle(ctx, podUID, true); err != nil {
			return err
		}
	}
	if err := o.sched.ReportBindResult(ctx, podUID, node, ok, reason); err != nil {
		return err
	}
	if ok {
		return o.settle(ctx, podUID, false)
	}
	return nil
}

// reportRestored settles a bind made before the restart: the pod is
// already counted on the node; a failure makes it pending again.
func (o *Outcomes) reportRestored(ctx context.Context, podUID, held, node string, ok bool) error {
	if held != node {
		return fmt.Errorf("report bind of %s to %s (its bind is to %s): %w", podUID, node, held, scheduler.ErrNoBindInFlight)
	}
	if err := o.settle(ctx, podUID, !ok); err != nil || ok {
		return err
	}
	if _, found := o.sched.Pod(podUID); !found {
		return nil // re-listed later, it arrives pending
	}
	return o.sched.Unbind(ctx, podUID)
}

// settle records that the pod's outstanding bind has an outcome: its
// durable copy is removed, durably before it returns with wait; without,
// a crash may leave it, and the restart restores it for the pod's next
// upsert to settle again. Settling a pod without an outstanding bind does
// nothing.
func (o *Outcomes) settle(ctx context.Context, uid string, wait bool) error {
	settled, err := o.book.settle(ctx, KindBind, uid)
	if err != nil || !settled {
		return err
	}
	return o.book.remove(ctx, uid, wait, KindBind.Space())
}

// Resynced follows the end of a complete re-list of the pods, once the
// scheduler dropped what it restored for pods not re-sent (evicted: the
// evictions it dropped): it forgets the evictions, binds, nominations and
// Unschedulable messages restored for those pods (deleted while berthd
// was down).
func (o *Outcomes) Resynced(ctx context.Context, evicted []string) {
	for _, uid := range evicted {
		if err := o.forget(ctx, uid); err != nil {
			o.logger.Error("forgetting the eviction of a pod not re-listed failed", "pod_uid", uid, "err", err)
		}
	}
	known := func(uid string) bool {
		_, ok := o.sched.Pod(uid)
		return ok
	}
	var errs []error
	gone := o.book.unknown(known)
	for _, uid := range gone {
		errs = append(errs, o.forget(ctx, uid))
	}
	for _, uid := range o.book.facts.unknown(known) {
		errs = append(errs, o.book.remove(ctx, uid, false, o.book.facts.forget(uid)...))
	}
	if err := errors.Join(errs...); err != nil {
		o.logger.Error("forgetting the restored state of pods not re-listed failed", "err", err)
	}
	if len(gone) > 0 {
		o.logger.Info("re-list complete: forgot the records restored for pods not re-sent", "pods", len(gone))
	}
}
