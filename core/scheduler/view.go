package scheduler

import (
	"fmt"
	"time"

	"github.com/berthsched/berth/core/cache"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
)

// View is the scheduler's read side: what the admin API, the state
// service's resyncs and the step-by-step drivers read. It holds nothing
// of its own; each call reads the scheduler's current state under the
// scheduler's locks. The zero View is not usable: get one from
// Scheduler.View.
type View struct{ s *Scheduler }

// View returns the scheduler's read side.
func (s *Scheduler) View() View { return View{s} }

// PodPhase says where a pod stands in the scheduler.
type PodPhase string

const (
	// PhasePending: waiting in the queue (see Explanation.SubQueue).
	PhasePending PodPhase = "Pending"
	// PhaseBinding: assumed on a node, its bind issued or in progress.
	PhaseBinding PodPhase = "Binding"
	// PhaseBound: bound (the caller confirmed it, or sent it bound).
	PhaseBound PodPhase = "Bound"
	// PhaseIgnored: pending, but no profile serves its schedulerName.
	PhaseIgnored PodPhase = "Ignored"
)

// QueueState is where a pending pod stands in the queue.
type QueueState struct {
	SubQueue     queue.SubQueue
	Attempts     int
	BackoffUntil time.Time // zero when not backing off
	// UnschedulablePlugins and PendingPlugins rejected the last attempt.
	UnschedulablePlugins []string
	PendingPlugins       []string
	// GatingPlugin is the PreEnqueue plugin holding a gated pod.
	GatingPlugin  string
	GatingMessage string
	// NominatedNode is the node preemption reserved for the pod.
	NominatedNode string
}

func (s *Scheduler) queueState(p queue.PendingPod) QueueState {
	qs := QueueState{
		SubQueue:             p.SubQueue,
		Attempts:             p.Info.Attempts,
		BackoffUntil:         p.BackoffUntil,
		UnschedulablePlugins: sortedKeys(p.Info.UnschedulablePlugins),
		PendingPlugins:       sortedKeys(p.Info.PendingPlugins),
		GatingPlugin:         p.Info.GatingPlugin,
		GatingMessage:        p.Info.GatingPluginMessage,
	}
	qs.NominatedNode, _ = s.queue.Nominator().NominatedNodeName(p.Info.Pod.UID)
	return qs
}

// Explanation is the scheduling side of one pod, like the scheduling part
// of kubectl describe.
type Explanation struct {
	Pod   *model.Pod
	Phase PodPhase
	// Node is the node of a bound or binding pod.
	Node string
	// Queue describes a pending pod.
	Queue QueueState
	// Diagnosis is the pod's last failed attempt, nil if none: the
	// plugins' verdicts, or the error (a bind reported failed).
	Diagnosis *Diagnosis
	// Queued is when the pod was queued (sent unbound, or unbound again);
	// zero for bound and ignored pods.
	Queued time.Time
	// LastBindFailure is the reason of the last bind of the pod reported
	// failed since it was queued; empty if none.
	LastBindFailure string
	// Group is the state of the pod's PodGroup, nil for a pod of no group.
	Group *GroupState
	// Devices says, per node DynamicResources rejected in the last
	// attempt, which of the pod's claims or requests cannot be allocated
	// there and why, as the devices stand now (view_devices.go); nil when
	// none was rejected for its devices.
	Devices map[string][]string
	// Volumes are the pod's volumes that use claims, with each claim's
	// state: bound, its volume chosen or to be provisioned on a node (the
	// pod's Bind), waiting, or missing (view_volumes.go).
	Volumes []ClaimVolume
}

func (s *Scheduler) explain(pod *model.Pod) Explanation {
	e := Explanation{Pod: pod}
	rec := s.state.record(pod.UID)
	e.Diagnosis, e.Queued, e.LastBindFailure = rec.diagnosis, rec.queuedAt, rec.bindFailure
	e.Group = s.groupState(pod)
	e.Devices = s.explainDevices(pod, e.Diagnosis)
	e.Volumes = s.explainVolumes(pod)
	s.attemptsMu.Lock()
	attempts := s.bindAttempts[pod.UID]
	s.attemptsMu.Unlock()
	if st, ok := s.cache.Pod(pod.UID); ok {
		e.Phase, e.Node = PhaseBound, st.Pod.NodeName
		if st.Assumed {
			// Out of the queue while it binds: keep what the queue knew.
			e.Phase, e.Queue.Attempts = PhaseBinding, attempts
		}
		return e
	}
	p, queued := s.queue.Lookup(pod.UID)
	if !queued {
		e.Phase = PhaseIgnored
		e.Queue.NominatedNode, _ = s.queue.Nominator().NominatedNodeName(pod.UID)
		return e
	}
	e.Phase, e.Queue = PhasePending, s.queueState(p)
	return e
}

// PendingPod is one entry of Pending.
type PendingPod struct {
	Pod   *model.Pod
	Queue QueueState
	// Message is the last failure message, empty if none.
	Message string
}

// Stats counts what the scheduler holds.
type Stats struct {
	Queue         queue.Stats
	Cache         cache.Counts
	Pods          int // every pod known, pending and bound
	BindsInFlight int // binds issued and not yet confirmed or failed
	Nominations   int
}

// NodeUsage is a node with what its pods request, for listings.
type NodeUsage struct {
	Node        *model.Node
	Pods        int
	Allocatable model.Resources
	Requested   model.Resources
	// NonZeroRequested is Requested with the scoring defaults for
	// containers requesting no cpu or memory (MilliCPU and Memory only).
	NonZeroRequested model.Resources
}

// Explain describes the pod namespace/name.
func (v View) Explain(namespace, name string) (Explanation, error) {
	pod, ok := v.s.state.find(namespace, name)
	if !ok {
		return Explanation{}, fmt.Errorf("explain %s/%s: %w", namespace, name, ErrPodNotFound)
	}
	return v.s.explain(pod), nil
}

// ExplainUID describes the pod with the UID.
func (v View) ExplainUID(uid string) (Explanation, error) {
	pod, ok := v.s.state.lookup(uid)
	if !ok {
		return Explanation{}, fmt.Errorf("explain %s: %w", uid, ErrPodNotFound)
	}
	return v.s.explain(pod), nil
}

// Pod returns the scheduler's version of a pod (admitted: priority
// resolved, default scheduler name applied).
func (v View) Pod(uid string) (*model.Pod, bool) { return v.s.state.lookup(uid) }

// Pending lists the pods in the queue (in flight included), in the
// queue's order: activeQ in pop order, backoffQ by expiry, then the
// unschedulable, gated and in-flight pods by name.
func (v View) Pending() []PendingPod {
	queued := v.s.queue.PendingPods()
	out := make([]PendingPod, 0, len(queued))
	for _, p := range queued {
		out = append(out, PendingPod{Pod: p.Info.Pod, Queue: v.s.queueState(p)})
	}
	v.s.state.messages(out)
	return out
}

// Nominations lists every nomination, sorted by node then pod, for
// persistence and listings.
func (v View) Nominations() []queue.Nomination {
	return v.s.queue.Nominator().All()
}

// Stats returns the current counts.
func (v View) Stats() Stats {
	st := Stats{Queue: v.s.queue.Stats(), Cache: v.s.cache.Counts(), Nominations: len(v.s.queue.Nominator().All())}
	st.Pods = v.s.state.numPods()
	v.s.bindsMu.Lock()
	st.BindsInFlight = len(v.s.binds)
	v.s.bindsMu.Unlock()
	return st
}

// Nodes lists the nodes in scheduling order with their usage.
func (v View) Nodes() ([]NodeUsage, error) {
	snap := cache.NewEmptySnapshot()
	if err := v.s.cache.UpdateSnapshot(snap); err != nil {
		return nil, err
	}
	out := make([]NodeUsage, 0, snap.NumNodes())
	for _, ni := range snap.List() {
		out = append(out, NodeUsage{Node: ni.Node(), Pods: len(ni.Pods), Allocatable: ni.Allocatable,
			Requested: ni.Requested.Clone(), NonZeroRequested: ni.NonZeroRequested.Clone()})
	}
	return out, nil
}

// Pods lists every pod the scheduler knows (pending and bound) by
// namespace/name.
func (v View) Pods() []*model.Pod {
	return v.s.state.sortedPods()
}

// PriorityClasses lists the known classes, built-in ones included.
func (v View) PriorityClasses() []*model.PriorityClass {
	return v.s.admission.Classes()
}

// PDBs lists the disruption budgets, sorted by namespace/name.
func (v View) PDBs() []*model.PodDisruptionBudget {
	return v.s.state.pdbs.budgets()
}

// Namespaces lists the namespaces that were sent (not those only implied by
// their pods), with their labels, sorted by name.
func (v View) Namespaces() []*model.Namespace {
	return v.s.state.namespaces.sent()
}

// Find returns the scheduler's version of the pod with that namespace and
// name.
func (v View) Find(namespace, name string) (*model.Pod, bool) { return v.s.state.find(namespace, name) }

// Budgets returns the disruption budgets covering pod for the eviction
// API, with their status now (disruption.Covers, disruption.Compute).
func (v View) Budgets(pod *model.Pod) []disruption.Budget { return v.s.state.pdbs.covering(pod) }

// Evicted lists the UIDs of the pods the scheduler evicted that are not
// deleted yet (restored ones whose pod was not sent again included),
// sorted.
func (v View) Evicted() []string {
	return v.s.state.evictedUIDs()
}

// Profile returns the framework serving schedulerName.
func (v View) Profile(schedulerName string) (framework.Framework, bool) {
	f, ok := v.s.profiles[schedulerName]
	return f, ok
}

// QueueSortFunc is the order of the queue (the first profile's QueueSort).
func (v View) QueueSortFunc() framework.LessFunc {
	return v.s.profiles[v.s.cfg.Profiles[0].SchedulerName].QueueSortFunc()
}

// RunningOn returns the node, the pods bound to it that run there (not
// assumed, their bind still in flight, and not terminating: evicted or
// being deleted), in the cache's order, and the node's other pods. ok is
// false for an unknown node. Node-pressure eviction ranks the running pods,
// as the kubelet ranks its active pods.
func (v View) RunningOn(node string) (n *model.Node, running, others []*model.Pod, ok bool) {
	ni, ok := v.s.cache.NodeInfo(node)
	if !ok || ni.Node() == nil {
		return nil, nil, nil, false
	}
	for _, pi := range ni.Pods {
		if pi.Pod.Terminating || v.s.cache.IsAssumed(pi.Pod.UID) {
			others = append(others, pi.Pod)
			continue
		}
		running = append(running, pi.Pod)
	}
	return ni.Node(), running, others, true
}

// PodGroups lists the pod groups held.
func (v View) PodGroups() []*model.PodGroup { return v.s.groups.List() }
