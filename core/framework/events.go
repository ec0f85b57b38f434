package framework

import "github.com/berthsched/berth/core/model"

// EventResource is the kind of object a cluster event is about.
type EventResource string

const (
	// EventPod: a pod of any state. Registering for it covers
	// AssignedPod and UnscheduledPod.
	EventPod EventResource = "Pod"
	// EventAssignedPod: a pod bound (or assumed) to a node.
	EventAssignedPod EventResource = "AssignedPod"
	// EventUnscheduledPod: a pending pod (used for the pod's own updates).
	EventUnscheduledPod EventResource = "UnscheduledPod"
	EventNode           EventResource = "Node"
	EventNamespace      EventResource = "Namespace"
	EventPDB            EventResource = "PodDisruptionBudget"
	EventPriorityClass  EventResource = "PriorityClass"
	// DRA objects (resource.k8s.io): a claim's old and new objects are
	// *resourceapi.ResourceClaim (a deallocation is an update whose new
	// claim has no allocation).
	EventResourceClaim EventResource = "ResourceClaim"
	EventResourceSlice EventResource = "ResourceSlice"
	EventDeviceClass   EventResource = "DeviceClass"
	// Storage objects: the old and new objects are Kubernetes' types
	// (*corev1.PersistentVolume, *storagev1.StorageClass, ...).
	EventPersistentVolume      EventResource = "PersistentVolume"
	EventPersistentVolumeClaim EventResource = "PersistentVolumeClaim"
	EventStorageClass          EventResource = "StorageClass"
	EventCSINode               EventResource = "CSINode"
	EventCSIDriver             EventResource = "CSIDriver"
	EventCSIStorageCapacity    EventResource = "CSIStorageCapacity"
	// EventWildCard matches every resource.
	EventWildCard EventResource = "*"
)

// ActionType is a bit set of what happened to the object.
type ActionType uint64

const (
	ActionAdd ActionType = 1 << iota
	ActionDelete

	ActionUpdateNodeAllocatable
	ActionUpdateNodeLabel
	ActionUpdateNodeTaint
	ActionUpdateNodeUnschedulable // spec.unschedulable changed (a taint in kube terms)

	ActionUpdatePodLabel
	ActionUpdatePodScaleDown // requests lowered
	ActionUpdatePodToleration
	ActionUpdatePodSchedulingGatesEliminated
	// ActionUpdatePodOther is a pod update none of the finer pod actions
	// describes (readiness, nomination, a request raised, ...). Only the
	// registrations that include it (ActionUpdate, ActionAll) see it.
	ActionUpdatePodOther

	ActionUpdateOther // any update of a resource without finer actions

	actionEnd
)

// ActionAll matches every action; ActionUpdate every kind of update.
const (
	ActionAll    = actionEnd - 1
	ActionUpdate = ActionAll &^ (ActionAdd | ActionDelete)
)

// ClusterEvent describes a change in the cluster.
type ClusterEvent struct {
	Resource   EventResource
	ActionType ActionType
	// Label names the event in metrics and logs.
	Label string
}

// Matches reports whether a registered event e covers the incoming event
// in: the resources agree and every action of in is one e registered, so
// an incoming event only reaches registrations at least as broad as it is.
// Incoming events are as specific as their source can tell (one action
// each); a pod update that changes nothing a finer action names arrives as
// ActionUpdatePodOther, which only registrations for every pod update
// (ActionUpdate, ActionAll) cover. kube-scheduler 1.36 (MatchClusterEvents)
// states the rule as overlap plus incoming <= registered, which is this
// subset test for the events either scheduler raises.
func (e ClusterEvent) Matches(in ClusterEvent) bool {
	if in.ActionType == 0 || in.ActionType&^e.ActionType != 0 {
		return false
	}
	switch {
	case e.Resource == EventWildCard, e.Resource == in.Resource:
		return true
	case e.Resource == EventPod:
		return in.Resource == EventAssignedPod || in.Resource == EventUnscheduledPod
	}
	return false
}

// QueueingHint is a plugin's verdict on whether an event may make a pod it
// rejected schedulable.
type QueueingHint int

const (
	// QueueSkip: the event cannot help; leave the pod where it is.
	QueueSkip QueueingHint = iota
	// Queue: the event may help; move the pod to backoffQ or activeQ.
	Queue
)

// QueueingHintFn inspects an event for a rejected pod. oldObj and newObj are
// *model.Node, *model.Pod, ... (nil for add and delete respectively).
type QueueingHintFn func(pod *model.Pod, oldObj, newObj any) (QueueingHint, error)

// ClusterEventWithHint registers an event with an optional hint; a nil hint
// always queues.
type ClusterEventWithHint struct {
	Event          ClusterEvent
	QueueingHintFn QueueingHintFn
}
