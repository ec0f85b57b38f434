package inprocess

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/simulate"
)

// SimulateBinds runs core/simulate on the workload's cluster (nodes,
// classes, running pods, then the pending pods in creation order) and
// returns the node each pending pod is bound to. percentage is the
// percentageOfNodesToScore to simulate with (0: adaptive, as berthd's
// default configuration). Workloads with churn cannot be simulated.
func SimulateBinds(ctx context.Context, w *workload.Workload, reg runtime.Registry, cfg *config.Config, percentage int32) (map[string]string, error) {
	for _, ev := range w.Stream {
		if ev.Op != workload.AddPod {
			return nil, fmt.Errorf("simulate %s: the workload changes nodes while scheduling", w.Name)
		}
	}
	pods := make([]*model.Pod, 0, len(w.Existing)+len(w.Pending))
	pods = append(append(pods, w.Existing...), w.Pending...)
	lines, err := simulate.Run(ctx, simulate.Input{
		Nodes: w.Nodes, Pods: pods, PriorityClasses: w.PriorityClasses, Config: cfg,
	}, simulate.Options{Registry: reg, PercentageOfNodesToScore: &percentage})
	if err != nil {
		return nil, fmt.Errorf("simulate %s: %w", w.Name, err)
	}
	uid := make(map[string]string, len(w.Pending))
	for _, p := range w.Pending {
		uid[p.Key()] = p.UID
	}
	binds := make(map[string]string, len(w.Pending))
	for _, l := range lines {
		if l.Result == simulate.ResultBound {
			binds[uid[l.Pod]] = l.Node
		}
	}
	return binds, nil
}
