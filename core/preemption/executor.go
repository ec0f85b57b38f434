package preemption

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// EvictReason is the reason an Evict decision carries: kube's Preempted
// event message, naming the preemptor by namespace/name where kube gives
// its uid: the people reading it know pods by name (the uid is in the
// decision's preemptor field).
func EvictReason(preemptor *model.Pod, node string) string {
	return fmt.Sprintf("Preempted by pod %s on node %s", preemptor.Key(), node)
}

// ClearNominationReason is why a lower-priority pod loses its nomination
// to the node a preemptor takes.
func ClearNominationReason(preemptor *model.Pod, node string) string {
	return fmt.Sprintf("node %s was taken by preemptor %s of higher priority", node, preemptor.Key())
}

// execute evicts c's victims and clears the nominations of lower-priority
// pods to c's node, as kube's executor does synchronously. Victims already
// terminating are not evicted again; a victim held at Permit is rejected
// there instead.
func (e *Evaluator) execute(ctx context.Context, c *Candidate, preemptor *model.Pod) error {
	sink := e.h.Decisions()
	if sink == nil {
		return errors.New("preemption: the framework has no decision sink")
	}
	reason := EvictReason(preemptor, c.Node)
	var plan framework.Plan
	for _, v := range c.Victims {
		if v.Terminating {
			continue
		}
		if wp := e.h.GetWaitingPod(v.UID); wp != nil {
			wp.Reject(e.opts.PluginName, "preempted")
			continue
		}
		plan.Add(&framework.Eviction{Victim: v, Node: c.Node, Cause: framework.EvictPreemption, Preemptor: preemptor, Message: reason})
	}
	if plan.Len() > 0 {
		res, err := sink.Submit(ctx, plan)
		if err != nil {
			return fmt.Errorf("evicting the victims on %s: %w", c.Node, err)
		}
		var errs []error
		for i, item := range plan.Items {
			if err := res.Err(i); err != nil {
				errs = append(errs, fmt.Errorf("evicting %s: %w", item.(*framework.Eviction).Victim.Key(), err))
			}
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	nominator := e.h.PodNominator()
	if nominator == nil {
		return nil
	}
	msg := ClearNominationReason(preemptor, c.Node)
	for _, pi := range nominator.NominatedPodsForNode(c.Node) {
		if pi.Pod.Priority >= preemptor.Priority {
			continue
		}
		// Failing to clear a nomination does not undo the preemption, as
		// in kube: the pod keeps its reservation until its next attempt.
		if _, err := framework.SubmitOne(ctx, sink, &framework.ClearNomination{Pod: pi.Pod, Reason: msg}); err != nil && e.h.Logger() != nil {
			e.h.Logger().Error("clearing a nomination failed", "pod", pi.Pod.Key(), "node", c.Node, "err", err)
		}
		nominator.DeleteNominatedPodIfExists(pi.Pod)
	}
	return nil
}

func randomOffset(n int) int { return rand.IntN(n) }
