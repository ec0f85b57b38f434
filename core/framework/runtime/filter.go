package runtime

import (
	"context"
	"fmt"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// RunFilterPlugins runs the Filter plugins on one node in order, skipping
// those whose PreFilter returned Skip, and stops at the first that does not
// accept the pod. The status names that plugin; a status other than a
// rejection becomes an Error. Node-local plugins' verdicts are remembered
// per node version and pod signature (plan.go). Safe to call in parallel
// for different nodes.
func (f *Framework) RunFilterPlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	return f.runFilterPlugins(ctx, state, pod, nodeInfo, "")
}

// runFilterPlugins is RunFilterPlugins not running the plugin named passes
// (none when ""), which the caller knows accepts the pod on the node.
func (f *Framework) runFilterPlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo, passes string) *framework.Status {
	plan := f.filterPlanOf(state)
	if plan.sig == 0 {
		return f.runFilterSteps(ctx, plan.steps, state, pod, nodeInfo, passes)
	}
	return f.runFilterPluginsMemo(ctx, plan, state, pod, nodeInfo, nodeInfo.Memo(&f.memo.owner, plan.sig), passes)
}

// runFilterPluginsMemo is runFilterPlugins with the node's memo entry for
// the plan's signature already looked up.
func (f *Framework) runFilterPluginsMemo(ctx context.Context, plan *filterPlan, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo, e *framework.MemoEntry, passes string) *framework.Status {
	if !e.FilterDone {
		failedAt, st, ok := f.runLocalFilters(ctx, plan.steps, state, pod, nodeInfo)
		if !ok {
			// An internal error is not remembered: run as without memo,
			// so the error (or an earlier rejection) is what it would be.
			return f.runFilterSteps(ctx, plan.steps, state, pod, nodeInfo, "")
		}
		e.FilterDone, e.FilterFailedAt, e.FilterStatus = true, int32(failedAt), st
	}
	// The other plugins before the first local rejection decide first.
	for _, step := range plan.steps {
		if e.FilterFailedAt >= 0 && step.index > int(e.FilterFailedAt) {
			break
		}
		if step.local || passes != "" && step.pl.Name() == passes {
			continue
		}
		if s := f.runFilter(ctx, step.pl, state, pod, nodeInfo); s != nil {
			return s
		}
	}
	return e.FilterStatus
}

// runFilterSteps runs the steps in order (but the plugin named passes) and
// returns the first failure.
func (f *Framework) runFilterSteps(ctx context.Context, steps []filterStep, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo, passes string) *framework.Status {
	for _, step := range steps {
		if passes != "" && step.pl.Name() == passes {
			continue
		}
		if s := f.runFilter(ctx, step.pl, state, pod, nodeInfo); s != nil {
			return s
		}
	}
	return nil
}

// runLocalFilters runs the node-local steps in order: the index and status
// of the first that rejects the pod (-1, nil when none does); ok is false
// when one failed with an internal error.
func (f *Framework) runLocalFilters(ctx context.Context, steps []filterStep, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) (int, *framework.Status, bool) {
	for _, step := range steps {
		if !step.local {
			continue
		}
		s := step.pl.Filter(ctx, state, pod, nodeInfo)
		switch {
		case s.IsSuccess():
			continue
		case s.IsRejected():
			return step.index, s.WithPlugin(step.pl.Name()), true
		default:
			return 0, nil, false
		}
	}
	return -1, nil, true
}

// runFilter runs one Filter plugin: nil when it accepts the pod, else its
// status naming it (an Error unless a rejection).
func (f *Framework) runFilter(ctx context.Context, pl framework.FilterPlugin, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s := pl.Filter(ctx, state, pod, nodeInfo)
	if s.IsSuccess() {
		return nil
	}
	if !s.IsRejected() {
		s = framework.AsStatus(fmt.Errorf("running %q filter plugin: %w", pl.Name(), s.AsError()))
	}
	return s.WithPlugin(pl.Name())
}

// RunFilterPluginsWithNominatedPods filters the node as the scheduling
// cycle and preemption do. When pods nominated to the node have the pod's
// priority or a higher one (the pod's own nomination aside), the filters
// run first with those pods added to a copy of the node and of the cycle
// state (through the PreFilter extensions), and, if that passes, again
// without them: the pod must fit whether or not the nominated pods arrive.
// Otherwise the filters run once on the node as it is.
//
// When the pod's filters are all node-local (LocalMemo), the verdict with
// the nominated pods added is remembered on the node's memo entry with
// those pods, and reused while the node and its nominated pods are the
// same: it is what the filters would say again.
func (f *Framework) RunFilterPluginsWithNominatedPods(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	return f.RunFilterPluginsPassing(ctx, state, pod, nodeInfo, "")
}

// RunFilterPluginsPassing is RunFilterPluginsWithNominatedPods for a node
// the plugin named passes is known to accept unless pods are nominated to
// it (see framework.RejectedDomains.Decisive): when none is, that plugin
// is not run.
func (f *Framework) RunFilterPluginsPassing(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo, passes string) *framework.Status {
	// A node-local pod (LocalMemo) has no plugin that passes by domain:
	// the remembered verdict runs every filter, as it would.
	if e := f.LocalMemo(state, nodeInfo); e != nil {
		return f.filterWithNominatedRemembered(ctx, state, pod, nodeInfo, e)
	}
	added, withState, withNode, err := f.addNominatedPods(ctx, state, pod, nodeInfo)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !added {
		return f.runFilterPlugins(ctx, state, pod, nodeInfo, passes)
	}
	if s := f.RunFilterPlugins(ctx, withState, pod, withNode); !s.IsSuccess() {
		return s
	}
	return f.RunFilterPlugins(ctx, state, pod, nodeInfo)
}

// filterWithNominatedRemembered is RunFilterPluginsWithNominatedPods with
// the verdict on the node with its nominated pods taken from e when e holds
// it for the same pods.
func (f *Framework) filterWithNominatedRemembered(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo, e *framework.MemoEntry) *framework.Status {
	nominated := framework.NominatedPodsToAdd(f.nominator, pod, nodeInfo)
	if len(nominated) == 0 {
		// LocalMemo's entry is the one runFilterPlugins would look up.
		return f.runFilterPluginsMemo(ctx, f.filterPlanOf(state), state, pod, nodeInfo, e, "")
	}
	if !e.NominatedDone || !framework.SamePodInfos(e.Nominated, nominated) {
		withState, withNode := state.Clone(), nodeInfo.Clone()
		for _, pi := range nominated {
			withNode.AddPodInfo(pi)
			if s := f.RunPreFilterExtensionAddPod(ctx, withState, pod, pi, withNode); !s.IsSuccess() {
				return framework.AsStatus(s.AsError())
			}
		}
		s := f.RunFilterPlugins(ctx, withState, pod, withNode)
		if s.Code() == framework.Error {
			return s // not remembered, as in RunFilterPlugins
		}
		e.NominatedDone, e.Nominated, e.NominatedStatus = true, slices.Clone(nominated), s
	}
	if !e.NominatedStatus.IsSuccess() {
		return e.NominatedStatus
	}
	return f.RunFilterPlugins(ctx, state, pod, nodeInfo)
}

// addNominatedPods returns copies of state and nodeInfo with the pods
// nominated to the node at the pod's priority or above added, and whether
// there were any.
func (f *Framework) addNominatedPods(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) (bool, *framework.CycleState, *framework.NodeInfo, error) {
	if f.nominator == nil || !f.nominator.AnyNominated() {
		return false, state, nodeInfo, nil
	}
	// The name is "" for a NodeInfo without its node: nothing is
	// nominated there.
	nominated := f.nominator.NominatedPodsForNode(nodeInfo.Name())
	if len(nominated) == 0 || nodeInfo.Node() == nil {
		return false, state, nodeInfo, nil
	}
	var outState *framework.CycleState
	var outNode *framework.NodeInfo
	for _, pi := range nominated {
		if pi.Pod.Priority < pod.Priority || pi.Pod.UID == pod.UID {
			continue
		}
		if outNode == nil {
			outState, outNode = state.Clone(), nodeInfo.Clone()
		}
		outNode.AddPodInfo(pi)
		if s := f.RunPreFilterExtensionAddPod(ctx, outState, pod, pi, outNode); !s.IsSuccess() {
			return false, state, nodeInfo, s.AsError()
		}
	}
	if outNode == nil {
		return false, state, nodeInfo, nil
	}
	return true, outState, outNode, nil
}
