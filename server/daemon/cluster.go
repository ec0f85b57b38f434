package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/statesvc"
)

// cluster is the scheduler as the state service drives it, with the
// outcomes of binds and the deletions of pods told to the decision log
// (which keeps store.Assumed, store.Nominations and store.Evictions in
// step) and the binds restored after a restart applied to re-listed pods.
type cluster struct {
	*scheduler.Scheduler
	log    *decisionlog.Log
	logger *slog.Logger
}

var _ statesvc.Cluster = (*cluster)(nil)

// AddPod upserts a pod. A pod arriving with node_name settles its bind;
// a pod re-listed without node_name whose bind from before a restart is
// outstanding is kept on that bind's node; a pending pod sent without a
// nomination gets the one the log holds (as kube's pod status would carry
// it), so a nomination restored after a restart steers the pod's next
// attempt exactly as before.
func (c *cluster) AddPod(ctx context.Context, pod *model.Pod) error {
	if pod.NodeName == "" {
		return c.Scheduler.AddPod(ctx, c.withRestored(pod))
	}
	if err := c.Scheduler.AddPod(ctx, pod); err != nil {
		return err
	}
	return c.log.Settle(ctx, pod.UID, false)
}

// withRestored returns a pending pod as AddPod gives it to the scheduler:
// held on the node of its bind from before a restart, or carrying the
// nomination the log holds.
func (c *cluster) withRestored(pod *model.Pod) *model.Pod {
	if node, restored, ok := c.log.OutstandingBind(pod.UID); ok && restored {
		held := *pod
		held.NodeName = node
		return &held
	}
	if node, ok := c.log.Nomination(pod.UID); ok && pod.NominatedNodeName == "" {
		nominated := *pod
		nominated.NominatedNodeName = node
		return &nominated
	}
	return pod
}

// CheckAdmission checks the pod AddPod would give the scheduler.
func (c *cluster) CheckAdmission(pod *model.Pod) error {
	if pod.NodeName == "" {
		pod = c.withRestored(pod)
	}
	return c.Scheduler.CheckAdmission(pod)
}

// UpdatePod is AddPod.
func (c *cluster) UpdatePod(ctx context.Context, pod *model.Pod) error { return c.AddPod(ctx, pod) }

// forgetStaleEvictions drops the evictions restored after a restart whose
// pods a complete re-list did not bring back: they were deleted while
// berthd was down, so their records go as a deletion's would.
func (c *cluster) forgetStaleEvictions(ctx context.Context) {
	for _, uid := range c.Scheduler.ForgetUnknownEvictions() {
		if err := c.log.Forget(ctx, uid); err != nil {
			c.logger.Error("forgetting the eviction of a pod not re-listed failed", "pod_uid", uid, "err", err)
		}
	}
}

// DeletePod forgets the pod, and its bind, nomination and eviction records.
func (c *cluster) DeletePod(ctx context.Context, pod *model.Pod) error {
	err := c.Scheduler.DeletePod(ctx, pod)
	if ferr := c.log.Forget(ctx, pod.UID); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

// ReportBindResult settles a bind. A failure is durable before the pod is
// requeued, so a restart never holds a pod on a node the orchestrator gave
// up on.
func (c *cluster) ReportBindResult(ctx context.Context, podUID, node string, ok bool, reason string) error {
	held, restored, outstanding := c.log.OutstandingBind(podUID)
	if outstanding && restored {
		return c.reportRestored(ctx, podUID, held, node, ok)
	}
	if !ok && outstanding && held == node {
		if err := c.log.Settle(ctx, podUID, true); err != nil {
			return err
		}
	}
	if err := c.Scheduler.ReportBindResult(ctx, podUID, node, ok, reason); err != nil {
		return err
	}
	if ok {
		return c.log.Settle(ctx, podUID, false)
	}
	return nil
}

// reportRestored settles a bind made before the restart: the pod is
// already counted on the node; a failure makes it pending again.
func (c *cluster) reportRestored(ctx context.Context, podUID, held, node string, ok bool) error {
	if held != node {
		return fmt.Errorf("report bind of %s to %s (its bind is to %s): %w", podUID, node, held, scheduler.ErrNoBindInFlight)
	}
	if ok {
		return c.log.Settle(ctx, podUID, false)
	}
	if err := c.log.Settle(ctx, podUID, true); err != nil {
		return err
	}
	if _, found := c.Scheduler.Pod(podUID); !found {
		return nil // re-listed later, it arrives pending
	}
	return c.Scheduler.Unbind(ctx, podUID)
}
