package parity_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/parity"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/simulate"
)

// TestResultMemoChangesNothing checks that reusing node-local plugin results
// across pods with the same signature (core/framework/runtime's memo)
// gives exactly the trace of running every plugin on every node for every
// pod: same feasible sets, scores, placements, messages and victims. The
// random clusters get look-alike copies of every pending pod, so that most
// attempts read remembered results on nodes that earlier attempts changed,
// and a sampled percentage of nodes to score, so the window moves.
func TestResultMemoChangesNothing(t *testing.T) {
	cases := []switchedCase{
		{parity.GenOptions{Nodes: 12, RunningPods: 10, PendingPods: 12}, 100},
		{parity.GenOptions{Nodes: 30, RunningPods: 40, PendingPods: 20, Preemption: true}, 100},
		{parity.GenOptions{Nodes: 150, RunningPods: 100, PendingPods: 30}, 20},
		{parity.GenOptions{Nodes: 120, RunningPods: 200, PendingPods: 25, Preemption: true}, 40},
	}
	replaySwitched(t, cases, 9000, "the memo changed the trace (-every plugin run +memo)",
		func(o *simulate.Options) { o.NoResultMemo = true })
}

// switchedCase is one shape of random cluster replayed with a switch on
// and off, at a percentage of nodes to score.
type switchedCase struct {
	opts       parity.GenOptions
	percentage int32
}

// replaySwitched replays five random clusters of each case (one under the
// race detector), with look-alike copies of every pending pod, once as is
// and once with off applied to the options, and requires identical
// traces; seeds start at base.
func replaySwitched(t *testing.T, cases []switchedCase, base uint64, what string, off func(*simulate.Options)) {
	t.Helper()
	seedsPerCase, minAttempts := uint64(5), 500
	if raceDetector {
		seedsPerCase, minAttempts = 1, 100
	}
	attempts := 0
	for ci, tc := range cases {
		for seed := uint64(1); seed <= seedsPerCase; seed++ {
			name := fmt.Sprintf("case%d-seed%d", ci, seed)
			data, err := parity.Generate(base+uint64(ci)*100+seed, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := manifest.Decode(name+".yaml", data)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			in := simulate.Input{Nodes: c.Nodes, Pods: withLookAlikes(c.Pods, 3), PriorityClasses: c.PriorityClasses, PDBs: c.PDBs, Namespaces: c.Namespaces}
			run := func(switched bool) []simulate.Line {
				opts := simulate.Options{Registry: registry.InTree(), PercentageOfNodesToScore: &tc.percentage}
				if switched {
					off(&opts)
				}
				lines, err := simulate.Run(context.Background(), in, opts)
				if err != nil {
					t.Fatalf("%s (switched %v): %v", name, switched, err)
				}
				return lines
			}
			with, without := run(false), run(true)
			attempts += len(with)
			if diff := cmp.Diff(without, with); diff != "" {
				t.Errorf("%s: %s:\n%s", name, what, diff)
			}
		}
	}
	if attempts < minAttempts {
		t.Errorf("only %d attempts compared; the corpus is too small to mean much", attempts)
	}
}

// withLookAlikes adds copies of every pending pod: same spec and labels,
// new name and UID, created just after the original.
func withLookAlikes(pods []*model.Pod, copies int) []*model.Pod {
	out := make([]*model.Pod, 0, len(pods)*(copies+1))
	for _, p := range pods {
		out = append(out, p)
		if p.NodeName != "" {
			continue
		}
		for i := 1; i <= copies; i++ {
			c := *p
			c.Name = fmt.Sprintf("%s-copy%d", p.Name, i)
			c.UID = fmt.Sprintf("%s-copy%d", p.UID, i)
			c.CreationTime = p.CreationTime.Add(time.Duration(i) * time.Millisecond)
			out = append(out, &c)
		}
	}
	return out
}
