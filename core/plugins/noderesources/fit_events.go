package noderesources

import (
	"context"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// EventsToRegister: a placed pod deleted or scaled down, a node added or
// its allocatable changed.
func (f *Fit) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionDelete | framework.ActionUpdatePodScaleDown},
			QueueingHintFn: f.isSchedulableAfterPodEvent,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd | framework.ActionUpdateNodeAllocatable},
			QueueingHintFn: f.isSchedulableAfterNodeChange,
		},
	}, nil
}

// isSchedulableAfterPodEvent queues the pod when a pod that held room (on
// a node, or by nomination) is deleted, or when a scale-down frees some of
// what the pod needs.
func (f *Fit) isSchedulableAfterPodEvent(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, updated, err := helper.As[*model.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil {
		if old == nil || (old.NodeName == "" && old.NominatedNodeName == "") {
			return framework.QueueSkip, nil
		}
		return framework.Queue, nil
	}
	if old != nil && scaleDownHelps(pod, old, updated) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// scaleDownHelps reports whether the update of a pod lowers a request the
// target pod also makes: the target itself, or a placed pod that now asks
// for less of a resource the target requests.
func scaleDownHelps(target, old, updated *model.Pod) bool {
	if updated.UID == target.UID {
		return true
	}
	if updated.NodeName == "" {
		return false
	}
	before, after := model.ComputeRequests(old).Requests, model.ComputeRequests(updated).Requests
	want := model.ComputeRequests(target).Requests
	if (want.MilliCPU != 0 && before.MilliCPU > after.MilliCPU) ||
		(want.Memory != 0 && before.Memory > after.Memory) ||
		(want.EphemeralStorage != 0 && before.EphemeralStorage > after.EphemeralStorage) {
		return true
	}
	for name, q := range want.Scalar {
		if q != 0 && helper.IsScalarResourceName(name) && before.Scalar[name] > after.Scalar[name] {
			return true
		}
	}
	return false
}

// isSchedulableAfterNodeChange queues the pod for a new node it would fit
// when empty, or for a node whose allocatable grew in something the pod
// requests (or in its pod count) and that would fit it when empty.
func (f *Fit) isSchedulableAfterNodeChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, updated, err := helper.As[*model.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil {
		return framework.QueueSkip, nil
	}
	req := (&Fit{}).computePodRequest(pod)
	after := framework.NewNodeInfo(updated)
	if len(insufficient(req, after, nil)) > 0 {
		return framework.QueueSkip, nil
	}
	if old == nil {
		return framework.Queue, nil
	}
	if before := model.ResourcesFromList(old.Allocatable); allocatableGrew(req, &before, &after.Allocatable) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// allocatableGrew reports whether a node's allocatable grew from before to
// after in the pod count or in a resource the pod requests.
func allocatableGrew(req *podRequest, before, after *model.Resources) bool {
	if after.Pods > before.Pods {
		return true
	}
	if (req.milliCPU > 0 && after.MilliCPU > before.MilliCPU) ||
		(req.memory > 0 && after.Memory > before.Memory) ||
		(req.ephemeralStorage > 0 && after.EphemeralStorage > before.EphemeralStorage) {
		return true
	}
	for _, s := range req.scalars {
		if after.Scalar[s.name] > before.Scalar[s.name] {
			return true
		}
	}
	return false
}
