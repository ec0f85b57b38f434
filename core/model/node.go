package model

import "time"

// Node is a machine pods can be placed on.
type Node struct {
	Name          string
	Labels        map[string]string
	Taints        []Taint
	Allocatable   ResourceList
	Unschedulable bool // cordoned
	// Conditions are the node's conditions as sent (NodeCondition*).
	Conditions []NodeCondition
	// DerivedTaints are the taints Berth added to Taints from Conditions
	// (core/nodeconditions), kept apart to show them apart from the sent
	// ones; nil when none were.
	DerivedTaints []Taint
	// Images are the container images present on the node (status.images),
	// read by the ImageLocality score.
	Images []ContainerImage
}

// ContainerImage is an image present on a node: the names it is known by
// and its size in bytes.
type ContainerImage struct {
	Names     []string
	SizeBytes int64
}

// NodeCondition is one condition of a node.
type NodeCondition struct {
	Type               NodeConditionType
	Status             ConditionStatus
	LastTransitionTime time.Time
	Reason, Message    string
}

// NodeConditionType names a node condition (kube's names).
type NodeConditionType string

const (
	NodeReady              NodeConditionType = "Ready"
	NodeMemoryPressure     NodeConditionType = "MemoryPressure"
	NodeDiskPressure       NodeConditionType = "DiskPressure"
	NodePIDPressure        NodeConditionType = "PIDPressure"
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// ConditionStatus is a condition's status (kube's words).
type ConditionStatus string

const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Well-known node labels.
const (
	LabelHostname = "kubernetes.io/hostname"
	LabelZone     = "topology.kubernetes.io/zone"
	LabelRegion   = "topology.kubernetes.io/region"
)

// TaintNodeUnschedulable is the taint key that tolerations use to tolerate a
// cordoned node (the NodeUnschedulable filter checks the field).
const TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"

// Namespace carries the labels a namespaceSelector matches against.
type Namespace struct {
	Name   string
	Labels map[string]string
}

// PriorityClass maps a class name to a priority value.
type PriorityClass struct {
	Name             string
	Value            int32
	GlobalDefault    bool
	PreemptionPolicy PreemptionPolicy // "" means PreemptLowerPriority
	Description      string
}

// Priority value bounds.
const (
	HighestUserDefinablePriority int32 = 1000000000
	SystemCriticalPriority       int32 = 2 * HighestUserDefinablePriority
)

// IntOrPercent is an absolute count or a percentage (0..100) of a total.
type IntOrPercent struct {
	Value     int32
	IsPercent bool
}

// PodDisruptionBudget limits how many pods matching Selector may be disrupted.
// Exactly one of MinAvailable and MaxUnavailable is set.
type PodDisruptionBudget struct {
	Namespace      string
	Name           string
	Selector       *LabelSelector // nil matches nothing, empty matches all
	MinAvailable   *IntOrPercent
	MaxUnavailable *IntOrPercent
	// DisruptionsAllowed, when set by the caller, overrides the figure Berth
	// would compute from the pods it knows.
	DisruptionsAllowed *int32
	// DisruptedPods names (by pod name, in the budget's namespace) the pods
	// whose eviction was already counted against the budget, with when
	// (kube's status.disruptedPods). They are not healthy, and preemption
	// does not count their eviction against the budget again.
	DisruptedPods map[string]time.Time
	// UnhealthyPodEvictionPolicy says when the eviction API lets a covered
	// pod that is not ready go; "" is UnhealthyPodEvictionIfHealthyBudget.
	UnhealthyPodEvictionPolicy UnhealthyPodEvictionPolicy
}

// UnhealthyPodEvictionPolicy is kube's spec.unhealthyPodEvictionPolicy.
type UnhealthyPodEvictionPolicy string

const (
	// UnhealthyPodEvictionIfHealthyBudget lets a pod that is not ready go
	// without charging the budget only while the budget has as many healthy
	// pods as it wants (and wants some).
	UnhealthyPodEvictionIfHealthyBudget UnhealthyPodEvictionPolicy = "IfHealthyBudget"
	// UnhealthyPodEvictionAlwaysAllow always lets a pod that is not ready go,
	// without charging the budget.
	UnhealthyPodEvictionAlwaysAllow UnhealthyPodEvictionPolicy = "AlwaysAllow"
)
