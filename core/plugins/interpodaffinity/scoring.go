package interpodaffinity

import (
	"context"
	"fmt"
	"math"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

const preScoreStateKey framework.StateKey = "PreScore" + Name

// preScoreState holds the score of each topology pair, by key. A pair is
// present once a term matched, even if its weights cancel out. It is
// read-only after PreScore.
type preScoreState struct {
	byKey []keyCounts
}

// Clone returns s: it never changes.
func (s *preScoreState) Clone() framework.StateData { return s }

// scorer collects the score of topology pairs from running pods.
type scorer struct {
	pod               *model.Pod
	nsLabels          map[string]string
	preferred         []term // the pod's preferred affinity terms
	preferredAnti     []term // the pod's preferred anti-affinity terms
	hardAffinityScore int32
}

// PreScore sums the weights of the terms that relate the pod and the
// running pods per topology pair. Without preferred terms of its own the
// pod is scored against the running pods with affinity only (and Skips
// with ignorePreferredTermsOfExistingPods); it Skips too when no term
// relates it to any running pod.
func (pl *InterPodAffinity) PreScore(ctx context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) *framework.Status {
	lister, err := pl.lister()
	if err != nil {
		return framework.AsStatus(err)
	}
	preferred, preferredAnti := preferredTerms(pod)
	ownTerms := len(preferred) > 0 || len(preferredAnti) > 0
	if pl.args.IgnorePreferredTermsOfExistingPods && !ownTerms {
		return framework.NewStatus(framework.Skip)
	}
	sc := &scorer{pod: pod, nsLabels: pl.namespaceLabels(pod.Namespace), hardAffinityScore: pl.args.HardPodAffinityWeight}
	nsl := pl.handle.Namespaces()
	if sc.preferred, err = compileWeightedTerms(pod, preferred, nsl); err != nil {
		return framework.AsStatus(fmt.Errorf("podAffinity.preferred: %w", err))
	}
	if sc.preferredAnti, err = compileWeightedTerms(pod, preferredAnti, nsl); err != nil {
		return framework.AsStatus(fmt.Errorf("podAntiAffinity.preferred: %w", err))
	}

	if all := lister.List(); pl.indexUsable(lister, all) {
		s := pl.indexedScores(sc, ownTerms, lister)
		if len(s.byKey) == 0 {
			return framework.NewStatus(framework.Skip)
		}
		state.Write(preScoreStateKey, s)
		return nil
	}
	var nodes []*framework.NodeInfo
	if ownTerms {
		nodes = lister.List()
	} else {
		nodes = lister.HavePodsWithAffinityList()
	}
	lists := helper.Chunked(ctx, pl.parallel, len(nodes), func(lo, hi int) []pairCount {
		var list []pairCount
		for _, ni := range nodes[lo:hi] {
			pods := ni.PodsWithAffinity
			if ownTerms {
				pods = ni.Pods
			}
			for _, existing := range pods {
				list = sc.appendScores(list, existing, ni.Node())
			}
		}
		return list
	})
	if err := ctx.Err(); err != nil {
		return framework.AsStatus(err)
	}
	s := &preScoreState{}
	for _, l := range lists {
		for _, pc := range l {
			s.values(pc.key)[pc.value] += pc.count
		}
	}
	if len(s.byKey) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// values returns the scores of key, adding the key if new.
func (s *preScoreState) values(key string) map[string]int64 {
	for i := range s.byKey {
		if s.byKey[i].key == key {
			return s.byKey[i].values
		}
	}
	m := make(map[string]int64)
	s.byKey = append(s.byKey, keyCounts{key, m})
	return m
}

// appendScores appends the score the running pod gives its node's domains:
// the pod's preferred terms it matches (anti-affinity negative), and its
// own required affinity (hardAffinityScore) and preferred terms the pod
// matches. A pair is recorded whenever a term matches, even when the
// weights cancel out.
func (sc *scorer) appendScores(list []pairCount, existing *framework.PodInfo, node *model.Node) []pairCount {
	if len(node.Labels) == 0 {
		return list
	}
	for i := range sc.preferred {
		if t := &sc.preferred[i]; t.matches(existing.Pod) {
			list = appendPair(list, node, t.topologyKey, int64(t.weight))
		}
	}
	for i := range sc.preferredAnti {
		if t := &sc.preferredAnti[i]; t.matches(existing.Pod) {
			list = appendPair(list, node, t.topologyKey, -int64(t.weight))
		}
	}
	if sc.hardAffinityScore > 0 {
		for i := range existing.RequiredAffinityTerms {
			if t := &existing.RequiredAffinityTerms[i]; selects(t, sc.pod, sc.nsLabels) {
				list = appendPair(list, node, t.TopologyKey, int64(sc.hardAffinityScore))
			}
		}
	}
	for i := range existing.PreferredAffinityTerms {
		if t := &existing.PreferredAffinityTerms[i]; selects(&t.AffinityTerm, sc.pod, sc.nsLabels) {
			list = appendPair(list, node, t.TopologyKey, int64(t.Weight))
		}
	}
	for i := range existing.PreferredAntiAffinityTerms {
		if t := &existing.PreferredAntiAffinityTerms[i]; selects(&t.AffinityTerm, sc.pod, sc.nsLabels) {
			list = appendPair(list, node, t.TopologyKey, -int64(t.Weight))
		}
	}
	return list
}

// Score sums the scores of the node's topology pairs; it is negative when
// anti-affinity dominates.
func (pl *InterPodAffinity) Score(_ context.Context, state *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := framework.ReadAs[*preScoreState](state, preScoreStateKey)
	if !ok {
		return 0, framework.AsStatus(ErrNoState)
	}
	node := nodeInfo.Node()
	var score int64
	for i := range s.byKey {
		if v, ok := node.Labels[s.byKey[i].key]; ok {
			score += s.byKey[i].values[v]
		}
	}
	return score, nil
}

// ScoreExtensions returns the plugin: it normalizes its scores.
func (pl *InterPodAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore maps the scores linearly from [lowest, highest] onto
// [0, 100], truncating; all become 0 when they are equal.
func (pl *InterPodAffinity) NormalizeScore(_ context.Context, state *framework.CycleState, _ *model.Pod, scores framework.NodeScoreList) *framework.Status {
	if _, ok := framework.ReadAs[*preScoreState](state, preScoreStateKey); !ok {
		return framework.AsStatus(ErrNoState)
	}
	lowest, highest := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range scores {
		lowest = min(lowest, scores[i].Score)
		highest = max(highest, scores[i].Score)
	}
	spread := highest - lowest
	for i := range scores {
		var f float64
		if spread > 0 {
			f = float64(framework.MaxNodeScore) * (float64(scores[i].Score-lowest) / float64(spread))
		}
		scores[i].Score = int64(f)
	}
	return nil
}
