package deschedule

import (
	"time"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
)

// Annotations the Descheduler reads.
const (
	evictAnnotation         = "descheduler.alpha.kubernetes.io/evict"
	noEvictionAnnotation    = "descheduler.alpha.kubernetes.io/prefer-no-eviction"
	mirrorPodAnnotation     = "kubernetes.io/config.mirror"
	configSourceAnnotation  = "kubernetes.io/config.source"
	configSourceAPI         = "api"
	daemonSetKind           = "DaemonSet"
	systemCriticalThreshold = model.SystemCriticalPriority
)

// evictor is a profile's DefaultEvictor: Filter says a pod may be
// evicted at all, PreEvictionFilter checks it right before.
type evictor struct {
	args *policy.EvictorArgs
	s    *state
	pdbs []*model.PodDisruptionBudget
	now  time.Time
}

// why returns the first reason the DefaultEvictor's Filter refuses p, ""
// when it passes.
func (e *evictor) why(p *model.Pod) string {
	if _, ok := annotation(p, evictAnnotation); ok {
		return ""
	}
	a := e.args
	if _, ok := annotation(p, noEvictionAnnotation); ok && a.NoEvictionMandatory {
		return "pod has the prefer-no-eviction annotation (noEvictionPolicy Mandatory)"
	}
	if _, ok := annotation(p, mirrorPodAnnotation); ok {
		return "pod is a mirror pod"
	}
	if src, ok := annotation(p, configSourceAnnotation); ok && src != configSourceAPI {
		return "pod is a static pod"
	}
	if p.Terminating {
		return "pod is terminating"
	}
	if a.Protections[policy.SystemCriticalPods] {
		if p.Priority >= systemCriticalThreshold {
			return "pod has system critical priority"
		}
		if p.Priority >= a.PriorityThreshold {
			return "pod has higher priority than the priority threshold"
		}
	}
	if a.Protections[policy.FailedBarePods] {
		if len(owners(p)) == 0 {
			return "pod does not have any ownerRefs"
		}
	} else if len(owners(p)) == 0 && p.Runtime.EffectivePhase() != model.PodFailed {
		return "pod does not have any ownerRefs and is not in failed phase"
	}
	if a.Protections[policy.PodsWithLocalStorage] && p.Runtime != nil && p.Runtime.LocalStorage {
		return "pod has local storage"
	}
	if a.Protections[policy.DaemonSetPods] {
		for _, o := range owners(p) {
			if o.Kind == daemonSetKind {
				return "pod is a DaemonSet pod"
			}
		}
	}
	if a.Protections[policy.PodsWithPVC] && p.Runtime != nil && len(p.Runtime.PVCClaims) > 0 {
		return "pod has a PVC"
	}
	if a.Protections[policy.PodsWithoutPDB] && !e.coveredByPDB(p) {
		return "pod has no PodDisruptionBudget"
	}
	if a.Protections[policy.PodsWithResourceClaims] && len(p.ResourceClaims) > 0 {
		return "pod has ResourceClaims"
	}
	if a.LabelSelector != nil && !a.LabelSelector.Matches(p.Labels) {
		return "pod labels do not match the labelSelector"
	}
	if a.MinReplicas > 1 {
		if o := owners(p); len(o) == 1 {
			if n := e.replicas(o[0].UID); n < a.MinReplicas {
				return "owner has fewer replicas than minReplicas"
			}
		}
	}
	if a.MinPodAge != nil && (p.StartTime.IsZero() || e.now.Sub(p.StartTime) < *a.MinPodAge) {
		return "pod is younger than minPodAge"
	}
	return ""
}

func (e *evictor) filter(p *model.Pod) bool { return e.why(p) == "" }

// preEviction is the DefaultEvictor's PreEvictionFilter: with nodeFit,
// the pod must fit another ready node; with namespaceLabelSelector, its
// namespace must match.
func (e *evictor) preEviction(p *model.Pod) bool {
	a := e.args
	if a.NodeFit {
		var nodes []*model.Node
		for _, n := range e.s.sortedNodes() {
			if ready(n) && (a.NodeSelector == nil || a.NodeSelector.Matches(n.Labels)) {
				nodes = append(nodes, n)
			}
		}
		if !fitsAnyOtherNode(e.s, p, nodes) {
			return false
		}
	}
	if a.NamespaceLabelSelector != nil {
		ns, ok := e.s.namespaces[p.Namespace]
		if !ok || !a.NamespaceLabelSelector.Matches(ns.Labels) {
			return false
		}
	}
	return true
}

func (e *evictor) coveredByPDB(p *model.Pod) bool {
	for _, b := range e.pdbs {
		if b.Namespace != p.Namespace || b.Selector == nil {
			continue
		}
		sel, err := b.Selector.Compile()
		if err == nil && sel.Matches(p.Labels) {
			return true
		}
	}
	return false
}

// replicas counts the pods (any node, or none) the owner uid owns.
func (e *evictor) replicas(uid string) uint {
	var n uint
	for _, p := range e.s.all {
		if e.s.gone[p] {
			continue
		}
		for _, o := range owners(p) {
			if o.UID == uid {
				n++
				break
			}
		}
	}
	return n
}

// Movable returns the DefaultEvictor's Filter for args over c at now: ""
// when a pod may be evicted, else why not. Defragmentation
// (core/deschedule/defrag) moves only such pods.
func Movable(args *policy.EvictorArgs, c *Cluster, now time.Time) func(*model.Pod) string {
	e := &evictor{args: args, s: newState(c), pdbs: c.PDBs, now: now}
	return e.why
}
