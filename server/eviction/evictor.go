package eviction

import (
	"context"

	"github.com/berthsched/berth/server/decisionlog"
)

// Log writes Evict decisions; *decisionlog.Log satisfies it.
type Log interface {
	EvictPodAt(ctx context.Context, e decisionlog.Eviction) (uint64, error)
}

// Scheduler holds an evicted pod terminating; *scheduler.Scheduler
// satisfies it.
type Scheduler interface {
	MarkEvicted(ctx context.Context, uid string)
}

// Evictor evicts pods durably. It is safe for concurrent use.
type Evictor struct {
	log   Log
	sched Scheduler
}

// New returns an Evictor writing to log and marking in sched.
func New(log Log, sched Scheduler) *Evictor { return &Evictor{log: log, sched: sched} }

// Evict makes the Evict decision durable, then holds the pod terminating.
// A pod evicted already is refused with an error wrapping
// decisionlog.ErrAlreadyEvicted.
func (e *Evictor) Evict(ctx context.Context, ev decisionlog.Eviction) error {
	_, err := e.EvictAt(ctx, ev)
	return err
}

// EvictAt is Evict, returning the Evict decision's revision.
func (e *Evictor) EvictAt(ctx context.Context, ev decisionlog.Eviction) (uint64, error) {
	rev, err := e.log.EvictPodAt(ctx, ev)
	if err != nil {
		return 0, err
	}
	e.sched.MarkEvicted(ctx, ev.Victim.UID)
	return rev, nil
}
