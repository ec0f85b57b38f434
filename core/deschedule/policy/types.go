package policy

import (
	"time"

	"github.com/berthsched/berth/core/model"
)

// Plugin names, as the Descheduler spells them.
const (
	DefaultEvictor                              = "DefaultEvictor"
	LowNodeUtilization                          = "LowNodeUtilization"
	HighNodeUtilization                         = "HighNodeUtilization"
	RemoveDuplicates                            = "RemoveDuplicates"
	RemovePodsViolatingInterPodAntiAffinity     = "RemovePodsViolatingInterPodAntiAffinity"
	RemovePodsViolatingNodeAffinity             = "RemovePodsViolatingNodeAffinity"
	RemovePodsViolatingNodeTaints               = "RemovePodsViolatingNodeTaints"
	RemovePodsViolatingTopologySpreadConstraint = "RemovePodsViolatingTopologySpreadConstraint"
	RemovePodsHavingTooManyRestarts             = "RemovePodsHavingTooManyRestarts"
	PodLifeTime                                 = "PodLifeTime"
	RemoveFailedPods                            = "RemoveFailedPods"
)

// Policy is a DeschedulerPolicy after defaulting.
type Policy struct {
	Profiles []Profile
	// NodeSelector restricts the nodes the pass looks at (a label
	// selector string, as kubectl's -l); nil means every node.
	NodeSelector *model.Selector
	// Eviction limits of one pass, across profiles; nil is no limit.
	MaxPodsToEvictPerNode      *uint
	MaxPodsToEvictPerNamespace *uint
	MaxPodsToEvictTotal        *uint
	GracePeriodSeconds         *int64
	// Interval is deschedulingInterval (Berth's addition: the Descheduler
	// takes it as a flag); zero means one pass on demand only.
	Interval time.Duration
}

// Profile is one profile: its evictor and its strategies in order.
type Profile struct {
	Name    string
	Evictor EvictorArgs
	// Deschedule and Balance are the enabled plugins of each extension
	// point, in order, with their args.
	Deschedule []Strategy
	Balance    []Strategy
}

// Strategy is an enabled plugin; Args is one of the *...Args types.
type Strategy struct {
	Name string
	Args any
}

// Namespaces includes or excludes namespaces (only one may be set).
type Namespaces struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// Contains reports whether ns passes: in Include when given, not in
// Exclude.
func (n *Namespaces) Contains(ns string) bool {
	if n == nil {
		return true
	}
	if len(n.Include) > 0 {
		return contains(n.Include, ns)
	}
	return !contains(n.Exclude, ns)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Protection names one of the DefaultEvictor's pod protections.
type Protection string

const (
	PodsWithLocalStorage   Protection = "PodsWithLocalStorage"
	DaemonSetPods          Protection = "DaemonSetPods"
	SystemCriticalPods     Protection = "SystemCriticalPods"
	FailedBarePods         Protection = "FailedBarePods"
	PodsWithPVC            Protection = "PodsWithPVC"
	PodsWithoutPDB         Protection = "PodsWithoutPDB"
	PodsWithResourceClaims Protection = "PodsWithResourceClaims"
)

// EvictorArgs is the DefaultEvictor after defaulting: the protections in
// force (legacy booleans folded in) and the priority threshold resolved.
type EvictorArgs struct {
	NodeSelector           *model.Selector
	LabelSelector          *model.Selector
	NamespaceLabelSelector *model.Selector
	// PriorityThreshold: pods at or above it are not evicted (applies
	// with the SystemCriticalPods protection, as in the Descheduler).
	PriorityThreshold int32
	NodeFit           bool
	MinReplicas       uint
	MinPodAge         *time.Duration
	// NoEvictionMandatory: the prefer-no-eviction annotation excludes.
	NoEvictionMandatory bool
	Protections         map[Protection]bool
}

// LowNodeUtilizationArgs are LowNodeUtilization's args.
type LowNodeUtilizationArgs struct {
	UseDeviationThresholds bool
	Thresholds             map[string]float64
	TargetThresholds       map[string]float64
	NumberOfNodes          int
	EvictableNamespaces    *Namespaces
	MaxEvictionsPerNode    *uint // evictionLimits.node
}

// HighNodeUtilizationArgs are HighNodeUtilization's args.
type HighNodeUtilizationArgs struct {
	Thresholds    map[string]float64
	NumberOfNodes int
	// OnlyThresholdingResources: evictionModes OnlyThresholdingResources.
	OnlyThresholdingResources bool
	EvictableNamespaces       *Namespaces
}

// RemoveDuplicatesArgs are RemoveDuplicates' args.
type RemoveDuplicatesArgs struct {
	Namespaces        *Namespaces
	ExcludeOwnerKinds []string
}

// Filtered are the namespaces and label selector most strategies take.
type Filtered struct {
	Namespaces    *Namespaces
	LabelSelector *model.Selector
}

// Matches reports whether a pod passes the namespaces and selector.
func (f *Filtered) Matches(p *model.Pod) bool {
	return f.Namespaces.Contains(p.Namespace) && (f.LabelSelector == nil || f.LabelSelector.Matches(p.Labels))
}

// InterPodAntiAffinityArgs are RemovePodsViolatingInterPodAntiAffinity's.
type InterPodAntiAffinityArgs struct{ Filtered }

// NodeAffinityArgs are RemovePodsViolatingNodeAffinity's args.
type NodeAffinityArgs struct {
	Filtered
	NodeAffinityType []string
}

// NodeTaintsArgs are RemovePodsViolatingNodeTaints' args.
type NodeTaintsArgs struct {
	Filtered
	IncludePreferNoSchedule bool
	ExcludedTaints          []string
	IncludedTaints          []string // nil: every taint
}

// TopologySpreadArgs are RemovePodsViolatingTopologySpreadConstraint's.
type TopologySpreadArgs struct {
	Filtered
	Constraints            []model.UnsatisfiableConstraintAction
	TopologyBalanceNodeFit bool
}

// TooManyRestartsArgs are RemovePodsHavingTooManyRestarts' args.
type TooManyRestartsArgs struct {
	Filtered
	PodRestartThreshold     int32
	IncludingInitContainers bool
	States                  []string
}

// PodLifeTimeArgs are PodLifeTime's args.
type PodLifeTimeArgs struct {
	Filtered
	OwnerKinds                   *Namespaces // include/exclude kinds
	MaxPodLifeTimeSeconds        *uint
	States                       []string
	ExitCodes                    []int32
	IncludingInitContainers      bool
	IncludingEphemeralContainers bool
}
