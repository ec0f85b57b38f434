package scheduler

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/framework"
)

// ControllerDecisions is the planner of controllers outside the scheduling
// cycle that both evict and nominate (berthd's defragmenter, and its
// admission controller): a plan of Evictions, Nominations and
// ClearNominations, with Kueue's Admissions and WorkloadEvictions, is
// handed to the decision sink at once, as one plan, and only what became
// durable is applied to the scheduler's view afterwards: an evicted pod is
// held terminating (by preemption only for cause EvictPreemption), a
// nominated pod's room is held by the nominator, a cleared one is let go
// (admissions change nothing the scheduler holds: the pods' gates do).
// Binds, deallocations and reports are the cycle's own and are refused.
// Call it holding none of the scheduler's locks.
func (s *Scheduler) ControllerDecisions() framework.Planner { return controllerPlanner{s} }

type controllerPlanner struct{ s *Scheduler }

func (c controllerPlanner) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for i, item := range plan.Items {
		switch item.(type) {
		case *framework.Eviction, *framework.Nomination, *framework.ClearNomination,
			*framework.Admission, *framework.WorkloadEviction:
		default:
			return framework.PlanResult{}, fmt.Errorf("scheduler: controller plan item %d: %T is not an eviction, a nomination or an admission: %w", i, item, ErrInvalid)
		}
	}
	res, err := c.s.opts.Decisions.Submit(ctx, plan)
	if err != nil {
		return res, err
	}
	for i, item := range plan.Items {
		if res.Err(i) != nil {
			continue
		}
		switch it := item.(type) {
		case *framework.Eviction:
			c.s.markEvicted(ctx, it.Victim.UID, it.Cause == framework.EvictPreemption)
		case *framework.Nomination:
			c.s.setNominatedNodeName(ctx, it.Pod.UID, it.Node)
		case *framework.ClearNomination:
			c.s.setNominatedNodeName(ctx, it.Pod.UID, "")
		}
	}
	return res, nil
}
