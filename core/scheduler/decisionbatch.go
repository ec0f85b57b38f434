package scheduler

import (
	"context"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// DecisionBatcher groups the decisions a failed attempt makes one after
// another (a preemption's Evicts and ClearNominations, then the pod's
// Nominate and its Unschedulable report) into one durable write: berthd's
// decision log commits them together, so the cycle waits for durability
// once instead of once per decision.
type DecisionBatcher interface {
	NewBatch() DecisionBatch
}

// DecisionBatch stages decisions and writes them together. Its staging
// calls are the DecisionSink's and the Reporter's: they check, refuse
// (an Evict of a pod evicted already) and encode as those do, but return
// before anything is durable.
type DecisionBatch interface {
	Evict(ctx context.Context, victim *model.Pod, nodeName string, preemptor *model.Pod, reason string) error
	Nominate(ctx context.Context, pod *model.Pod, nodeName string) error
	ClearNomination(ctx context.Context, pod *model.Pod, reason string) error
	Unschedulable(ctx context.Context, pod *model.Pod, message string, fitErr *framework.FitError) error
	// Commit makes the staged decisions durable, in the order staged,
	// all or none, and returns once they are.
	Commit(ctx context.Context) error
}

// cycleBatch is one scheduling cycle's batch (Options.Batcher), carried by
// the cycle's context: the decisions made with that context are staged
// and written when the cycle ends (commitBatch), before the next one
// starts, so their order and revisions are those of separate writes.
// Binding cycles run with the caller's context and write their own.
type cycleBatch struct {
	batcher DecisionBatcher
	b       DecisionBatch // made at the first decision
	// victims were marked evicted by a staged Evict: if the batch fails
	// they are unmarked, as if their Evict had failed.
	victims []*model.Pod
}

type cycleBatchKey struct{}

// withBatch returns ctx carrying a new cycle batch, or ctx itself without
// Options.Batcher.
func (s *Scheduler) withBatch(ctx context.Context) (context.Context, *cycleBatch) {
	if s.opts.Batcher == nil {
		return ctx, nil
	}
	cb := &cycleBatch{batcher: s.opts.Batcher}
	return context.WithValue(ctx, cycleBatchKey{}, cb), cb
}

// batchOf is the batch staging ctx's decisions, nil when they are
// written one by one.
func batchOf(ctx context.Context) *cycleBatch {
	cb, _ := ctx.Value(cycleBatchKey{}).(*cycleBatch)
	return cb
}

func (cb *cycleBatch) batch() DecisionBatch {
	if cb.b == nil {
		cb.b = cb.batcher.NewBatch()
	}
	return cb.b
}

// commitBatch writes what the cycle staged. If that fails, nothing of it
// is durable: the victims go back to running (their Evicts failed), and the
// nomination and report stay as a failed Nominate or report leaves them.
func (s *Scheduler) commitBatch(ctx context.Context, cb *cycleBatch) {
	if cb == nil || cb.b == nil {
		return
	}
	b, victims := cb.b, cb.victims
	cb.b, cb.victims = nil, nil
	if err := b.Commit(ctx); err != nil {
		s.logger.Error("writing an attempt's decisions failed", "victims", len(victims), "err", err)
		for _, v := range victims {
			s.unmarkEvicted(ctx, v)
		}
	}
}

// report tells the Reporter, or stages the report in ctx's batch.
func (s *Scheduler) report(ctx context.Context, pod *model.Pod, msg string, fitErr *framework.FitError) error {
	if cb := batchOf(ctx); cb != nil {
		return cb.batch().Unschedulable(ctx, pod, msg, fitErr)
	}
	return s.opts.Reporter.Unschedulable(ctx, pod, msg, fitErr)
}

// unmarkEvicted undoes markEvicted for a preemption victim whose Evict
// never became durable. victim is the pod as it was evicted: not
// terminating (the executor skips those).
func (s *Scheduler) unmarkEvicted(ctx context.Context, victim *model.Pod) {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	cur, ok := s.state.unmarkEvicted(victim.UID)
	if !ok || !cur.Terminating {
		return
	}
	restore := func(p *model.Pod) *model.Pod {
		cp := *p
		cp.Terminating, cp.Preempted = victim.Terminating, victim.Preempted
		return &cp
	}
	s.state.store(restore(cur))
	s.updateCached(ctx, cur.UID, restore)
}
