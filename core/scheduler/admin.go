package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/berthsched/berth/core/cache"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
)

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
}

// Explain describes the pod namespace/name.
func (s *Scheduler) Explain(namespace, name string) (Explanation, error) {
	pod, ok := s.findPod(namespace, name)
	if !ok {
		return Explanation{}, fmt.Errorf("explain %s/%s: %w", namespace, name, ErrPodNotFound)
	}
	return s.explain(pod), nil
}

// ExplainUID describes the pod with the UID.
func (s *Scheduler) ExplainUID(uid string) (Explanation, error) {
	pod, ok := s.lookupPod(uid)
	if !ok {
		return Explanation{}, fmt.Errorf("explain %s: %w", uid, ErrPodNotFound)
	}
	return s.explain(pod), nil
}

// Pod returns the scheduler's version of a pod (admitted: priority
// resolved, default scheduler name applied).
func (s *Scheduler) Pod(uid string) (*model.Pod, bool) { return s.lookupPod(uid) }

func (s *Scheduler) explain(pod *model.Pod) Explanation {
	e := Explanation{Pod: pod}
	s.mu.RLock()
	if rec := s.records[pod.UID]; rec != nil {
		e.Diagnosis, e.Queued, e.LastBindFailure = rec.diagnosis, rec.queuedAt, rec.bindFailure
	}
	s.mu.RUnlock()
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

// findPod looks a pod up by namespace and name.
func (s *Scheduler) findPod(namespace, name string) (*model.Pod, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.pods[s.uidByKey[namespace+"/"+name]]
	return p, ok
}

// PendingPod is one entry of Pending.
type PendingPod struct {
	Pod   *model.Pod
	Queue QueueState
	// Message is the last failure message, empty if none.
	Message string
}

// Pending lists the pods in the queue (in flight included), in the
// queue's order: activeQ in pop order, backoffQ by expiry, then the
// unschedulable, gated and in-flight pods by name.
func (s *Scheduler) Pending() []PendingPod {
	queued := s.queue.PendingPods()
	out := make([]PendingPod, 0, len(queued))
	for _, p := range queued {
		out = append(out, PendingPod{Pod: p.Info.Pod, Queue: s.queueState(p)})
	}
	s.mu.RLock()
	for i := range out {
		if rec := s.records[out[i].Pod.UID]; rec != nil && rec.diagnosis != nil {
			out[i].Message = rec.diagnosis.Message
		}
	}
	s.mu.RUnlock()
	return out
}

// Nominations lists every nomination, sorted by node then pod, for
// persistence and listings.
func (s *Scheduler) Nominations() []queue.Nomination {
	return s.queue.Nominator().All()
}

// RestoreNominations reloads persisted nominations (at startup, before the
// pods are re-sent): a pod re-sent without a nomination of its own gets
// its restored one back.
func (s *Scheduler) RestoreNominations(noms []queue.Nomination) {
	s.queue.Nominator().Restore(noms)
}

// ForgetUnknownNominations drops the nominations of pods the scheduler
// does not hold (restored after a restart for pods that were not re-sent)
// and returns how many it dropped.
func (s *Scheduler) ForgetUnknownNominations() int {
	n := 0
	for _, nom := range s.queue.Nominator().All() {
		if _, ok := s.lookupPod(nom.PodUID); !ok {
			s.queue.Nominator().DeleteNominatedPodIfExists(&model.Pod{UID: nom.PodUID})
			n++
		}
	}
	return n
}

// Stats counts what the scheduler holds.
type Stats struct {
	Queue         queue.Stats
	Cache         cache.Counts
	Pods          int // every pod known, pending and bound
	BindsInFlight int // binds issued and not yet confirmed or failed
	Nominations   int
}

// Stats returns the current counts.
func (s *Scheduler) Stats() Stats {
	st := Stats{Queue: s.queue.Stats(), Cache: s.cache.Counts(), Nominations: len(s.queue.Nominator().All())}
	s.mu.RLock()
	st.Pods = len(s.pods)
	s.mu.RUnlock()
	s.bindsMu.Lock()
	st.BindsInFlight = len(s.binds)
	s.bindsMu.Unlock()
	return st
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

// Nodes lists the nodes in scheduling order with their usage.
func (s *Scheduler) Nodes() ([]NodeUsage, error) {
	snap := cache.NewEmptySnapshot()
	if err := s.cache.UpdateSnapshot(snap); err != nil {
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
func (s *Scheduler) Pods() []*model.Pod {
	s.mu.RLock()
	out := make([]*model.Pod, 0, len(s.pods))
	for _, p := range s.pods {
		out = append(out, p)
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b *model.Pod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}
