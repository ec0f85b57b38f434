package runtime

import (
	"context"
	"math/bits"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Carrying remembered scores from the filter pass to the score pass.
//
// A pod of a known signature filters its nodes mostly from their memo
// entries, then scores the feasible ones mostly from the same entries. At
// 100,000 nodes that is 5,000 NodeInfos visited twice per pod, and the
// second visit misses the caches as often as the first: the score pass
// reads other cache lines of the entry, and 5,000 nodes' lines do not stay
// in a core's cache between the passes. RunFilterPluginsCarrying copies
// what scoring needs (name, raw scores) while the entry is at hand, into an
// array the score pass then reads in order (ScoreBuffers.Carried). The copy
// is exactly the memo's, so scores, and decisions, are the same.

// RunFilterPluginsCarrying implements framework.Framework.
func (f *Framework) RunFilterPluginsCarrying(ctx context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo, carry *framework.CarriedScores) *framework.Status {
	carry.Owner = nil
	var st *framework.Status
	e := f.LocalMemo(state, nodeInfo)
	if e != nil {
		st = f.filterWithNominatedRemembered(ctx, state, pod, nodeInfo, e)
	} else {
		st = f.RunFilterPluginsPassing(ctx, state, pod, nodeInfo, "")
	}
	if !st.IsSuccess() || f.noScoreCarry || f.noResultMemo {
		return st
	}
	if e == nil {
		plan := f.filterPlanOf(state)
		if plan.sig == 0 {
			return st
		}
		// Filtering looked it up (runFilterPlugins): this finds it again.
		e = nodeInfo.Memo(&f.memo.owner, plan.sig)
	}
	carry.Owner, carry.Sig, carry.Name = e.Owner, e.Sig, nodeInfo.Name()
	// Only the slots up to the last one remembered: with the default
	// profile's six plugins the copy stays within the entry's cache lines
	// the filter read.
	carry.Done = e.ScoreDone
	copy(carry.Scores[:bits.Len64(e.ScoreDone)], e.Scores[:])
	return st
}

// carriedFor returns the carried entries of buf when there is one per node
// scored, else nil.
func carriedFor(buf *framework.ScoreBuffers, nodes int) []framework.CarriedScores {
	if buf == nil || len(buf.Carried) != nodes {
		return nil
	}
	return buf.Carried
}
