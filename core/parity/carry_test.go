package parity_test

import (
	"testing"

	"github.com/berthsched/berth/core/parity"
	"github.com/berthsched/berth/core/simulate"
)

// TestScoreCarryChangesNothing checks that scoring the feasible nodes from
// the copies of their remembered scores the filter pass made
// (framework.CarriedScores) gives exactly the trace of reading every node's
// memo: same feasible sets, scores, placements and messages. Node-local
// shapes let the memo serve every pod; the last has topology spread and
// inter-pod affinity, for which nothing is carried.
func TestScoreCarryChangesNothing(t *testing.T) {
	cases := []switchedCase{
		{parity.GenOptions{Nodes: 12, RunningPods: 10, PendingPods: 12, NodeLocal: true}, 100},
		{parity.GenOptions{Nodes: 40, RunningPods: 60, PendingPods: 20, Varied: true, NodeLocal: true}, 100},
		{parity.GenOptions{Nodes: 150, RunningPods: 100, PendingPods: 30, Varied: true, NodeLocal: true}, 20},
		{parity.GenOptions{Nodes: 60, RunningPods: 120, PendingPods: 20, Preemption: true, NodeLocal: true}, 50},
		{parity.GenOptions{Nodes: 80, RunningPods: 100, PendingPods: 20}, 40},
	}
	replaySwitched(t, cases, 12000, "carrying scores changed the trace (-from the nodes +carried)",
		func(o *simulate.Options) { o.NoScoreCarry = true })
}
