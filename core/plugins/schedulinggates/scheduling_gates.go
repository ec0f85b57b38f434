package schedulinggates

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
const Name = names.SchedulingGates

// SchedulingGates keeps gated pods out of activeQ.
type SchedulingGates struct{}

var (
	_ framework.PreEnqueuePlugin  = (*SchedulingGates)(nil)
	_ framework.EnqueueExtensions = (*SchedulingGates)(nil)
)

// New returns the plugin. It has no args; like kube-scheduler it ignores
// any it is given.
func New(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
	return &SchedulingGates{}, nil
}

// Name returns Name.
func (*SchedulingGates) Name() string { return Name }

// PreEnqueue rejects a pod that still has scheduling gates, listing them:
// "waiting for scheduling gates: [a b]".
func (*SchedulingGates) PreEnqueue(_ context.Context, pod *model.Pod) *framework.Status {
	if len(pod.SchedulingGates) == 0 {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable,
		fmt.Sprintf("waiting for scheduling gates: %v", pod.SchedulingGates))
}

// EventsToRegister: only the pod's own update that removes its last gate
// can let it in.
func (*SchedulingGates) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{{
		Event:          framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionUpdatePodSchedulingGatesEliminated},
		QueueingHintFn: isSchedulableAfterGatesEliminated,
	}}, nil
}

func isSchedulableAfterGatesEliminated(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, updated, err := helper.As[*model.Pod](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if updated == nil || updated.UID != pod.UID {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
