package runtime

import (
	"context"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// RunPostFilterPlugins runs the PostFilter plugins (preemption) after no
// node passed Filter, with kube's rules:
//   - the first Success is returned as is;
//   - the first UnschedulableAndUnresolvable is returned, naming the plugin;
//   - any status that is not a rejection becomes an Error naming the
//     plugin;
//   - otherwise every plugin runs; the result is the last non-nil result
//     (a nil result is kube's "no-op" nomination; a result with an empty
//     NominatedNodeName clears the pod's nomination) and the status is
//     Unschedulable with every plugin's reasons, naming the first plugin.
func (f *Framework) RunPostFilterPlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, filtered *framework.NodeToStatus) (_ *framework.PostFilterResult, status *framework.Status) {
	start := f.now()
	defer func() { f.observePoint(PointPostFilter, start, status.Code()) }()
	var result *framework.PostFilterResult
	var reasons []string
	var rejector string
	for _, pl := range f.postFilter {
		pstart := f.now()
		r, s := pl.PostFilter(ctx, state, pod, filtered)
		f.observePlugin(PointPostFilter, pl.Name(), pstart, s.Code())
		switch {
		case s.IsSuccess():
			return r, s
		case s.Code() == framework.UnschedulableAndUnresolvable:
			return r, s.WithPlugin(pl.Name())
		case !s.IsRejected():
			return nil, framework.AsStatus(s.AsError()).WithPlugin(pl.Name())
		}
		if r != nil {
			result = r
		}
		reasons = append(reasons, s.Reasons()...)
		if rejector == "" {
			rejector = pl.Name()
		}
	}
	return result, framework.NewStatus(framework.Unschedulable, reasons...).WithPlugin(rejector)
}
