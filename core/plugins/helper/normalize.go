package helper

import "github.com/berthsched/berth/core/framework"

// DefaultNormalizeScore scales non-negative scores from [0, max(scores)] to
// [0, maxScore] with integer division, as kube-scheduler does. With reverse
// the result is maxScore minus the scaled score, so the lowest raw score
// wins. When every score is 0 the scores stay 0, or become maxScore with
// reverse.
func DefaultNormalizeScore(maxScore int64, reverse bool, scores framework.NodeScoreList) {
	var highest int64
	for i := range scores {
		highest = max(highest, scores[i].Score)
	}
	if highest == 0 {
		if reverse {
			for i := range scores {
				scores[i].Score = maxScore
			}
		}
		return
	}
	for i := range scores {
		s := maxScore * scores[i].Score / highest
		if reverse {
			s = maxScore - s
		}
		scores[i].Score = s
	}
}
