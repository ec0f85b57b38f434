package runtime

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// RunFilterPlugins runs the Filter plugins on one node in order, skipping
// those whose PreFilter returned Skip, and stops at the first that does not
// accept the pod. The status names that plugin; a status other than a
// rejection becomes an Error. Safe to call in parallel for different
// nodes.
func (f *Framework) RunFilterPlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	for _, pl := range f.filter {
		if skipped(state.SkipFilterPlugins, pl.Name()) {
			continue
		}
		s := pl.Filter(ctx, state, pod, nodeInfo)
		if s.IsSuccess() {
			continue
		}
		if !s.IsRejected() {
			s = framework.AsStatus(fmt.Errorf("running %q filter plugin: %w", pl.Name(), s.AsError()))
		}
		return s.WithPlugin(pl.Name())
	}
	return nil
}

// RunFilterPluginsWithNominatedPods filters the node as the scheduling
// cycle and preemption do. When pods nominated to the node have the pod's
// priority or a higher one (the pod's own nomination aside), the filters
// run first with those pods added to a copy of the node and of the cycle
// state (through the PreFilter extensions), and, if that passes, again
// without them: the pod must fit whether or not the nominated pods arrive.
// Otherwise the filters run once on the node as it is.
func (f *Framework) RunFilterPluginsWithNominatedPods(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	added, withState, withNode, err := f.addNominatedPods(ctx, state, pod, nodeInfo)
	if err != nil {
		return framework.AsStatus(err)
	}
	if !added {
		return f.RunFilterPlugins(ctx, state, pod, nodeInfo)
	}
	if s := f.RunFilterPlugins(ctx, withState, pod, withNode); !s.IsSuccess() {
		return s
	}
	return f.RunFilterPlugins(ctx, state, pod, nodeInfo)
}

// addNominatedPods returns copies of state and nodeInfo with the pods
// nominated to the node at the pod's priority or above added, and whether
// there were any.
func (f *Framework) addNominatedPods(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) (bool, *framework.CycleState, *framework.NodeInfo, error) {
	if f.nominator == nil || nodeInfo.Node() == nil {
		return false, state, nodeInfo, nil
	}
	nominated := f.nominator.NominatedPodsForNode(nodeInfo.Name())
	if len(nominated) == 0 {
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
