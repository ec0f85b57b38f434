package runtime

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// RunPreFilterPlugins runs the PreFilter plugins in order, as kube does:
//   - Skip: the plugin's Filter and PreFilterExtensions are skipped for
//     this pod (state.SkipFilterPlugins).
//   - UnschedulableAndUnresolvable: returned at once, naming the plugin.
//   - Unschedulable: remembered (the last one wins, as in kube) and the
//     remaining plugins still run, so that preemption has their state;
//     returned at the end.
//   - any other failure: an Error status naming the plugin.
//   - results narrowing the nodes are intersected; an empty intersection
//     is UnschedulableAndUnresolvable "node(s) didn't satisfy plugin X" or
//     "node(s) didn't satisfy plugin(s) [X Y] simultaneously".
//
// The returned set names the plugins whose result narrowed the nodes (the
// plugins to blame for the nodes left out); it is nil when a plugin
// rejected the pod outright.
func (f *Framework) RunPreFilterPlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo) (_ *framework.PreFilterResult, status *framework.Status, _ map[string]struct{}) {
	start := f.now()
	var skip map[string]struct{} // nil until a plugin skips
	defer func() {
		state.SkipFilterPlugins = skip
		state.FilterPlan, state.ScorePlan = nil, nil
		if status.IsSuccess() || status.Code() == framework.Unschedulable {
			// Preemption filters after an Unschedulable PreFilter too.
			state.FilterPlan = f.newFilterPlan(pod, skip)
		}
		f.observePoint(PointPreFilter, start, status.Code())
	}()
	var result *framework.PreFilterResult
	var narrowing map[string]struct{}
	var rejected *framework.Status
	for _, pl := range f.preFilter {
		r, s := f.runPreFilter(ctx, pl, state, pod, nodes)
		switch {
		case s.IsSkip():
			if skip == nil {
				skip = make(map[string]struct{})
			}
			skip[pl.Name()] = struct{}{}
			continue
		case s.Code() == framework.UnschedulableAndUnresolvable:
			return nil, s.WithPlugin(pl.Name()), nil
		case s.Code() == framework.Unschedulable:
			rejected = s.WithPlugin(pl.Name())
			continue
		case !s.IsSuccess():
			return nil, framework.AsStatus(fmt.Errorf("running PreFilter plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name()), nil
		}
		if !r.AllNodes() {
			if narrowing == nil {
				narrowing = make(map[string]struct{})
			}
			narrowing[pl.Name()] = struct{}{}
		}
		result = result.Merge(r)
		if !result.AllNodes() && len(result.NodeNames) == 0 {
			return result, framework.NewStatus(framework.UnschedulableAndUnresolvable, emptyIntersectionMsg(narrowing)), narrowing
		}
	}
	return result, rejected, narrowing
}

// emptyIntersectionMsg words kube's message for PreFilter results that
// leave no node.
func emptyIntersectionMsg(plugins map[string]struct{}) string {
	names := slices.Sorted(maps.Keys(plugins))
	if len(names) == 1 {
		return fmt.Sprintf("node(s) didn't satisfy plugin %v", names[0])
	}
	return fmt.Sprintf("node(s) didn't satisfy plugin(s) %v simultaneously", names)
}

func (f *Framework) runPreFilter(ctx context.Context, pl framework.PreFilterPlugin, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	start := f.now()
	r, s := pl.PreFilter(ctx, state, pod, nodes)
	f.observePlugin(PointPreFilter, pl.Name(), start, s.Code())
	return r, s
}

// RunPreFilterExtensionAddPod tells every PreFilter plugin with extensions
// (and not skipped for this pod) that podInfoToAdd now runs on nodeInfo.
// The first failure stops and is returned as an Error.
func (f *Framework) RunPreFilterExtensionAddPod(ctx context.Context, state *framework.CycleState, podToSchedule *model.Pod, podInfoToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	for _, pl := range f.preFilter {
		ext := pl.PreFilterExtensions()
		if ext == nil || skipped(state.SkipFilterPlugins, pl.Name()) {
			continue
		}
		if s := ext.AddPod(ctx, state, podToSchedule, podInfoToAdd, nodeInfo); !s.IsSuccess() {
			return framework.AsStatus(fmt.Errorf("running AddPod on PreFilter plugin %q: %w", pl.Name(), s.AsError()))
		}
	}
	return nil
}

// RunPreFilterExtensionRemovePod tells every PreFilter plugin with
// extensions (and not skipped for this pod) that podInfoToRemove no longer
// runs on nodeInfo. The first failure stops and is returned as an Error.
func (f *Framework) RunPreFilterExtensionRemovePod(ctx context.Context, state *framework.CycleState, podToSchedule *model.Pod, podInfoToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	for _, pl := range f.preFilter {
		ext := pl.PreFilterExtensions()
		if ext == nil || skipped(state.SkipFilterPlugins, pl.Name()) {
			continue
		}
		if s := ext.RemovePod(ctx, state, podToSchedule, podInfoToRemove, nodeInfo); !s.IsSuccess() {
			return framework.AsStatus(fmt.Errorf("running RemovePod on PreFilter plugin %q: %w", pl.Name(), s.AsError()))
		}
	}
	return nil
}

func skipped(set map[string]struct{}, name string) bool {
	_, ok := set[name]
	return ok
}
