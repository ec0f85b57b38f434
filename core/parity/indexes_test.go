package parity_test

import (
	"testing"

	"github.com/berthsched/berth/core/parity"
	"github.com/berthsched/berth/core/simulate"
)

// TestIncrementalIndexesChangeNothing checks that the plugins' indexes
// updated by deltas (topology spread counts, inter-pod affinity counts,
// see core/plugins/domaincount) give exactly the trace of rebuilding that
// state from every node for every pod, as kube-scheduler does: same
// feasible sets, scores, placements, messages and victims. The switch also
// turns off the scheduler's domain walk (core/scheduler/domainwalk.go),
// which passes over the nodes of domains PodTopologySpread rejects whole. The random
// clusters are heavy in spread and (anti-)affinity, and every pending pod
// gets look-alike copies, so most attempts read counts that earlier binds
// and evictions changed by deltas.
func TestIncrementalIndexesChangeNothing(t *testing.T) {
	cases := []switchedCase{
		{parity.GenOptions{Nodes: 12, RunningPods: 10, PendingPods: 12, Topology: true}, 100},
		{parity.GenOptions{Nodes: 30, RunningPods: 40, PendingPods: 20, Topology: true, Preemption: true}, 100},
		{parity.GenOptions{Nodes: 40, RunningPods: 60, PendingPods: 20, Topology: true, Preemption: true, Varied: true}, 100},
		{parity.GenOptions{Nodes: 150, RunningPods: 100, PendingPods: 30, Topology: true}, 20},
		{parity.GenOptions{Nodes: 120, RunningPods: 200, PendingPods: 25, Topology: true, Preemption: true}, 40},
		// Enough nodes past the 100 a sampled search looks for at least
		// that the domain walk stops early and moves the start index.
		{parity.GenOptions{Nodes: 250, RunningPods: 200, PendingPods: 20, Topology: true}, 10},
	}
	replaySwitched(t, cases, 7000, "the indexes changed the trace (-full rebuild +indexes)",
		func(o *simulate.Options) { o.NoIncrementalIndexes = true })
}
