package decisionlog

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/bench/inprocess"
	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// commitCounter counts the log's store commits.
type commitCounter struct{ commits, decisions int }

func (c *commitCounter) ObserveDecision(string)      { c.decisions++ }
func (c *commitCounter) ObserveCommit(time.Duration) { c.commits++ }

// preemptionRun is what a deterministic preemption run left in the store:
// every record (revision and payload; times differ) and every keyspace.
type preemptionRun struct {
	Records []string
	Spaces  map[store.Space][]store.KV
}

// runPreemption schedules a preemption workload deterministically with a
// Log as the scheduler's sink and reporter, grouping a failed attempt's
// decisions when grouped. Each pending pod is attempted in turn, for at
// most rounds rounds, and the driver acts on the new decisions after each
// attempt: a bound pod is sent back bound; victims are deleted after every
// lateDeletes-th attempt and at the end of each round.
func runPreemption(t *testing.T, w *workload.Workload, rounds, lateDeletes int, grouped bool) (preemptionRun, *commitCounter) {
	t.Helper()
	ctx := t.Context()
	st := openStore(t, t.TempDir(), bboltstore.Options{})
	counter := &commitCounter{}
	l := New(st, Options{Metrics: counter, MaxNodeReasons: 5})
	t.Cleanup(func() { _ = l.Close() })
	reg := registry.InTree()
	opts := scheduler.Options{
		Config: inprocess.DefaultConfig(reg), Registry: reg,
		Decisions: l, Deterministic: true,
		Replay: scheduler.Replay{BindInline: true},
	}
	if grouped {
		opts.GroupDecisions = true
	}
	s, err := scheduler.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := inprocess.Load(ctx, s, w); err != nil {
		t.Fatal(err)
	}
	pods := map[string]*model.Pod{}
	for _, p := range append(append([]*model.Pod(nil), w.Existing...), w.Pending...) {
		pods[p.UID] = p
	}
	for _, p := range w.Pending {
		if err := s.AddPod(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	pending := map[string]bool{}
	for _, p := range w.Pending {
		pending[p.UID] = true
	}
	next := uint64(1)
	var victims []*model.Pod
	act := func() {
		recs, err := st.Read(ctx, next, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			next = r.Revision + 1
			d, err := Decode(r)
			if err != nil {
				t.Fatal(err)
			}
			switch a := d.GetAction().(type) {
			case *berthv1.Decision_Evict:
				victims = append(victims, pods[a.Evict.GetVictim().GetUid()])
			case *berthv1.Decision_Bind:
				bound := *pods[d.GetPod().GetUid()]
				bound.NodeName = a.Bind.GetNode()
				if err := s.AddPod(ctx, &bound); err != nil {
					t.Fatal(err)
				}
				delete(pending, bound.UID)
			}
		}
	}
	deleteVictims := func() {
		for _, v := range victims {
			if err := s.DeletePod(ctx, v); err != nil {
				t.Fatal(err)
			}
		}
		victims = nil
	}
	for round := 0; len(pending) > 0 && round < rounds; round++ {
		for i, p := range w.Pending {
			if !pending[p.UID] {
				continue
			}
			if _, err := s.AttemptPod(ctx, p.UID); err != nil {
				t.Fatal(err)
			}
			act()
			if i%lateDeletes == 0 {
				deleteVictims()
			}
		}
		deleteVictims()
	}
	var run preemptionRun
	recs, err := st.Read(context.Background(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		run.Records = append(run.Records, fmt.Sprintf("%d %x", r.Revision, r.Payload))
	}
	run.Spaces = map[store.Space][]store.KV{}
	for _, sp := range store.Spaces() {
		if run.Spaces[sp], err = st.List(sp); err != nil {
			t.Fatal(err)
		}
	}
	return run, counter
}

// TestGroupedPreemptionChangesNothing runs a preemption workload with a
// failed attempt's decisions grouped in one plan (Options.GroupDecisions) and
// written one by one: the logs must hold the same decisions, byte for
// byte, at the same revisions, with the same keyspaces, and the grouped
// run must have committed fewer times.
func TestGroupedPreemptionChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name        string
		spec        workload.Spec
		mixed       bool
		lateDeletes int
	}{
		{name: "one victim each", spec: workload.Spec{Nodes: 20, Pods: 8}, lateDeletes: 1},
		{name: "mixed", spec: workload.Spec{Nodes: 10, Pods: 15}, mixed: true, lateDeletes: 1},
		{name: "mixed, victims deleted late", spec: workload.Spec{Nodes: 6, Pods: 15}, mixed: true, lateDeletes: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := workload.Generate(workload.Preemption, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if tc.mixed {
				mix(w)
			}
			seq, seqCommits := runPreemption(t, w, 4, tc.lateDeletes, false)
			grp, grpCommits := runPreemption(t, w, 4, tc.lateDeletes, true)
			if diff := cmp.Diff(seq, grp); diff != "" {
				t.Errorf("grouped run differs from the sequential one (-sequential +grouped):\n%s", diff)
			}
			if seqCommits.decisions != grpCommits.decisions || grpCommits.commits >= seqCommits.commits {
				t.Errorf("commits: sequential %d for %d decisions, grouped %d for %d: want fewer grouped for as many",
					seqCommits.commits, seqCommits.decisions, grpCommits.commits, grpCommits.decisions)
			}
			types := map[berthv1.DecisionType]int{}
			for _, r := range seq.Records {
				var rev uint64
				var payload []byte
				if _, err := fmt.Sscanf(r, "%d %x", &rev, &payload); err != nil {
					t.Fatal(err)
				}
				d, err := decodePayload(payload)
				if err != nil {
					t.Fatal(err)
				}
				types[TypeOf(d)]++
			}
			for _, typ := range []berthv1.DecisionType{
				berthv1.DecisionType_DECISION_TYPE_EVICT, berthv1.DecisionType_DECISION_TYPE_NOMINATE,
				berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE, berthv1.DecisionType_DECISION_TYPE_BIND,
			} {
				if types[typ] == 0 {
					t.Errorf("no %v decision: the run does not exercise it", typ)
				}
			}
			t.Logf("%d decisions %v: %d commits sequential, %d grouped", len(seq.Records), types, seqCommits.commits, grpCommits.commits)
		})
	}
}

// mix varies the preemptors: some need three victims, some have a middle
// priority (and may lose their nomination to a higher one), some never
// fit, some may not preempt at all.
func mix(w *workload.Workload) {
	w.PriorityClasses = append(w.PriorityClasses, &model.PriorityClass{Name: "mid", Value: 500})
	for i, p := range w.Pending {
		switch i % 5 {
		case 1:
			p.Containers[0].Requests[model.ResourceCPU] = 12000
		case 2:
			p.PriorityClassName = "mid"
		case 3:
			p.Containers[0].Requests[model.ResourceCPU] = 64000
		case 4:
			p.PriorityClassName = "low"
		}
	}
}
