package nodename

import (
	"context"
	"encoding/json"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.NodeName

// ErrReason is the filter reason for a node the pod does not name.
const ErrReason = "node(s) didn't match the requested node name"

// NodeName filters nodes by the pod's spec.nodeName.
type NodeName struct{}

var (
	_ framework.FilterPlugin      = (*NodeName)(nil)
	_ framework.SignPlugin        = (*NodeName)(nil)
	_ framework.EnqueueExtensions = (*NodeName)(nil)
)

// New returns the plugin. It has no args; like kube-scheduler it ignores
// any it is given.
func New(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
	return &NodeName{}, nil
}

// Name returns Name.
func (*NodeName) Name() string { return Name }

// Filter rejects every node but the one the pod names, if it names one.
// Preemption cannot change a name, so the code is
// UnschedulableAndUnresolvable.
func (*NodeName) Filter(_ context.Context, _ *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if !Fits(pod, nodeInfo) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason)
	}
	return nil
}

// Fits reports whether the pod names no node or names this one.
func Fits(pod *model.Pod, nodeInfo *framework.NodeInfo) bool {
	return pod.NodeName == "" || pod.NodeName == nodeInfo.Name()
}

// EventsToRegister: only a new node (the named one) can help.
func (*NodeName) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd}},
	}, nil
}

// SignPod signs what Filter reads: the pod's node name.
func (*NodeName) SignPod(pod *model.Pod, sig *framework.Signature) {
	sig.String(pod.NodeName)
}
