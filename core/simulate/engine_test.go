package simulate

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/queue"
)

func newEngine(t *testing.T, in Input) *Engine {
	t.Helper()
	reg := registry.InTree()
	in.Config = withoutMissing(config.Default(), reg)
	e, err := New(context.Background(), in, Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func schedule(t *testing.T, e *Engine, pods ...*model.Pod) []summary {
	t.Helper()
	atts, err := e.Schedule(context.Background(), pods)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]Line, len(atts))
	for i, a := range atts {
		lines[i] = a.Line
	}
	return summarize(lines)
}

// TestEngineHoldsPendingPods: pending pods given to New are held, not
// scheduled, and their nominations keep room from lower-priority pods.
func TestEngineHoldsPendingPods(t *testing.T) {
	held := cpuPod("held", 600, 0).RequestedPriority(1000).Obj()
	tests := []struct {
		name        string
		nominations []queue.Nomination
		want        []summary
	}{
		{name: "nominated", nominations: []queue.Nomination{{PodUID: held.UID, PodKey: held.Key(), NodeName: "n1"}},
			want: []summary{{"default/newcomer", ResultUnschedulable, "", "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."}}},
		{name: "not nominated", want: []summary{{"default/newcomer", ResultBound, "n1", ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, Input{Nodes: []*model.Node{cpuNode("n1", 1000)}, Pods: []*model.Pod{held}, Nominations: tc.nominations})
			got := schedule(t, e, cpuPod("newcomer", 600, 1).RequestedPriority(500).Obj())
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEngineDelta upserts and removes objects before scheduling: an
// upsert replaces the object of the same name (a pod under another uid
// too), removing what is not held does nothing.
func TestEngineDelta(t *testing.T) {
	ctx := context.Background()
	old := cpuPod("web", 900, 0).Node("n1").Obj()
	e := newEngine(t, Input{
		Nodes: []*model.Node{cpuNode("n1", 1000), cpuNode("n2", 1000), cpuNode("n3", 4000)},
		Pods:  []*model.Pod{old},
	})
	replaced := cpuPod("web", 100, 0).Node("n1").Obj()
	replaced.UID = "web-2"
	for _, o := range []Object{
		{Node: cpuNode("n2", 3000)},
		{Pod: replaced},
		{PriorityClass: &model.PriorityClass{Name: "high", Value: 100}},
	} {
		if err := e.Upsert(ctx, o); err != nil {
			t.Fatalf("Upsert %+v: %v", o, err)
		}
	}
	for _, o := range []Object{
		{Node: &model.Node{Name: "n3"}},
		{Node: &model.Node{Name: "ghost"}},
		{Pod: &model.Pod{Namespace: "default", Name: "web", UID: old.UID}}, // replaced meanwhile
		{PDB: &model.PodDisruptionBudget{Namespace: "default", Name: "none"}},
	} {
		if err := e.Remove(ctx, o); err != nil {
			t.Fatalf("Remove %+v: %v", o, err)
		}
	}
	if nodes, err := e.Nodes(); err != nil || !cmp.Equal(nodes, []string{"n1", "n2"}) {
		t.Errorf("Nodes = %v, %v", nodes, err)
	}
	p := cpuPod("big", 2500, 1).Obj()
	p.PriorityClassName = "high"
	got := schedule(t, e, cpuPod("fits-n1", 900, 2).Obj(), p)
	want := []summary{{"default/big", ResultBound, "n2", ""}, {"default/fits-n1", ResultBound, "n1", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}

// TestEngineStartsBoundPods: a bound pod runs from one simulated second
// after the previous bind, the clock starting an hour after the latest
// creation time (start times decide which pods preemption takes first).
func TestEngineStartsBoundPods(t *testing.T) {
	e := newEngine(t, Input{Nodes: []*model.Node{cpuNode("n1", 4000)}})
	a, b := cpuPod("a", 100, 1).Obj(), cpuPod("b", 100, 7).Obj()
	schedule(t, e, a, b)
	start := t0.Add(7 * time.Second).Add(time.Hour)
	for i, p := range []*model.Pod{a, b} {
		got, ok := e.s.View().Pod(p.UID)
		if !ok {
			t.Fatalf("%s is gone", p.Name)
		}
		if want := start.Add(time.Duration(i+1) * time.Second); got.NodeName != "n1" || !got.StartTime.Equal(want) {
			t.Errorf("%s: node %q, started %v, want n1 at %v", p.Name, got.NodeName, got.StartTime, want)
		}
	}
}
