package runtime

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// RunPreBindPlugins runs the PreBind plugins in order and stops at the
// first failure: a rejection names the plugin, anything else becomes an
// Error.
func (f *Framework) RunPreBindPlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeName string) (status *framework.Status) {
	start := f.now()
	defer func() { f.observePoint(PointPreBind, start, status.Code()) }()
	for _, pl := range f.preBind {
		pstart := f.now()
		s := pl.PreBind(ctx, state, pod, nodeName)
		f.observePlugin(PointPreBind, pl.Name(), pstart, s.Code())
		switch {
		case s.IsSuccess():
		case s.IsRejected():
			return s.WithPlugin(pl.Name())
		default:
			return framework.AsStatus(fmt.Errorf("running PreBind plugin %q: %w", pl.Name(), s.AsError()))
		}
	}
	return nil
}

// RunBindPlugins offers the pod to the Bind plugins in order until one
// does not Skip; its status is the result (a rejection names the plugin,
// a failure becomes an Error). When every plugin skips, the result is
// Skip.
func (f *Framework) RunBindPlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeName string) (status *framework.Status) {
	start := f.now()
	defer func() { f.observePoint(PointBind, start, status.Code()) }()
	if len(f.bind) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	for _, pl := range f.bind {
		pstart := f.now()
		status = pl.Bind(ctx, state, pod, nodeName)
		f.observePlugin(PointBind, pl.Name(), pstart, status.Code())
		switch {
		case status.IsSkip():
			continue
		case status.IsSuccess():
			return status
		case status.IsRejected():
			return status.WithPlugin(pl.Name())
		default:
			return framework.AsStatus(fmt.Errorf("running Bind plugin %q: %w", pl.Name(), status.AsError()))
		}
	}
	return status
}

// RunPostBindPlugins tells every PostBind plugin, in order, that the pod
// is bound.
func (f *Framework) RunPostBindPlugins(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeName string) {
	start := f.now()
	for _, pl := range f.postBind {
		pstart := f.now()
		pl.PostBind(ctx, state, pod, nodeName)
		f.observePlugin(PointPostBind, pl.Name(), pstart, framework.Success)
	}
	f.observePoint(PointPostBind, start, framework.Success)
}
