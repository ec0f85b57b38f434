package daemon

import (
	"context"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/ledger"
	"github.com/berthsched/berth/server/pressuresvc"
	"github.com/berthsched/berth/server/statesvc"
)

// sides is the scheduler's write side and its read side as one value.
type sides struct {
	*scheduler.Scheduler
	scheduler.View
}

func newSides(s *scheduler.Scheduler) sides { return sides{s, s.View()} }

// cluster is what the state service drives: the scheduler, with the calls
// that outcomes change routed through the ledger's rules
// (ledger.Outcomes), which apply them to the scheduler in step with the
// ledger. It holds no logic of its own.
type cluster struct {
	sides
	outcomes *ledger.Outcomes
	// pressure adds the node-pressure taints to the nodes sent.
	pressure *pressuresvc.Service
}

func (c cluster) AddNode(ctx context.Context, node *model.Node) error {
	return c.pressure.AddNode(ctx, node)
}

func (c cluster) DeleteNode(ctx context.Context, name string) error {
	c.pressure.DeleteNode(name)
	return c.sides.DeleteNode(ctx, name)
}

var _ statesvc.Cluster = cluster{}

func (c cluster) AddPod(ctx context.Context, pod *model.Pod) error {
	return c.outcomes.AddPod(ctx, pod)
}

func (c cluster) UpdatePod(ctx context.Context, pod *model.Pod) error {
	return c.outcomes.AddPod(ctx, pod)
}

func (c cluster) CheckAdmission(pod *model.Pod) error { return c.outcomes.CheckAdmission(pod) }

func (c cluster) DeletePod(ctx context.Context, pod *model.Pod) error {
	return c.outcomes.DeletePod(ctx, pod)
}

func (c cluster) ReportBindResult(ctx context.Context, podUID, node string, ok bool, reason string) error {
	return c.outcomes.ReportBindResult(ctx, podUID, node, ok, reason)
}
