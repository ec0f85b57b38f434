package defrag_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/berthsched/berth/core/deschedule"
	"github.com/berthsched/berth/core/deschedule/defrag"
	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/simulate"
)

func node(name string, cpu int64) *model.Node {
	return &model.Node{Name: name, Labels: map[string]string{model.LabelHostname: name},
		Allocatable: model.ResourceList{"cpu": cpu, "memory": 64 << 30, "pods": 110}}
}

func pod(name, on string, cpu int64, owned bool) *model.Pod {
	p := &model.Pod{UID: "u-" + name, Namespace: "default", Name: name, NodeName: on, SchedulerName: model.DefaultSchedulerName,
		Labels: map[string]string{"app": name}, Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": cpu, "memory": 1 << 30}}}}
	if owned {
		p.Runtime = &model.PodRuntime{Owners: []model.OwnerReference{{Kind: "ReplicaSet", Name: "rs-" + name, UID: "rs-" + name}}}
	}
	return p
}

func evictorDefaults() *policy.EvictorArgs {
	return &policy.EvictorArgs{PriorityThreshold: model.SystemCriticalPriority, Protections: map[policy.Protection]bool{
		policy.PodsWithLocalStorage: true, policy.DaemonSetPods: true, policy.SystemCriticalPods: true, policy.FailedBarePods: true}}
}

// fragmented: three 4-cpu nodes, each with 2.5 cpu used by a 1.5 and a
// 1 cpu pod: 1.5 cpu free on each, 4.5 in all, no node with 3.
func fragmented(owned bool) *deschedule.Cluster {
	c := &deschedule.Cluster{}
	for i := 1; i <= 3; i++ {
		n := fmt.Sprintf("n%d", i)
		c.Nodes = append(c.Nodes, node(n, 4000))
		c.Pods = append(c.Pods, pod(fmt.Sprintf("big-%d", i), n, 1500, owned), pod(fmt.Sprintf("small-%d", i), n, 1000, owned))
	}
	return c
}

func find(t *testing.T, c *deschedule.Cluster, waiting []*model.Pod, maxMoves int) (*defrag.Plan, error) {
	t.Helper()
	return defrag.Find(context.Background(), c, waiting, defrag.Options{
		MaxMoves: maxMoves, Movable: deschedule.Movable(evictorDefaults(), c, time.Now()),
		Sim: simulate.Options{Registry: registry.InTree()},
	})
}

func TestDefragLargePod(t *testing.T) {
	c := fragmented(true)
	plan, err := find(t, c, []*model.Pod{pod("large", "", 3000, true)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Moves) != 1 || plan.Placements["default/large"] != "n1" {
		t.Fatalf("plan %+v", plan)
	}
	m := plan.Moves[0]
	if m.Pod.Name != "big-1" || m.From != "n1" || m.To == "n1" || m.To == "" || m.For != "default/large" {
		t.Errorf("move %+v: want big-1 off n1 to another node", m)
	}
}

func TestDefragGang(t *testing.T) {
	c := fragmented(true)
	c.Nodes = append(c.Nodes, node("n4", 4000), node("n5", 4000))
	c.Pods = append(c.Pods, pod("big-4", "n4", 1500, true), pod("small-4", "n4", 1000, true), pod("big-5", "n5", 1500, true), pod("small-5", "n5", 1000, true))
	gang := []*model.Pod{pod("w-0", "", 3000, true), pod("w-1", "", 3000, true)}
	for _, p := range gang {
		p.SchedulingGroup = "train"
	}
	plan, err := find(t, c, gang, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Placements) != 2 || plan.Placements["default/w-0"] == plan.Placements["default/w-1"] {
		t.Fatalf("placements %v: want the members on two nodes", plan.Placements)
	}
	seen := map[string]bool{}
	for _, m := range plan.Moves {
		if seen[m.Pod.Key()] {
			t.Errorf("%s moved twice", m.Pod.Key())
		}
		seen[m.Pod.Key()] = true
		if m.To == m.From || plan.Placements["default/w-0"] == m.To && m.For == "default/w-1" {
			t.Errorf("move %+v", m)
		}
	}
	if len(plan.Moves) < 2 || len(plan.Moves) > 3 {
		t.Errorf("%d moves: %+v", len(plan.Moves), plan.Moves)
	}
}

func TestDefragRefusals(t *testing.T) {
	tests := []struct {
		name     string
		cluster  *deschedule.Cluster
		waiting  []*model.Pod
		maxMoves int
		want     error
	}{
		{name: "fits already", cluster: fragmented(true), waiting: []*model.Pod{pod("small", "", 1000, true)}, want: defrag.ErrNotNeeded},
		{name: "nothing movable (bare pods)", cluster: fragmented(false), waiting: []*model.Pod{pod("large", "", 3000, true)}, want: defrag.ErrNoPlan},
		{name: "more room than any node has", cluster: fragmented(true), waiting: []*model.Pod{pod("huge", "", 5000, true)}, want: defrag.ErrNoPlan},
		{name: "over the move bound", cluster: fragmented(true), waiting: []*model.Pod{pod("w-0", "", 3000, true), pod("w-1", "", 3000, true)}, maxMoves: 1, want: defrag.ErrNoPlan},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := find(t, tc.cluster, tc.waiting, tc.maxMoves)
			if !errors.Is(err, tc.want) {
				t.Errorf("plan %+v, err %v; want %v", plan, err, tc.want)
			}
		})
	}
}

func TestDefragBudget(t *testing.T) {
	c := fragmented(true)
	zero := int32(0)
	for i := 1; i <= 3; i++ {
		c.PDBs = append(c.PDBs, &model.PodDisruptionBudget{Namespace: "default", Name: fmt.Sprintf("big-%d", i),
			Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("big-%d", i)}}, DisruptionsAllowed: &zero})
	}
	plan, err := find(t, c, []*model.Pod{pod("large", "", 2500, true)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range plan.Moves {
		if m.Pod.Name[:3] == "big" {
			t.Errorf("moved %s, whose budget allows no disruption", m.Pod.Name)
		}
	}
	if len(plan.Moves) != 1 || plan.Moves[0].Pod.Name != "small-1" {
		t.Errorf("moves %+v: want small-1 moved instead of big-1", plan.Moves)
	}
}

// TestDefragExample is docs/descheduling.md's example: 40 nodes of 8 cpu,
// each 6.5 cpu full with pods of 0.5 to 2 cpu, and a gang of 4 members of
// 4 cpu (16 cpu; 60 cpu free in all, 1.5 per node).
func TestDefragExample(t *testing.T) {
	c := &deschedule.Cluster{}
	sizes := []int64{2000, 1500, 1000, 1000, 500, 500}
	for i := 1; i <= 40; i++ {
		n := fmt.Sprintf("node-%02d", i)
		c.Nodes = append(c.Nodes, node(n, 8000))
		for j, s := range sizes {
			c.Pods = append(c.Pods, pod(fmt.Sprintf("p-%02d-%d", i, j), n, s, true))
		}
	}
	var gang []*model.Pod
	for i := 0; i < 4; i++ {
		p := pod(fmt.Sprintf("train-%d", i), "", 4000, true)
		p.SchedulingGroup = "train"
		gang = append(gang, p)
	}
	start := time.Now()
	plan, err := find(t, c, gang, 0)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Placements) != 4 || len(plan.Moves) == 0 || len(plan.Moves) > 8 {
		t.Fatalf("plan %+v", plan)
	}
	t.Logf("gang of 4 x 4 cpu on 40 x 8 cpu nodes 81%% full: %d moves, placements %v, planned in %s", len(plan.Moves), plan.Placements, elapsed.Round(time.Millisecond))
}
