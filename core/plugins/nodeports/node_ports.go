package nodeports

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.NodePorts

// ErrReason is the filter reason for a port conflict.
const ErrReason = "node(s) didn't have free ports for the requested pod ports"

const preFilterStateKey framework.StateKey = "PreFilter" + Name

// NodePorts filters nodes by host port conflicts.
type NodePorts struct{}

var (
	_ framework.PreFilterPlugin   = (*NodePorts)(nil)
	_ framework.FilterPlugin      = (*NodePorts)(nil)
	_ framework.SignPlugin        = (*NodePorts)(nil)
	_ framework.EnqueueExtensions = (*NodePorts)(nil)
)

// New returns the plugin. It has no args; like kube-scheduler it ignores
// any it is given.
func New(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
	return &NodePorts{}, nil
}

// Name returns Name.
func (*NodePorts) Name() string { return Name }

// wantedPorts is the PreFilter state: the pod's host ports. Other pods do
// not change it, so clones share it.
type wantedPorts []model.ContainerPort

func (w wantedPorts) Clone() framework.StateData { return w }

// HostPorts returns the ports with a host port that the pod holds for its
// whole life: those of sidecars (restartable init containers) and of
// regular containers. Ordinary init containers finish before the pod runs.
func HostPorts(pod *model.Pod) []model.ContainerPort {
	var out []model.ContainerPort
	add := func(ports []model.ContainerPort) {
		for _, p := range ports {
			if p.HostPort > 0 {
				out = append(out, p)
			}
		}
	}
	for i := range pod.InitContainers {
		if pod.InitContainers[i].RestartAlways {
			add(pod.InitContainers[i].Ports)
		}
	}
	for i := range pod.Containers {
		add(pod.Containers[i].Ports)
	}
	return out
}

// PreFilter records the pod's host ports, and Skips a pod without any.
func (*NodePorts) PreFilter(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	ports := HostPorts(pod)
	if len(ports) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, wantedPorts(ports))
	return nil, nil
}

// PreFilterExtensions returns nil: the state does not depend on other pods.
func (*NodePorts) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node where a wanted port is in use. Evicting the holder
// frees the port, so the code is Unschedulable.
func (*NodePorts) Filter(_ context.Context, state *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	want, ok := framework.ReadAs[wantedPorts](state, preFilterStateKey)
	if !ok {
		return framework.AsStatus(fmt.Errorf("%s: reading %q from cycle state: not found", Name, preFilterStateKey))
	}
	if !fits(want, nodeInfo.UsedPorts) {
		return framework.NewStatus(framework.Unschedulable, ErrReason)
	}
	return nil
}

// Fits reports whether none of the pod's host ports is in use on the node.
func Fits(pod *model.Pod, nodeInfo *framework.NodeInfo) bool {
	return fits(HostPorts(pod), nodeInfo.UsedPorts)
}

func fits(want []model.ContainerPort, used framework.HostPortInfo) bool {
	for _, p := range want {
		if used.Conflicts(p.HostIP, p.Protocol, p.HostPort) {
			return false
		}
	}
	return true
}

// EventsToRegister: a placed pod deleted (ports of a pod never change) or
// a node added.
func (*NodePorts) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionDelete},
			QueueingHintFn: isSchedulableAfterPodDeleted,
		},
		{Event: framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd}},
	}, nil
}

// isSchedulableAfterPodDeleted queues the pod when the deleted pod was
// placed (or nominated) and held one of the ports the pod wants.
func isSchedulableAfterPodDeleted(pod *model.Pod, oldObj, _ any) (framework.QueueingHint, error) {
	deleted, _, err := helper.As[*model.Pod](oldObj, nil)
	if err != nil {
		return framework.Queue, err
	}
	if deleted == nil || (deleted.NodeName == "" && deleted.NominatedNodeName == "") {
		return framework.QueueSkip, nil
	}
	freed := HostPorts(deleted)
	if len(freed) == 0 {
		return framework.QueueSkip, nil
	}
	var held framework.HostPortInfo
	for _, p := range freed {
		held.Add(p.HostIP, p.Protocol, p.HostPort)
	}
	if fits(HostPorts(pod), held) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// SignPod signs what PreFilter reads: the host ports of the containers and
// sidecars.
func (*NodePorts) SignPod(pod *model.Pod, sig *framework.Signature) {
	ports := HostPorts(pod)
	sig.Int(int64(len(ports)))
	for _, p := range ports {
		sig.Int(int64(p.HostPort))
		sig.Int(int64(p.ContainerPort))
		sig.String(p.HostIP)
		sig.String(p.Protocol)
	}
}
