package podtopologyspread

import (
	"context"
	"math"
	"strconv"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/domaincount"
	"github.com/berthsched/berth/core/plugins/helper"
)

const preScoreStateKey framework.StateKey = "PreScore" + Name

// preScoreState is what Score needs; read-only after PreScore.
type preScoreState struct {
	constraints []constraint // ScheduleAnyway only
	// ignored names the feasible nodes lacking a topology key; they score
	// 0. nil when there are none.
	ignored map[string]struct{}
	// counts[i] maps each domain of constraint i among the feasible nodes
	// to its matching pods; empty for hostname constraints, which count
	// per node in Score.
	counts []map[string]int64
	// weights[i] is log(number of domains + 2), so that counts in
	// constraints with many small domains weigh as much as in few large
	// ones.
	weights []float64
}

// Clone returns s: it never changes.
func (s *preScoreState) Clone() framework.StateData { return s }

func (s *preScoreState) isIgnored(name string) bool {
	_, ok := s.ignored[name]
	return ok
}

// PreScore counts, for each ScheduleAnyway constraint, the matching pods
// in the domains of the feasible nodes. It Skips pods without such
// constraints and empty clusters.
func (pl *PodTopologySpread) PreScore(ctx context.Context, state *framework.CycleState, pod *model.Pod, feasible []*framework.NodeInfo) *framework.Status {
	lister, err := pl.lister()
	if err != nil {
		return framework.AsStatus(err)
	}
	all := lister.List()
	if len(all) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	cs, err := pl.constraints(pod, model.ScheduleAnyway)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(cs) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	s := &preScoreState{constraints: cs, counts: make([]map[string]int64, len(cs)), weights: make([]float64, len(cs))}
	for i := range cs {
		s.counts[i] = make(map[string]int64)
	}
	requireAll := pl.requireAllKeys(pod)
	for _, ni := range feasible {
		node := ni.Node()
		if requireAll && !hasAllKeys(node, cs) {
			if s.ignored == nil {
				s.ignored = make(map[string]struct{})
			}
			s.ignored[node.Name] = struct{}{}
			continue
		}
		// Without requireAll, nodes lacking a key make up the domain "".
		for i := range cs {
			if !cs[i].hostname {
				s.counts[i][node.Labels[cs[i].topologyKey]] = 0
			}
		}
	}
	for i := range cs {
		domains := len(s.counts[i])
		if cs[i].hostname {
			domains = len(feasible) - len(s.ignored)
		}
		s.weights[i] = math.Log(float64(domains + 2))
	}

	if pl.indexedScoreCounts(pod, cs, requireAll, all, s.counts) {
		state.Write(preScoreStateKey, s)
		return nil
	}
	lists := helper.Chunked(ctx, pl.parallel, len(all), func(lo, hi int) []domaincount.Entry {
		var list []domaincount.Entry
		for _, ni := range all[lo:hi] {
			list = appendScoreContribution(list, pod, cs, requireAll, ni)
		}
		return list
	})
	if err := ctx.Err(); err != nil {
		return framework.AsStatus(err)
	}
	for _, l := range lists {
		for _, e := range l {
			i, _ := strconv.Atoi(e.Slot)
			if n, ok := s.counts[i][e.Domain]; ok { // a domain of a feasible node
				s.counts[i][e.Domain] = n + e.Count
			}
		}
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// appendScoreContribution appends what a node adds to PreScore's counts:
// for each constraint on a key other than the hostname that counts the
// node, the matching pods in its domain ("" for a node lacking the key,
// which counts only when requireAll is false). Constraint i counts in slot
// strconv.Itoa(i).
func appendScoreContribution(buf []domaincount.Entry, pod *model.Pod, cs []constraint, requireAll bool, ni *framework.NodeInfo) []domaincount.Entry {
	node := ni.Node()
	if node == nil || requireAll && !hasAllKeys(node, cs) {
		return buf
	}
	in := inclusion{pod: pod}
	for i := range cs {
		c := &cs[i]
		if c.hostname || !in.includes(c, node) {
			continue
		}
		buf = append(buf, domaincount.Entry{Slot: strconv.Itoa(i), Domain: node.Labels[c.topologyKey], Count: int64(countMatching(ni.Pods, c.selector, pod.Namespace))})
	}
	return buf
}

// Score is the node's weighted count of matching pods over its domains,
// plus maxSkew-1 per constraint: lower is better. Nodes lacking a topology
// key score 0.
func (pl *PodTopologySpread) Score(_ context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := framework.ReadAs[*preScoreState](state, preScoreStateKey)
	if !ok {
		return 0, framework.AsStatus(ErrNoState)
	}
	node := nodeInfo.Node()
	if s.isIgnored(node.Name) {
		return 0, nil
	}
	var score float64
	for i := range s.constraints {
		c := &s.constraints[i]
		domain, ok := node.Labels[c.topologyKey]
		if !ok {
			continue
		}
		var n int64
		if c.hostname {
			n = int64(countMatching(nodeInfo.Pods, c.selector, pod.Namespace))
		} else {
			n = s.counts[i][domain]
		}
		score += float64(n)*s.weights[i] + float64(c.maxSkew-1)
	}
	return int64(math.Round(score)), nil
}

// ScoreExtensions returns the plugin: it normalizes its scores.
func (pl *PodTopologySpread) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore reverses the scores: 100*(highest+lowest-score)/highest
// over the nodes that were scored (all 100 when the highest is 0); the
// ignored nodes get 0.
func (pl *PodTopologySpread) NormalizeScore(_ context.Context, state *framework.CycleState, _ *model.Pod, scores framework.NodeScoreList) *framework.Status {
	s, ok := framework.ReadAs[*preScoreState](state, preScoreStateKey)
	if !ok {
		return framework.AsStatus(ErrNoState)
	}
	lowest, highest := int64(math.MaxInt64), int64(0)
	for i := range scores {
		if s.isIgnored(scores[i].Name) {
			continue
		}
		lowest = min(lowest, scores[i].Score)
		highest = max(highest, scores[i].Score)
	}
	for i := range scores {
		switch {
		case s.isIgnored(scores[i].Name):
			scores[i].Score = 0
		case highest == 0:
			scores[i].Score = framework.MaxNodeScore
		default:
			scores[i].Score = framework.MaxNodeScore * (highest + lowest - scores[i].Score) / highest
		}
	}
	return nil
}
