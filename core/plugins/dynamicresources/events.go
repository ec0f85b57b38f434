package dynamicresources

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// EventsToRegister: kube 1.36's, with queueing hints on: a node added,
// relabelled or given more allocatable; a claim added or changed (hinted);
// a device class or resource slice added or changed. (Kube also registers
// the pod update that records a template claim's name; Berth makes those
// claims itself and raises their ResourceClaim add.)
func (pl *DynamicResources) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	addOrUpdate := framework.ActionAdd | framework.ActionUpdate
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd | framework.ActionUpdateNodeLabel | framework.ActionUpdateNodeAllocatable}},
		{Event: framework.ClusterEvent{Resource: framework.EventResourceClaim, ActionType: addOrUpdate}, QueueingHintFn: pl.isSchedulableAfterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.EventDeviceClass, ActionType: addOrUpdate}},
		{Event: framework.ClusterEvent{Resource: framework.EventResourceSlice, ActionType: addOrUpdate}},
	}, nil
}

// isSchedulableAfterClaimChange is kube's hint: nothing while a claim of
// the pod is still missing; a deallocation frees devices for anyone; else
// only a change to one of the pod's claims that is new or changed its
// status may help.
func (pl *DynamicResources) isSchedulableAfterClaimChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, cur, err := helper.As[*resourceapi.ResourceClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if cur == nil {
		return framework.QueueSkip, nil
	}
	if _, err := pl.podClaims(pod); err != nil {
		return framework.QueueSkip, nil
	}
	if old != nil && old.Status.Allocation != nil && cur.Status.Allocation == nil {
		return framework.Queue, nil
	}
	uses := false
	for _, e := range pod.ResourceClaims {
		if pod.Namespace == cur.Namespace && e.ClaimName == cur.Name {
			uses = true
			break
		}
	}
	switch {
	case !uses:
		return framework.QueueSkip, nil
	case old == nil:
		return framework.Queue, nil
	case equality.Semantic.DeepEqual(&old.Status, &cur.Status):
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
