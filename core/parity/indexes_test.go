package parity_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/parity"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/simulate"
)

// TestIncrementalIndexesChangeNothing checks that the plugins' indexes
// updated by deltas (topology spread counts, inter-pod affinity counts,
// see core/plugins/domaincount) give exactly the trace of rebuilding that
// state from every node for every pod, as kube-scheduler does: same
// feasible sets, scores, placements, messages and victims. The random
// clusters are heavy in spread and (anti-)affinity, and every pending pod
// gets look-alike copies, so most attempts read counts that earlier binds
// and evictions changed by deltas.
func TestIncrementalIndexesChangeNothing(t *testing.T) {
	cases := []struct {
		opts       parity.GenOptions
		percentage int32
	}{
		{parity.GenOptions{Nodes: 12, RunningPods: 10, PendingPods: 12, Topology: true}, 100},
		{parity.GenOptions{Nodes: 30, RunningPods: 40, PendingPods: 20, Topology: true, Preemption: true}, 100},
		{parity.GenOptions{Nodes: 40, RunningPods: 60, PendingPods: 20, Topology: true, Preemption: true, Varied: true}, 100},
		{parity.GenOptions{Nodes: 150, RunningPods: 100, PendingPods: 30, Topology: true}, 20},
		{parity.GenOptions{Nodes: 120, RunningPods: 200, PendingPods: 25, Topology: true, Preemption: true}, 40},
	}
	const seedsPerCase = 5
	attempts := 0
	for ci, tc := range cases {
		for seed := uint64(1); seed <= seedsPerCase; seed++ {
			name := fmt.Sprintf("case%d-seed%d", ci, seed)
			data, err := parity.Generate(7000+uint64(ci)*100+seed, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := manifest.Decode(name+".yaml", data)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			in := simulate.Input{Nodes: c.Nodes, Pods: withLookAlikes(c.Pods, 3), PriorityClasses: c.PriorityClasses, PDBs: c.PDBs, Namespaces: c.Namespaces}
			run := func(noIndexes bool) []simulate.Line {
				lines, err := simulate.Run(context.Background(), in, simulate.Options{
					Registry: registry.InTree(), PercentageOfNodesToScore: &tc.percentage, NoIncrementalIndexes: noIndexes,
				})
				if err != nil {
					t.Fatalf("%s (no indexes %v): %v", name, noIndexes, err)
				}
				return lines
			}
			with, without := run(false), run(true)
			attempts += len(with)
			if diff := cmp.Diff(without, with); diff != "" {
				t.Errorf("%s: the indexes changed the trace (-full rebuild +indexes):\n%s", name, diff)
			}
		}
	}
	if attempts < 500 {
		t.Errorf("only %d attempts compared; the corpus is too small to mean much", attempts)
	}
}
