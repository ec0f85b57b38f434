package interpodaffinity

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

const preFilterStateKey framework.StateKey = "PreFilter" + Name

// preFilterState is what Filter needs, computed once per attempt.
type preFilterState struct {
	pod       *model.Pod
	nsLabels  map[string]string // labels of the pod's namespace
	affinity  []term            // the pod's required affinity terms
	antiTerms []term            // the pod's required anti-affinity terms

	// affinityCounts counts running pods matching all affinity terms, once
	// per term, in the term's domain of their node.
	affinityCounts topologyCounts
	// antiCounts counts running pods matching an anti-affinity term, per
	// matching term, in the term's domain of their node.
	antiCounts topologyCounts
	// existingAntiCounts counts the anti-affinity terms of running pods
	// that match the pod, in the term's domain of their node.
	existingAntiCounts topologyCounts
	// firstOfGroup: the pod matches all its own affinity terms, the
	// exception for the first pod of a group that wants to be together.
	firstOfGroup bool
}

// Clone copies the counts; the terms are immutable and shared.
func (s *preFilterState) Clone() framework.StateData {
	c := *s
	c.affinityCounts = s.affinityCounts.clone()
	c.antiCounts = s.antiCounts.clone()
	c.existingAntiCounts = s.existingAntiCounts.clone()
	return &c
}

// PreFilter counts the pods that the pod's required terms match, and the
// running pods whose required anti-affinity matches the pod. A pod without
// required terms only needs the latter, over the snapshot's nodes with
// such pods; it Skips when no running pod's anti-affinity matches it.
func (pl *InterPodAffinity) PreFilter(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	lister, err := pl.lister()
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	s := &preFilterState{pod: pod, nsLabels: pl.namespaceLabels(pod.Namespace)}
	affinity, anti := requiredTerms(pod)
	nsl := pl.handle.Namespaces()
	if s.affinity, err = compileTerms(pod, affinity, nsl); err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("parsing pod: podAffinity: %v", err))
	}
	if s.antiTerms, err = compileTerms(pod, anti, nsl); err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("parsing pod: podAntiAffinity: %v", err))
	}
	switch {
	case pl.indexUsable(lister, nodes):
		s.existingAntiCounts = pl.indexedExistingAnti(s, lister)
		if len(s.affinity) > 0 || len(s.antiTerms) > 0 {
			pl.indexedOwnCounts(s, lister)
		}
	case len(s.affinity) == 0 && len(s.antiTerms) == 0:
		s.existingAntiCounts = pl.existingAntiCounts(ctx, s, lister.HavePodsWithRequiredAntiAffinityList())
	default:
		pl.countAll(ctx, s, nodes)
	}
	if err := ctx.Err(); err != nil {
		return nil, framework.AsStatus(err)
	}
	if s.existingAntiCounts.len == 0 && len(s.affinity) == 0 && len(s.antiTerms) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	s.firstOfGroup = matchesAll(s.affinity, pod)
	state.Write(preFilterStateKey, s)
	return nil, nil
}

// existingAntiCounts counts, over the nodes running pods with required
// anti-affinity, the terms that match the pod.
func (pl *InterPodAffinity) existingAntiCounts(ctx context.Context, s *preFilterState, nodes []*framework.NodeInfo) topologyCounts {
	lists := helper.Chunked(ctx, pl.parallel, len(nodes), func(lo, hi int) []pairCount {
		var list []pairCount
		for _, ni := range nodes[lo:hi] {
			list = s.appendExistingAnti(list, ni)
		}
		return list
	})
	var counts topologyCounts
	for _, l := range lists {
		counts.merge(l)
	}
	return counts
}

// appendExistingAnti appends the node's domains of the required
// anti-affinity terms of its pods that match the pod.
func (s *preFilterState) appendExistingAnti(list []pairCount, ni *framework.NodeInfo) []pairCount {
	for _, existing := range ni.PodsWithRequiredAntiAffinity {
		for i := range existing.RequiredAntiAffinityTerms {
			if t := &existing.RequiredAntiAffinityTerms[i]; selects(t, s.pod, s.nsLabels) {
				list = appendPair(list, ni.Node(), t.TopologyKey, 1)
			}
		}
	}
	return list
}

// countAll computes the three counts in one pass over all nodes, so each
// running pod is read once: the existing pods' anti-affinity (what
// existingAntiCounts computes over the snapshot's list of nodes with such
// pods) and the pods the pod's own terms match.
func (pl *InterPodAffinity) countAll(ctx context.Context, s *preFilterState, nodes []*framework.NodeInfo) {
	type lists struct{ existing, affinity, anti []pairCount }
	results := helper.Chunked(ctx, pl.parallel, len(nodes), func(lo, hi int) lists {
		var l lists
		for _, ni := range nodes[lo:hi] {
			l.existing = s.appendExistingAnti(l.existing, ni)
			node := ni.Node()
			for _, existing := range ni.Pods {
				l.affinity = appendAffinityMatches(l.affinity, s.affinity, existing.Pod, node)
				l.anti = appendIncomingAntiMatches(l.anti, s.antiTerms, existing.Pod, node)
			}
		}
		return l
	})
	for _, r := range results {
		s.existingAntiCounts.merge(r.existing)
		s.affinityCounts.merge(r.affinity)
		s.antiCounts.merge(r.anti)
	}
}

// appendAffinityMatches counts pod in each term's domain if it matches
// all the terms.
func appendAffinityMatches(list []pairCount, terms []term, pod *model.Pod, node *model.Node) []pairCount {
	if matchesAll(terms, pod) {
		for i := range terms {
			list = appendPair(list, node, terms[i].topologyKey, 1)
		}
	}
	return list
}

// appendIncomingAntiMatches counts pod in the domain of each term it
// matches.
func appendIncomingAntiMatches(list []pairCount, terms []term, pod *model.Pod, node *model.Node) []pairCount {
	for i := range terms {
		if terms[i].matches(pod) {
			list = appendPair(list, node, terms[i].topologyKey, 1)
		}
	}
	return list
}

// PreFilterExtensions returns the plugin: its counts follow pods added to
// or removed from a node.
func (pl *InterPodAffinity) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts a pod added to nodeInfo (a nominated pod).
func (pl *InterPodAffinity) AddPod(_ context.Context, state *framework.CycleState, _ *model.Pod, podInfoToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	return pl.updateWithPod(state, podInfoToAdd, nodeInfo.Node(), 1)
}

// RemovePod uncounts a pod removed from nodeInfo (a preemption victim).
func (pl *InterPodAffinity) RemovePod(_ context.Context, state *framework.CycleState, _ *model.Pod, podInfoToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	return pl.updateWithPod(state, podInfoToRemove, nodeInfo.Node(), -1)
}

func (pl *InterPodAffinity) updateWithPod(state *framework.CycleState, pi *framework.PodInfo, node *model.Node, delta int64) *framework.Status {
	s, ok := framework.ReadAs[*preFilterState](state, preFilterStateKey)
	if !ok {
		return framework.AsStatus(ErrNoState)
	}
	if node == nil {
		return nil
	}
	for i := range pi.RequiredAntiAffinityTerms {
		if t := &pi.RequiredAntiAffinityTerms[i]; selects(t, s.pod, s.nsLabels) {
			s.existingAntiCounts.addNode(node, t.TopologyKey, delta)
		}
	}
	if matchesAll(s.affinity, pi.Pod) {
		for i := range s.affinity {
			s.affinityCounts.addNode(node, s.affinity[i].topologyKey, delta)
		}
	}
	for i := range s.antiTerms {
		if s.antiTerms[i].matches(pi.Pod) {
			s.antiCounts.addNode(node, s.antiTerms[i].topologyKey, delta)
		}
	}
	return nil
}

// Filter checks, in kube's order, the pod's affinity, its anti-affinity
// and the anti-affinity of the pods already running.
func (pl *InterPodAffinity) Filter(_ context.Context, state *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, ok := framework.ReadAs[*preFilterState](state, preFilterStateKey)
	if !ok {
		return framework.AsStatus(ErrNoState)
	}
	node := nodeInfo.Node()
	if !s.satisfiesAffinity(node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinity)
	}
	if !s.satisfiesAntiAffinity(node) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinity)
	}
	if s.existingAntiCounts.anyAt(node) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinity)
	}
	return nil
}

// satisfiesAffinity: the node has every term's topology key, and either
// each of its domains holds a matching pod, or no matching pod is counted
// anywhere and the pod matches its own terms.
func (s *preFilterState) satisfiesAffinity(node *model.Node) bool {
	found := true
	for i := range s.affinity {
		key := s.affinity[i].topologyKey
		v, ok := node.Labels[key]
		if !ok {
			return false
		}
		if s.affinityCounts.values(key)[v] <= 0 {
			found = false
		}
	}
	return found || (s.affinityCounts.len == 0 && s.firstOfGroup)
}

// satisfiesAntiAffinity: no domain of the node holds a pod an
// anti-affinity term matches.
func (s *preFilterState) satisfiesAntiAffinity(node *model.Node) bool {
	if s.antiCounts.len == 0 {
		return true
	}
	for i := range s.antiTerms {
		if s.antiCounts.at(node, s.antiTerms[i].topologyKey) > 0 {
			return false
		}
	}
	return true
}
