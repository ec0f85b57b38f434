package runtime

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// RunReservePluginsReserve runs Reserve on every Reserve plugin in order
// and stops at the first failure: a rejection names the plugin, anything
// else becomes an Error. The caller then runs
// RunReservePluginsUnreserve.
func (f *Framework) RunReservePluginsReserve(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeName string) (status *framework.Status) {
	start := f.now()
	defer func() { f.observePoint(PointReserve, start, status.Code()) }()
	for _, pl := range f.reserve {
		pstart := f.now()
		s := pl.Reserve(ctx, state, pod, nodeName)
		f.observePlugin(PointReserve, pl.Name(), pstart, s.Code())
		switch {
		case s.IsSuccess():
		case s.IsRejected():
			return s.WithPlugin(pl.Name())
		default:
			return framework.AsStatus(fmt.Errorf("running Reserve plugin %q: %w", pl.Name(), s.AsError()))
		}
	}
	return nil
}

// RunReservePluginsUnreserve runs Unreserve on every Reserve plugin, in
// the reverse order of Reserve. Unreserve must be idempotent: it also runs
// for plugins whose Reserve did not run or failed.
func (f *Framework) RunReservePluginsUnreserve(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeName string) {
	start := f.now()
	for i := len(f.reserve) - 1; i >= 0; i-- {
		pl := f.reserve[i]
		pstart := f.now()
		pl.Unreserve(ctx, state, pod, nodeName)
		f.observePlugin(PointUnreserve, pl.Name(), pstart, framework.Success)
	}
	f.observePoint(PointUnreserve, start, framework.Success)
}
