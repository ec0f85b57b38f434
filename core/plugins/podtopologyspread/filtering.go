package podtopologyspread

import (
	"context"
	"maps"
	"math"
	"strconv"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/domaincount"
	"github.com/berthsched/berth/core/plugins/helper"
)

const preFilterStateKey framework.StateKey = "PreFilter" + Name

// preFilterState is what Filter needs, computed once per attempt.
type preFilterState struct {
	constraints []constraint // DoNotSchedule only; shared by clones
	// selfMatch[i] is 1 when constraint i selects the pod itself.
	selfMatch []int
	// counts[i] maps each domain of constraint i to its matching pods.
	counts []map[string]int
	// least[i] tracks the least populated domains of constraint i.
	least []leastDomains
}

// Clone copies the counts; the constraints never change.
func (s *preFilterState) Clone() framework.StateData {
	c := &preFilterState{
		constraints: s.constraints,
		selfMatch:   s.selfMatch,
		counts:      make([]map[string]int, len(s.counts)),
		least:       append([]leastDomains(nil), s.least...),
	}
	for i, m := range s.counts {
		c.counts[i] = maps.Clone(m)
	}
	return c
}

// minCount is the least count over the domains of constraint i, taken as
// 0 while there are fewer domains than minDomains.
func (s *preFilterState) minCount(i int) int {
	if len(s.counts[i]) < int(s.constraints[i].minDomains) {
		return 0
	}
	return s.least[i][0].count
}

// leastDomains keeps the two least populated domains, least first, as
// kube-scheduler does. It stays exact under the updates the runtime makes:
// counts change only in the domains of one node at a time (a node's
// nominated pods, or preemption victims on one node).
type leastDomains [2]struct {
	domain string
	count  int
}

func newLeastDomains() leastDomains {
	var l leastDomains
	l[0].count, l[1].count = math.MaxInt32, math.MaxInt32
	return l
}

// update records that domain now holds count pods.
func (l *leastDomains) update(domain string, count int) {
	switch {
	case domain == l[0].domain:
		l[0].count = count
	case domain == l[1].domain:
		l[1].count = count
	case count < l[0].count:
		l[1] = l[0]
		l[0].domain, l[0].count = domain, count
		return
	case count < l[1].count:
		l[1].domain, l[1].count = domain, count
		return
	default:
		return
	}
	if l[0].count > l[1].count {
		l[0], l[1] = l[1], l[0]
	}
}

// PreFilter counts the pods each DoNotSchedule constraint selects per
// domain. It Skips pods without such constraints.
func (pl *PodTopologySpread) PreFilter(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	cs, err := pl.constraints(pod, model.DoNotSchedule)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(cs) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	s := &preFilterState{
		constraints: cs,
		selfMatch:   make([]int, len(cs)),
		counts:      make([]map[string]int, len(cs)),
		least:       make([]leastDomains, len(cs)),
	}
	for i := range cs {
		if cs[i].selector.Matches(pod.Labels) {
			s.selfMatch[i] = 1
		}
	}
	if counts, ok := pl.indexedCounts(pod, cs, nodes); ok {
		s.counts = counts
	} else if st := pl.countAll(ctx, s, pod, nodes); st != nil {
		return nil, st
	}
	for i := range cs {
		s.least[i] = newLeastDomains()
		for domain, n := range s.counts[i] {
			s.least[i].update(domain, n)
		}
	}
	state.Write(preFilterStateKey, s)
	return nil, nil
}

// countAll counts the matching pods of every node, as kube-scheduler's
// PreFilter does (the index's fallback).
func (pl *PodTopologySpread) countAll(ctx context.Context, s *preFilterState, pod *model.Pod, nodes []*framework.NodeInfo) *framework.Status {
	cs := s.constraints
	for i := range cs {
		size := 0
		if cs[i].hostname {
			size = len(nodes)
		}
		s.counts[i] = make(map[string]int, size)
	}
	lists := helper.Chunked(ctx, pl.parallel, len(nodes), func(lo, hi int) []domaincount.Entry {
		list := make([]domaincount.Entry, 0, (hi-lo)*len(cs))
		for _, ni := range nodes[lo:hi] {
			list = appendContribution(list, pod, cs, ni)
		}
		return list
	})
	if err := ctx.Err(); err != nil {
		return framework.AsStatus(err)
	}
	for _, l := range lists {
		for _, e := range l {
			i, _ := strconv.Atoi(e.Slot)
			s.counts[i][e.Domain] += int(e.Count)
		}
	}
	return nil
}

// PreFilterExtensions returns the plugin: its counts follow pods added to
// or removed from a node.
func (pl *PodTopologySpread) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts a pod added to nodeInfo (a nominated pod).
func (pl *PodTopologySpread) AddPod(_ context.Context, state *framework.CycleState, podToSchedule *model.Pod, podInfoToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	return updateWithPod(state, podToSchedule, podInfoToAdd.Pod, nodeInfo.Node(), 1)
}

// RemovePod uncounts a pod removed from nodeInfo (a preemption victim).
func (pl *PodTopologySpread) RemovePod(_ context.Context, state *framework.CycleState, podToSchedule *model.Pod, podInfoToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	return updateWithPod(state, podToSchedule, podInfoToRemove.Pod, nodeInfo.Node(), -1)
}

// updateWithPod changes the counts of the node's domains by delta for
// each constraint that selects changed, as PreFilter would have counted
// it. Unlike PreFilter it counts terminating pods too, as kube does.
func updateWithPod(state *framework.CycleState, pod, changed *model.Pod, node *model.Node, delta int) *framework.Status {
	s, ok := framework.ReadAs[*preFilterState](state, preFilterStateKey)
	if !ok {
		return framework.AsStatus(ErrNoState)
	}
	if node == nil || changed.Namespace != pod.Namespace || !hasAllKeys(node, s.constraints) {
		return nil
	}
	in := inclusion{pod: pod}
	for i := range s.constraints {
		c := &s.constraints[i]
		if !c.selector.Matches(changed.Labels) || !in.includes(c, node) {
			continue
		}
		domain := node.Labels[c.topologyKey]
		s.counts[i][domain] += delta
		s.least[i].update(domain, s.counts[i][domain])
	}
	return nil
}

// Filter rejects a node lacking a constraint's topology key, or whose
// domain would then hold more than maxSkew pods over the least populated
// domain.
func (pl *PodTopologySpread) Filter(_ context.Context, state *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, ok := framework.ReadAs[*preFilterState](state, preFilterStateKey)
	if !ok {
		return framework.AsStatus(ErrNoState)
	}
	node := nodeInfo.Node()
	for i := range s.constraints {
		c := &s.constraints[i]
		domain, ok := node.Labels[c.topologyKey]
		if !ok {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch)
		}
		if skew := s.counts[i][domain] + s.selfMatch[i] - s.minCount(i); skew > int(c.maxSkew) {
			return framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch)
		}
	}
	return nil
}

// RejectedDomains returns, for each DoNotSchedule constraint on a key
// other than the hostname, the domains Filter rejects whole: those whose
// count plus the pod itself exceeds maxSkew over the least count
// (Filter's test, which reads nothing of a node but its label). Pods
// nominated to a node cannot turn the verdict: adding a pod only raises
// the count of the node's own domain, and never adds a domain (AddPod
// counts only nodes the constraint already counts), so the least count
// stays below a rejected domain's. Nodes lacking a key fail Filter too.
// Any other domain's count is within maxSkew (a domain it does not count
// holds 0, and maxSkew is at least 1), so with a single constraint its
// nodes pass, unless pods are nominated to them.
// kube-scheduler has no such shortcut: its findNodesThatPassFilters
// filters every node it visits.
func (pl *PodTopologySpread) RejectedDomains(state *framework.CycleState) []framework.RejectedDomains {
	s, ok := framework.ReadAs[*preFilterState](state, preFilterStateKey)
	if !ok {
		return nil
	}
	var out []framework.RejectedDomains
	for i := range s.constraints {
		c := &s.constraints[i]
		if c.hostname {
			continue
		}
		// With one constraint, a node in another domain passes.
		r := framework.RejectedDomains{Key: c.topologyKey, Domains: map[string]struct{}{}, Decisive: len(s.constraints) == 1}
		least := s.minCount(i)
		for domain, n := range s.counts[i] {
			if n+s.selfMatch[i]-least > int(c.maxSkew) {
				r.Domains[domain] = struct{}{}
			}
		}
		out = append(out, r)
	}
	return out
}
