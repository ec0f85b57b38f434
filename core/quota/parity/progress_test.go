package parity

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/quota/admission"
)

// TestProgress is the property behind Berth's no-livelock rule
// (admission.Options.Progress), over random scenarios of every kind the
// corpus has: a preemptor acts again in the very next cycle (it is
// admitted, or, partially admissible, preempts more for its full count:
// it never loses the quota it freed to another workload), no workload is
// preempted twice by the same preemptor without that preemptor having
// been admitted in between, and no run is cut by the cycle limit.
func TestProgress(t *testing.T) {
	kinds := []GenOptions{
		{ClusterQueues: 4, Workloads: 10, Admitted: 8, Flavors: 2, Preemption: true},
		{ClusterQueues: 5, Workloads: 12, Admitted: 5, Flavors: 2, Preemption: true, Hierarchical: true},
		{ClusterQueues: 4, Workloads: 10, Admitted: 8, Flavors: 2, Preemption: true, FairSharing: true},
		{ClusterQueues: 5, Workloads: 10, Admitted: 6, Flavors: 2, Preemption: true, Hierarchical: true, FairSharing: true},
	}
	preemptions := 0
	for k, o := range kinds {
		for seed := uint64(1000); seed < 1060; seed++ {
			if raceDetector && seed%raceStride != 0 {
				continue
			}
			name := fmt.Sprintf("kind%d-seed%d", k, seed)
			c, err := manifest.Decode(name, []byte(Generate(seed, o)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			_, sum, err := admission.RunWith(context.Background(), c.Queueing, c.Namespaces, admission.Options{Progress: true})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if strings.HasPrefix(sum.Reason, "stopped after") {
				t.Errorf("%s: %s", name, sum.Reason)
			}
			admittedAt := map[string][]int{}
			actedAt := map[string]map[int]bool{}
			for _, ev := range sum.Events {
				who := ev.By
				if ev.Kind == admission.EventAdmitted {
					admittedAt[ev.Workload] = append(admittedAt[ev.Workload], ev.Cycle)
					who = ev.Workload
				}
				if actedAt[who] == nil {
					actedAt[who] = map[int]bool{}
				}
				actedAt[who][ev.Cycle] = true
			}
			last := map[[2]string]int{}
			for _, ev := range sum.Events {
				if ev.Kind != admission.EventPreempted {
					continue
				}
				preemptions++
				if !actedAt[ev.By][ev.Cycle+1] {
					t.Errorf("%s: %s preempted %s in cycle %d and did nothing in the next", name, ev.By, ev.Workload, ev.Cycle)
				}
				pair := [2]string{ev.By, ev.Workload}
				if prev, ok := last[pair]; ok {
					progressed := false
					for _, c := range admittedAt[ev.By] {
						if c > prev && c <= ev.Cycle {
							progressed = true
						}
					}
					if !progressed {
						t.Errorf("%s: %s preempted %s in cycles %d and %d without being admitted in between", name, ev.By, ev.Workload, prev, ev.Cycle)
					}
				}
				last[pair] = ev.Cycle
			}
		}
	}
	if preemptions == 0 {
		t.Fatal("no preemption in the scenarios: the property was not exercised")
	}
	t.Logf("%d preemptions checked", preemptions)
}

// TestProgressEndsKueuesLivelock: on the corpus scenario where Kueue
// (and Berth by default) preempts the same workloads until the cycle
// limit, Berth's rule ends the run.
func TestProgressEndsKueuesLivelock(t *testing.T) {
	c, err := manifest.LoadFiles("testdata/scenarios/tree-220.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, kueue, err := admission.Run(context.Background(), c.Queueing, c.Namespaces)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(kueue.Reason, "stopped after") {
		t.Fatalf("default run: %s, want Kueue's livelock (the cycle limit)", kueue.Reason)
	}
	_, berth, err := admission.RunWith(context.Background(), c.Queueing, c.Namespaces, admission.Options{Progress: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(berth.Reason, "stopped after") || berth.Cycles > 20 {
		t.Errorf("with Progress: %d cycles, %s", berth.Cycles, berth.Reason)
	}
}
