package queue

import (
	"maps"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Labels of the queue's own moves, for logs.
const (
	labelScheduleAttemptFailure = "ScheduleAttemptFailure"
	labelBackoffComplete        = "BackoffComplete"
	labelPopFromBackoffQ        = "PopFromBackoffQ"
)

// Cluster events the queue raises or that callers pass to it. They are
// functions, returning a new value each time, so that no importer can
// change them.

// EventAssignedPodAdd: a bound pod was added.
func EventAssignedPodAdd() framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionAdd, Label: "AssignedPodAdd"}
}

// EventAssignedPodUpdate: a bound pod was updated.
func EventAssignedPodUpdate() framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionUpdate, Label: "AssignedPodUpdate"}
}

// EventAssignedPodDelete: a bound (or assumed) pod left its node.
func EventAssignedPodDelete() framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionDelete, Label: "AssignedPodDelete"}
}

// EventUnscheduledPodAdd: a pending pod was added.
func EventUnscheduledPodAdd() framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionAdd, Label: "UnscheduledPodAdd"}
}

// EventUnscheduledPodUpdate: a pending pod was updated.
func EventUnscheduledPodUpdate() framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionUpdate, Label: "UnscheduledPodUpdate"}
}

// EventUnscheduledPodDelete: a pending pod was deleted.
func EventUnscheduledPodDelete() framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionDelete, Label: "UnscheduledPodDelete"}
}

// EventUnschedulableTimeout is the periodic flush of pods left among the
// unschedulable pods too long; it moves every pod it is raised for.
func EventUnschedulableTimeout() framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.EventWildCard, ActionType: framework.ActionAll, Label: "UnschedulableTimeout"}
}

// EventForceActivate is raised by Activate for a pod that is in flight, so
// the pod is retried when its attempt ends.
func EventForceActivate() framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.EventWildCard, ActionType: framework.ActionAll, Label: "ForceActivate"}
}

// isWildCard reports whether e is a wildcard event, which moves pods
// whatever plugin rejected them.
func isWildCard(e framework.ClusterEvent) bool {
	return e.Resource == framework.EventWildCard && e.ActionType == framework.ActionAll
}

// PodUpdateEvents returns the events a pod update raises, as kube's
// PodSchedulingPropertiesChange does: one per kind of change the scheduler
// cares about (labels, scale-down of requests, scheduling gates removed,
// tolerations), on the AssignedPod or UnscheduledPod resource by the new
// pod's binding. An update with none of those is ActionUpdatePodOther: it
// reaches only the plugins registered for every pod update, never one that
// asked for a specific change (a readiness or nomination change does not
// wake a plugin waiting for labels).
func PodUpdateEvents(oldPod, newPod *model.Pod) []framework.ClusterEvent {
	res, prefix := framework.EventUnscheduledPod, "UnscheduledPod"
	if newPod.NodeName != "" {
		res, prefix = framework.EventAssignedPod, "AssignedPod"
	}
	var events []framework.ClusterEvent
	add := func(a framework.ActionType, name string) {
		events = append(events, framework.ClusterEvent{Resource: res, ActionType: a, Label: prefix + name})
	}
	if !maps.Equal(oldPod.Labels, newPod.Labels) {
		add(framework.ActionUpdatePodLabel, "UpdatePodLabel")
	}
	if scaledDown(oldPod, newPod) {
		add(framework.ActionUpdatePodScaleDown, "UpdatePodScaleDown")
	}
	if len(newPod.SchedulingGates) == 0 && len(oldPod.SchedulingGates) != 0 {
		add(framework.ActionUpdatePodSchedulingGatesEliminated, "UpdatePodSchedulingGatesEliminated")
	}
	if len(newPod.Tolerations) != len(oldPod.Tolerations) {
		add(framework.ActionUpdatePodToleration, "UpdatePodToleration")
	}
	if len(events) == 0 {
		add(framework.ActionUpdatePodOther, "UpdatePodOther")
	}
	return events
}

// scaledDown reports whether some resource the old pod requested is
// requested less, or not at all, by the new one.
func scaledDown(oldPod, newPod *model.Pod) bool {
	o, n := model.ComputeRequests(oldPod).Requests, model.ComputeRequests(newPod).Requests
	for _, name := range []string{model.ResourceCPU, model.ResourceMemory, model.ResourceEphemeralStorage, model.ResourcePods} {
		if n.Get(name) < o.Get(name) {
			return true
		}
	}
	for name, v := range o.Scalar {
		if nv, ok := n.Scalar[name]; !ok || nv < v {
			return true
		}
	}
	return false
}
