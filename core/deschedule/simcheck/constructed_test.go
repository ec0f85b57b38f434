package simcheck_test

import (
	"context"
	"strings"
	"testing"

	"github.com/berthsched/berth/core/deschedule"
	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/deschedule/simcheck"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/simulate"
)

func node(name, zone string, taints ...model.Taint) *model.Node {
	return &model.Node{Name: name, Labels: map[string]string{model.LabelHostname: name, model.LabelZone: zone, "kubernetes.io/os": "linux"},
		Allocatable: model.ResourceList{"cpu": 4000, "memory": 8 << 30, "pods": 110}, Taints: taints}
}

func pod(name, on string, cpu int64, edit func(*model.Pod)) *model.Pod {
	p := &model.Pod{UID: "u-" + name, Namespace: "default", Name: name, NodeName: on, SchedulerName: model.DefaultSchedulerName,
		Labels:     map[string]string{"app": "web"},
		Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": cpu, "memory": 1 << 30}}},
		Runtime:    &model.PodRuntime{Owners: []model.OwnerReference{{Kind: "ReplicaSet", Name: "web", UID: "rs-web"}}},
	}
	if edit != nil {
		edit(p)
	}
	return p
}

func TestCheckConstructed(t *testing.T) {
	taint := model.Taint{Key: "maint", Effect: model.TaintEffectNoSchedule}
	tests := []struct {
		name      string
		nodes     []*model.Node
		pods      []*model.Pod
		evict     []string // pod names, with the strategy
		strategy  string
		wantTo    map[string]string // kept moves: pod → node
		wantSkip  map[string]string // skipped: pod → a substring of the reason
		landsBack int
	}{
		{
			name:     "a tainted node's pod moves to the untainted one",
			nodes:    []*model.Node{node("n1", "a", taint), node("n2", "b")},
			pods:     []*model.Pod{pod("a", "n1", 500, nil)},
			evict:    []string{"a"},
			strategy: policy.RemovePodsViolatingNodeTaints,
			wantTo:   map[string]string{"a": "n2"},
		},
		{
			name:  "a pod pinned to its node lands back",
			nodes: []*model.Node{node("n1", "a"), node("n2", "b")},
			pods: []*model.Pod{
				pod("pinned", "n1", 1000, func(p *model.Pod) { p.NodeSelector = map[string]string{model.LabelHostname: "n1"} }),
				pod("free", "n1", 1000, nil),
			},
			evict:     []string{"pinned", "free"},
			strategy:  policy.LowNodeUtilization,
			wantTo:    map[string]string{"free": "n2"},
			wantSkip:  map[string]string{"pinned": "place it back on n1"},
			landsBack: 1,
		},
		{
			name:     "no node has room",
			nodes:    []*model.Node{node("n1", "a", taint), node("n2", "b")},
			pods:     []*model.Pod{pod("big", "n1", 3000, nil), pod("filler", "n2", 3000, nil)},
			evict:    []string{"big"},
			strategy: policy.RemovePodsViolatingNodeTaints,
			wantSkip: map[string]string{"big": "place it nowhere"},
		},
		{
			name:  "a duplicate that would join as many of its owner's pods is not moved",
			nodes: []*model.Node{node("n1", "a"), node("n2", "b")},
			pods: []*model.Pod{
				pod("d1", "n1", 100, nil), pod("d2", "n1", 100, nil),
				pod("d3", "n2", 100, nil), pod("d4", "n2", 100, nil),
				pod("busy", "n1", 3000, func(p *model.Pod) { p.Runtime = nil }),
			},
			evict:    []string{"d2"},
			strategy: policy.RemoveDuplicates,
			wantSkip: map[string]string{"d2": "would hold 3 of its owner's pods"},
		},
		{
			name:  "moves of one plan see each other",
			nodes: []*model.Node{node("n1", "a", taint), node("n2", "b"), node("n3", "c")},
			pods: []*model.Pod{
				pod("x", "n1", 2500, nil), pod("y", "n1", 2500, nil), pod("z", "n1", 2500, nil),
				pod("fill", "n3", 3500, nil),
			},
			evict:    []string{"x", "y", "z"},
			strategy: policy.RemovePodsViolatingNodeTaints,
			wantTo:   map[string]string{"x": "n2"},
			wantSkip: map[string]string{"y": "place it nowhere", "z": "place it nowhere"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			byName := map[string]*model.Pod{}
			for _, p := range tc.pods {
				byName[p.Name] = p
			}
			var evs []simcheck.Eviction
			for _, n := range tc.evict {
				evs = append(evs, simcheck.Eviction{Pod: byName[n], Strategy: tc.strategy})
			}
			plan, err := simcheck.Check(context.Background(), simcheck.Input{
				Cluster: &deschedule.Cluster{Nodes: tc.nodes, Pods: tc.pods},
				Sim:     simulate.Options{Registry: registry.InTree()},
			}, evs)
			if err != nil {
				t.Fatal(err)
			}
			gotTo := map[string]string{}
			for _, m := range plan.Moves {
				gotTo[m.Pod.Name] = m.To
			}
			if len(gotTo) != len(tc.wantTo) {
				t.Errorf("moves %v; want %v", gotTo, tc.wantTo)
			}
			for p, to := range tc.wantTo {
				if gotTo[p] != to {
					t.Errorf("%s moved to %q; want %q", p, gotTo[p], to)
				}
			}
			back := 0
			for _, s := range plan.Skipped {
				want, ok := tc.wantSkip[s.Pod.Name]
				if !ok || !strings.Contains(s.Reason, want) {
					t.Errorf("%s skipped: %q; want %q", s.Pod.Name, s.Reason, want)
				}
				if s.LandsBack {
					back++
				}
			}
			if len(plan.Skipped) != len(tc.wantSkip) || back != tc.landsBack {
				t.Errorf("%d skipped (%d landing back); want %d (%d)", len(plan.Skipped), back, len(tc.wantSkip), tc.landsBack)
			}
		})
	}
}
