package eviction

import (
	"context"

	"github.com/berthsched/berth/core/framework"
)

// Scheduler holds an evicted pod terminating; *scheduler.Scheduler
// satisfies it.
type Scheduler interface {
	MarkEvicted(ctx context.Context, uid string)
}

// Evictor evicts pods durably. It is safe for concurrent use.
type Evictor struct {
	decisions framework.Planner
	sched     Scheduler
}

// New returns an Evictor submitting to decisions (*decisionlog.Log) and
// marking in sched.
func New(decisions framework.Planner, sched Scheduler) *Evictor {
	return &Evictor{decisions: decisions, sched: sched}
}

// Evict makes the Evict decision durable, then holds the pod terminating.
// A pod evicted already is refused with an error wrapping
// decisionlog.ErrAlreadyEvicted.
func (e *Evictor) Evict(ctx context.Context, ev framework.Eviction) error {
	_, err := e.EvictAt(ctx, ev)
	return err
}

// EvictAt is Evict, returning the Evict decision's revision.
func (e *Evictor) EvictAt(ctx context.Context, ev framework.Eviction) (uint64, error) {
	rev, err := framework.SubmitOne(ctx, e.decisions, &ev)
	if err != nil {
		return 0, err
	}
	e.sched.MarkEvicted(ctx, ev.Victim.UID)
	return rev, nil
}
