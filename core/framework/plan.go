package framework

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/model"
)

// Planner is the one way decisions leave the scheduler and the eviction
// controllers, in Nomad's plan shape: a producer hands a Plan, and the
// planner makes all of it durable at once (berthd's decision log: one
// store batch, one group commit) before Submit returns; the simulator
// applies it at once. A single decision is a one-item plan (SubmitOne).
//
// Submit returns an error when nothing of the plan became durable (the
// commit failed, or ctx ended). An item the planner refuses on its own
// (a Bind nobody waits for any more, a second Evict of a pod) is left out
// of the commit and named in PlanResult.Refused; the rest is committed.
type Planner interface {
	Submit(ctx context.Context, plan Plan) (PlanResult, error)
}

// Plan is decisions to make durable together, in order: the decisions
// get consecutive revisions in the order of Items.
type Plan struct {
	Items []PlanItem
	// Group, when set, names the pod group (namespace/name) whose one
	// group cycle made the plan's Binds: they are committed together.
	Group string
}

// Add appends decisions to the plan.
func (p *Plan) Add(items ...PlanItem) { p.Items = append(p.Items, items...) }

// Len is the number of decisions in the plan.
func (p Plan) Len() int { return len(p.Items) }

// PlanResult is what became of each item of a submitted plan.
type PlanResult struct {
	// Revisions[i] is the revision of item i's decision; 0 when none was
	// written: the item was refused, or had nothing new to say (an
	// Unschedulable repeating the last message, a deallocation of a claim
	// allocated anew since).
	Revisions []uint64
	// Refused[i] is why item i was refused; nil when none was.
	Refused []error
}

// Err is the refusal of item i, nil when it was not refused.
func (r PlanResult) Err(i int) error {
	if i < len(r.Refused) {
		return r.Refused[i]
	}
	return nil
}

// Revision is the revision of item i's decision, 0 when none was written.
func (r PlanResult) Revision(i int) uint64 {
	if i < len(r.Revisions) {
		return r.Revisions[i]
	}
	return 0
}

// SubmitOne submits a one-item plan: its revision, or its refusal or the
// commit's failure.
func SubmitOne(ctx context.Context, p Planner, item PlanItem) (uint64, error) {
	res, err := p.Submit(ctx, Plan{Items: []PlanItem{item}})
	if err != nil {
		return 0, err
	}
	if err := res.Err(0); err != nil {
		return 0, err
	}
	return res.Revision(0), nil
}

// PlanItem is one decision of a Plan: *Bind, *Eviction, *Nomination,
// *ClearNomination, *Deallocation, *UnschedulableReport, *Admission or
// *WorkloadEviction.
type PlanItem interface{ planItem() }

// Bind binds Pod (the version the Bind plugins were given) to Node.
type Bind struct {
	Pod  *model.Pod
	Node string
	// Claims are the pod's claims with their allocation and reservedFor
	// as committed (dynamic resource allocation); nil for a pod without.
	Claims []*resourceapi.ResourceClaim
	// Volumes are the pod's unbound claims with the volume chosen for each,
	// or the node to provision one on (VolumeBinding's Reserve); nil when
	// there are none.
	Volumes []VolumeBinding
	// Awaiter, if set, is asked while the Bind is recorded whether its
	// producer still awaits it; a Bind it no longer awaits (the pod was
	// deleted, or its binding abandoned, since) is refused and nothing is
	// written. The scheduler's planner sets it.
	Awaiter BindAwaiter
}

// BindAwaiter tells whether a Bind's producer still awaits it: pod is the
// version its Bind plugins were given. It is asked under the lock of the
// book that records the bind (server/podbook), so it must take only leaf
// locks.
type BindAwaiter interface {
	Binding(pod *model.Pod) bool
}

// VolumeBinding is what a Bind decided for one of the pod's unbound
// PersistentVolumeClaims: the volume to bind it to, or (Volume empty) the
// node to provision its volume for.
type VolumeBinding struct {
	Claim        string // in the pod's namespace
	Volume       string
	SelectedNode string
}

// EvictCause says why a pod is evicted.
type EvictCause int

// The causes of evictions. The zero value is the scheduler's preemption.
const (
	EvictPreemption EvictCause = iota
	EvictTaint
	EvictAPI
	EvictNodePressure
	// EvictDeschedule: descheduling moves the pod (core/deschedule).
	EvictDeschedule
	// EvictDefragment: the pod moves to make room for a pending pod or
	// group that fits nowhere and cannot preempt (core/deschedule/defrag).
	EvictDefragment
	// EvictQuota: the pod's Kueue workload lost its admission (Kueue's
	// preemption, a WorkloadEviction in the same plan).
	EvictQuota
)

// Eviction evicts Victim from Node.
type Eviction struct {
	Victim *model.Pod
	Node   string
	Cause  EvictCause
	// Preemptor is the pod that needs the room (EvictPreemption only).
	Preemptor *model.Pod
	// Message says why for people, in kube's words where kube has some.
	Message string
	// GracePeriodSeconds, when set, is how long the pod may take to stop;
	// nil leaves it to the pod's own termination grace period.
	GracePeriodSeconds *int64
}

// Nomination nominates Pod to Node (preemption made room there).
type Nomination struct {
	Pod  *model.Pod
	Node string
}

// ClearNomination ends Pod's nomination.
type ClearNomination struct {
	Pod    *model.Pod
	Reason string
}

// Deallocation reports Claim deallocated because its last consumer is
// gone (or DynamicResources' PostFilter freed it).
type Deallocation struct {
	Claim  *resourceapi.ResourceClaim
	Reason string
}

// UnschedulableReport reports kube's failure message for Pod ("0/N nodes are
// available: ...") and the diagnosis behind it (nil when there is none).
type UnschedulableReport struct {
	Pod     *model.Pod
	Message string
	FitErr  *FitError
}

// WorkloadRef names a Kueue workload: its namespace, its name (Kueue's)
// and its uid.
type WorkloadRef struct {
	Namespace, Name, UID string
}

// Key is "namespace/name".
func (w WorkloadRef) Key() string { return w.Namespace + "/" + w.Name }

// Admission admits a Kueue workload to a ClusterQueue: its quota is
// counted from then on, and its pods are released (ungated, with the
// flavors' node labels and tolerations).
type Admission struct {
	Workload     WorkloadRef
	ClusterQueue string
	// PodSets are the flavors given each pod set, in the workload's order.
	PodSets []PodSetAdmission
	// SchedulerName is the profile of the workload's pods, which the
	// decision is filed under; empty means the default profile.
	SchedulerName string
}

// PodSetAdmission is the admission of one pod set: how many of its pods,
// and the flavor of each resource it requests.
type PodSetAdmission struct {
	Name    string
	Count   int32
	Flavors map[string]string // resource -> ResourceFlavor
}

// WorkloadEviction takes an admitted Kueue workload's admission back (it
// was preempted); the plan carries the Evictions of its pods too.
type WorkloadEviction struct {
	Workload     WorkloadRef
	ClusterQueue string
	// Reason is Kueue's: InClusterQueue, InCohortReclamation, ...
	Reason string
	// PreemptedBy is the preempting workload, "namespace/name".
	PreemptedBy string
	Message     string
	// SchedulerName is as in Admission.
	SchedulerName string
}

func (*Bind) planItem()                {}
func (*Admission) planItem()           {}
func (*WorkloadEviction) planItem()    {}
func (*Eviction) planItem()            {}
func (*Nomination) planItem()          {}
func (*ClearNomination) planItem()     {}
func (*Deallocation) planItem()        {}
func (*UnschedulableReport) planItem() {}
