package scheduler

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Bind binds the pod. A pod whose claims have allocations in flight (put
// there by DynamicResources' Reserve) is bound through the sink's
// BindWithClaims when it has one, with the claims as they will be
// committed; once the sink accepted the bind, the allocations are
// committed (dra.Tracker.Commit) and the claims' update events raised.
func (d *decisionSink) Bind(ctx context.Context, pod *model.Pod, nodeName string) error {
	if len(pod.ResourceClaims) == 0 {
		return d.DecisionSink.Bind(ctx, pod, nodeName)
	}
	claims := d.s.devices.BindClaims(pod)
	ds, ok := d.DecisionSink.(framework.DeviceDecisionSink)
	var err error
	if ok && len(claims) > 0 {
		err = ds.BindWithClaims(ctx, pod, nodeName, claims)
	} else {
		err = d.DecisionSink.Bind(ctx, pod, nodeName)
	}
	if err != nil {
		return err
	}
	d.s.claimEvents(ctx, d.s.devices.Commit(pod))
	return nil
}

// BindWithClaims is Bind: the claims come from the scheduler's state.
func (d *decisionSink) BindWithClaims(ctx context.Context, pod *model.Pod, nodeName string, _ []*resourceapi.ResourceClaim) error {
	return d.Bind(ctx, pod, nodeName)
}

// DeallocateClaims reports claims the scheduler deallocated (the
// DynamicResources PostFilter's, already applied to the tracker) to the
// sink, if it takes them, and raises their update events so the pods
// waiting for devices are tried again.
func (d *decisionSink) DeallocateClaims(ctx context.Context, claims []*resourceapi.ResourceClaim, reason string) error {
	changes := make([]dra.ClaimChange, len(claims))
	for i, c := range claims {
		changes[i] = dra.ClaimChange{Old: c, New: unallocated(c)}
	}
	d.s.claimEvents(ctx, changes)
	if ds, ok := d.DecisionSink.(framework.DeviceDecisionSink); ok {
		return ds.DeallocateClaims(ctx, claims, reason)
	}
	return nil
}
