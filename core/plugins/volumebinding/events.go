package volumebinding

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// EventsToRegister: kube 1.37's. A StorageClass, PersistentVolume or
// PersistentVolumeClaim added or changed (the claim hinted: only one the
// pod uses), a node added or relabelled, a CSINode added or changed, a
// CSIDriver changed, a CSIStorageCapacity added or changed.
func (pl *VolumeBinding) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	addOrUpdate := framework.ActionAdd | framework.ActionUpdate
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.EventStorageClass, ActionType: addOrUpdate}},
		{Event: framework.ClusterEvent{Resource: framework.EventPersistentVolumeClaim, ActionType: addOrUpdate}, QueueingHintFn: isSchedulableAfterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.EventPersistentVolume, ActionType: addOrUpdate}},
		{Event: framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd | framework.ActionUpdateNodeLabel}},
		{Event: framework.ClusterEvent{Resource: framework.EventCSINode, ActionType: addOrUpdate}},
		{Event: framework.ClusterEvent{Resource: framework.EventCSIDriver, ActionType: framework.ActionUpdate}},
		{Event: framework.ClusterEvent{Resource: framework.EventCSIStorageCapacity, ActionType: addOrUpdate}},
	}, nil
}

// isSchedulableAfterClaimChange is kube's hint: only a claim of the pod's
// namespace that one of its volumes uses may help.
func isSchedulableAfterClaimChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, cur, err := helper.As[*corev1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if cur == nil || cur.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for _, v := range pod.Volumes {
		if v.ClaimName == cur.Name {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
