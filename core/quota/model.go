package quota

import (
	"time"

	"github.com/berthsched/berth/core/model"
)

// Objects is every Kueue object of an input.
type Objects struct {
	Flavors         []*ResourceFlavor
	ClusterQueues   []*ClusterQueue
	Cohorts         []*Cohort
	LocalQueues     []*LocalQueue
	PriorityClasses []*WorkloadPriorityClass
	Workloads       []*Workload // in input order
	Config          Config
}

// Empty reports whether no Kueue object was given.
func (o *Objects) Empty() bool {
	return o == nil || len(o.Flavors)+len(o.ClusterQueues)+len(o.Cohorts)+len(o.LocalQueues)+len(o.Workloads) == 0
}

// Config is the part of Kueue's Configuration that changes admission.
type Config struct {
	FairSharing          bool
	PreemptionStrategies []string // LessThanOrEqualToFinalShare, LessThanInitialShare
}

// ResourceFlavor describes a kind of node quota is given for.
type ResourceFlavor struct {
	Name        string
	NodeLabels  map[string]string
	NodeTaints  []model.Taint
	Tolerations []model.Toleration
}

// FlavorResource names the quota of one resource in one flavor.
type FlavorResource struct {
	Flavor, Resource string
}

// ResourceQuota is the quota of one resource of one flavor.
type ResourceQuota struct {
	Nominal        int64
	BorrowingLimit *int64 // nil: unlimited
	LendingLimit   *int64 // nil: everything may be lent
}

// FlavorQuotas is one flavor of a resource group.
type FlavorQuotas struct {
	Name      string
	Resources []ResourceEntry // in the order of the group's coveredResources
}

// ResourceEntry is the quota of a named resource.
type ResourceEntry struct {
	Name string
	ResourceQuota
}

// ResourceGroup is a set of resources given quota together, flavor by
// flavor, in order.
type ResourceGroup struct {
	CoveredResources []string
	Flavors          []FlavorQuotas
}

// Queueing strategies.
const (
	StrictFIFO     = "StrictFIFO"
	BestEffortFIFO = "BestEffortFIFO"
)

// Preemption policies (v1beta2 spelling).
const (
	PolicyNever                       = "Never"
	PolicyLowerPriority               = "LowerPriority"
	PolicyLowerOrNewerEqualPriority   = "LowerOrNewerEqualPriority"
	PolicyAny                         = "Any"
	FungibilityMayStopSearch          = "MayStopSearch"
	FungibilityTryNextFlavor          = "TryNextFlavor"
	StopPolicyNone                    = "None"
	StopPolicyHold                    = "Hold"
	StopPolicyHoldAndDrain            = "HoldAndDrain"
	preferenceBorrowingOverPreemption = "BorrowingOverPreemption"
	preferencePreemptionOverBorrowing = "PreemptionOverBorrowing"
)

// Preference values of FlavorFungibility.Preference.
const (
	BorrowingOverPreemption = preferenceBorrowingOverPreemption
	PreemptionOverBorrowing = preferencePreemptionOverBorrowing
)

// FlavorFungibility says when the flavor search stops.
type FlavorFungibility struct {
	WhenCanBorrow  string // MayStopSearch (default) or TryNextFlavor
	WhenCanPreempt string // TryNextFlavor (default) or MayStopSearch
	Preference     string // optional: BorrowingOverPreemption or PreemptionOverBorrowing
}

// BorrowWithinCohort lets a ClusterQueue preempt while borrowing.
type BorrowWithinCohort struct {
	Policy               string // Never or LowerPriority
	MaxPriorityThreshold *int32
}

// Preemption is a ClusterQueue's preemption policy.
type Preemption struct {
	WithinClusterQueue  string
	ReclaimWithinCohort string
	BorrowWithinCohort  BorrowWithinCohort
}

// ClusterQueue is a pool of quota workloads are admitted against.
type ClusterQueue struct {
	Name string
	// NamespaceSelector nil means no namespace is eligible (Kueue's
	// meaning of an absent selector).
	NamespaceSelector *model.LabelSelector
	Cohort            string
	ResourceGroups    []ResourceGroup
	QueueingStrategy  string
	FlavorFungibility FlavorFungibility
	Preemption        Preemption
	StopPolicy        string
	FairWeight        float64 // fairSharing.weight, default 1
	// AdmissionPlacement is Berth's, not Kueue's (the
	// AdmissionPlacementAnnotation): admit a workload only when all its
	// pods also fit on the nodes now.
	AdmissionPlacement bool
}

// AdmissionPlacementAnnotation, "true" on a ClusterQueue, turns on Berth's
// placement-aware admission for it; Kueue's API is left as it is.
const AdmissionPlacementAnnotation = "berth.dev/admission-placement"

// Cohort groups ClusterQueues (and cohorts) that lend to each other.
type Cohort struct {
	Name           string
	Parent         string
	ResourceGroups []ResourceGroup
	FairWeight     float64
}

// LocalQueue is a namespace's entry point to a ClusterQueue.
type LocalQueue struct {
	Namespace, Name string
	ClusterQueue    string
	StopPolicy      string
}

// Key is "namespace/name".
func (q *LocalQueue) Key() string { return q.Namespace + "/" + q.Name }

// WorkloadPriorityClass gives workloads a priority.
type WorkloadPriorityClass struct {
	Name        string
	Value       int32
	Description string // for people; admission does not read it
}

// PodSet is a group of identical pods of a workload.
type PodSet struct {
	Name         string
	Count        int32
	MinCount     *int32             // partial admission
	Requests     model.ResourceList // per pod
	NodeSelector map[string]string
	Tolerations  []model.Toleration
}

// PodSetAssignment is where an admitted pod set's quota is taken.
type PodSetAssignment struct {
	Name    string
	Flavors map[string]string // resource -> flavor
	Count   int32
}

// Admission is the quota a workload holds.
type Admission struct {
	ClusterQueue      string
	PodSetAssignments []PodSetAssignment
	// Reserved is when quota was reserved (orders preemption candidates).
	Reserved time.Time
}

// Workload is a unit of admission.
type Workload struct {
	Namespace, Name string
	UID             string
	QueueName       string
	Priority        int32
	HasPriority     bool
	// PriorityClass is the class the priority came from, if any.
	PriorityClass string
	Active        bool
	Created       time.Time
	PodSets       []PodSet
	Admission     *Admission // already admitted
	// Pods, when set, are the pending pods this workload was made for, as
	// "namespace/name" (Kueue's integrations: a pod, or a Job's pods, labelled
	// kueue.x-k8s.io/queue-name); its admission gates or releases them.
	Pods []string
	// Running, when set, are the bound pods an admitted workload was made
	// of (a running pod labelled with a queue name); if it is preempted,
	// they are evicted.
	Running []string
	// PodSetOf names the pod set of each of Pods when there are several
	// (a PodGroup's roles); a pod missing from it is in the first.
	PodSetOf map[string]string
	// HoldPods is Berth's (berth.v1 Workload.hold_pods): Berth holds the
	// pods of its pod sets (core/quota/workloadpods). Admission does not
	// read it.
	HoldPods bool
	// Error, when set, is why the workload was refused before admission
	// (an unknown priority class, a validation error); it is reported, not
	// queued.
	Error string
}

// Key is "namespace/name".
func (w *Workload) Key() string { return w.Namespace + "/" + w.Name }
