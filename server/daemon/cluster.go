package daemon

import (
	"context"
	"log/slog"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/nodeconditions"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/server/pressuresvc"
	"github.com/berthsched/berth/server/statesvc"
	"github.com/berthsched/berth/server/tainteviction"
)

// sides is the scheduler's write side and its read side as one value.
type sides struct {
	*scheduler.Scheduler
	scheduler.View
}

func newSides(s *scheduler.Scheduler) sides { return sides{s, s.View()} }

// cluster is what the state service drives: the scheduler, with the calls
// that outcomes change routed through the book's rules
// (podbook.Outcomes), which apply them to the scheduler in step with the
// book. It holds no logic of its own.
type cluster struct {
	sides
	outcomes *podbook.Outcomes
	// pressure adds the node-pressure taints to the nodes sent.
	pressure *pressuresvc.Service
	// taints is told of the nodes and pods the scheduler accepted.
	taints *tainteviction.Controller
	// claims keeps the allocated claims durably; a claim the caller
	// deletes is dropped from it.
	claims interface {
		ForgetClaim(ctx context.Context, claim *resourceapi.ResourceClaim) error
	}
	logger *slog.Logger
	// byCondition adds the taints node conditions imply
	// (taintNodesByCondition).
	byCondition bool
}

var _ statesvc.Cluster = cluster{}

func (c cluster) AddPod(ctx context.Context, pod *model.Pod) error {
	if err := c.outcomes.AddPod(ctx, pod); err != nil {
		return err
	}
	if held, ok := c.View.Pod(pod.UID); ok {
		c.logged(c.taints.PodChanged(ctx, held), "pod", pod.Key())
	}
	return nil
}

func (c cluster) UpdatePod(ctx context.Context, pod *model.Pod) error { return c.AddPod(ctx, pod) }

func (c cluster) AddNode(ctx context.Context, node *model.Node) error {
	if c.byCondition {
		node = nodeconditions.Apply(node)
	}
	// Node-pressure taints (NoSchedule) go on top; the taint controller
	// acts on NoExecute taints only, which pressure never adds.
	if err := c.pressure.AddNode(ctx, node); err != nil {
		return err
	}
	c.logged(c.taints.NodeChanged(ctx, node), "node", node.Name)
	return nil
}

func (c cluster) DeleteNode(ctx context.Context, name string) error {
	c.pressure.DeleteNode(name)
	if err := c.Scheduler.DeleteNode(ctx, name); err != nil {
		return err
	}
	c.taints.NodeDeleted(name)
	return nil
}

// DeleteDeviceObject deletes a DRA object; an allocated claim's durable
// copy goes with it (its devices are free).
func (c cluster) DeleteDeviceObject(ctx context.Context, kind, namespace, name string) error {
	var held *resourceapi.ResourceClaim
	if kind == dra.KindResourceClaim {
		held, _ = c.View.Claim(namespace, name)
	}
	if err := c.Scheduler.DeleteDeviceObject(ctx, kind, namespace, name); err != nil {
		return err
	}
	if held != nil && held.Status.Allocation != nil {
		return c.claims.ForgetClaim(ctx, held)
	}
	return nil
}

// logged logs a taint eviction that failed: the change was accepted, and
// the eviction is retried by its deadline (server/tainteviction).
func (c cluster) logged(err error, kind, name string) {
	if err != nil {
		c.logger.Error("taint eviction failed; it is retried", kind, name, "err", err)
	}
}

func (c cluster) CheckAdmission(pod *model.Pod) error { return c.outcomes.CheckAdmission(pod) }

func (c cluster) DeletePod(ctx context.Context, pod *model.Pod) error {
	err := c.outcomes.DeletePod(ctx, pod)
	c.logged(c.taints.PodDeleted(ctx, pod.UID), "pod", pod.Key())
	return err
}

func (c cluster) ReportBindResult(ctx context.Context, podUID, node string, ok bool, reason string) error {
	return c.outcomes.ReportBindResult(ctx, podUID, node, ok, reason)
}
