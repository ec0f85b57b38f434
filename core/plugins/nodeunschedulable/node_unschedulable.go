package nodeunschedulable

import (
	"context"
	"encoding/json"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.NodeUnschedulable

// ErrReasonUnschedulable is the filter reason for a cordoned node.
const ErrReasonUnschedulable = "node(s) were unschedulable"

// NodeUnschedulable filters cordoned nodes.
type NodeUnschedulable struct{}

var (
	_ framework.FilterPlugin      = (*NodeUnschedulable)(nil)
	_ framework.SignPlugin        = (*NodeUnschedulable)(nil)
	_ framework.EnqueueExtensions = (*NodeUnschedulable)(nil)
)

// New returns the plugin. It has no args; like kube-scheduler it ignores
// any it is given.
func New(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
	return &NodeUnschedulable{}, nil
}

// Name returns Name.
func (*NodeUnschedulable) Name() string { return Name }

// Filter rejects a cordoned node unless the pod tolerates the unschedulable
// taint. Evicting pods does not uncordon a node, so the code is
// UnschedulableAndUnresolvable.
func (*NodeUnschedulable) Filter(_ context.Context, _ *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if nodeInfo.Node().Unschedulable && !toleratesUnschedulable(pod) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnschedulable)
	}
	return nil
}

// toleratesUnschedulable reports whether the pod tolerates the taint
// node.kubernetes.io/unschedulable:NoSchedule that stands for a cordon.
func toleratesUnschedulable(pod *model.Pod) bool {
	taint := model.Taint{Key: model.TaintNodeUnschedulable, Effect: model.TaintEffectNoSchedule}
	return model.TolerationsTolerate(pod.Tolerations, &taint)
}

// EventsToRegister: a node added or uncordoned, or the pod gaining the
// toleration.
func (*NodeUnschedulable) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd | framework.ActionUpdateNodeUnschedulable},
			QueueingHintFn: isSchedulableAfterNodeChange,
		},
		{
			Event:          framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionUpdatePodToleration},
			QueueingHintFn: isSchedulableAfterPodTolerationChange,
		},
	}, nil
}

// isSchedulableAfterNodeChange queues the pod for a schedulable node that
// was added, or a node that was uncordoned.
func isSchedulableAfterNodeChange(_ *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, updated, err := helper.As[*model.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil || updated.Unschedulable {
		return framework.QueueSkip, nil
	}
	if old == nil || old.Unschedulable {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// isSchedulableAfterPodTolerationChange queues the pod when its own update
// makes it tolerate cordoned nodes. The rejected pod did not tolerate them
// before, so the old object need not be checked.
func isSchedulableAfterPodTolerationChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, updated, err := helper.As[*model.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated != nil && updated.UID == pod.UID && toleratesUnschedulable(updated) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// SignPod signs what Filter reads: the tolerations.
func (*NodeUnschedulable) SignPod(pod *model.Pod, sig *framework.Signature) {
	sig.Tolerations(pod.Tolerations)
}
