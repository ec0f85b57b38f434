package placement

import (
	"strings"
	"testing"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/simulate"
)

func node(name string, cpu int64) *model.Node {
	return &model.Node{Name: name, Labels: map[string]string{model.LabelHostname: name},
		Allocatable: model.ResourceList{"cpu": cpu, "memory": 8 << 30, "pods": 110}}
}

func request(workload string, count int32, cpu int64) admission.PlacementRequest {
	return admission.PlacementRequest{Workload: "ns/" + workload, Namespace: "ns", PodSets: []admission.PlacementPodSet{
		{Name: "main", Count: count, Requests: model.ResourceList{"cpu": cpu}},
	}}
}

// A placed workload keeps its room for the next; a gang that does not fit
// whole places none; a released workload gives its room back; a running
// pod of the input takes room.
func TestChecker(t *testing.T) {
	ctx := t.Context()
	running := &model.Pod{UID: "r", Namespace: "ns", Name: "running", NodeName: "n2",
		Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": 1000}}}}
	c, err := New(ctx, simulate.Input{Nodes: []*model.Node{node("n1", 2000), node("n2", 2000)}, Pods: []*model.Pod{running}},
		simulate.Options{Registry: registry.InTree()})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name     string
		req      admission.PlacementRequest
		release  string
		placed   int
		unplaced string
	}{
		{name: "two pods fit beside the running one", req: request("a", 2, 1000), placed: 2},
		{name: "a gang of two finds room for one only", req: request("b", 2, 1000), unplaced: "pod 2 of 2: 0/2 nodes are available: 2 Insufficient cpu."},
		{name: "the gang's first pod was taken back out", req: request("c", 1, 1000), placed: 1},
		{name: "a's room given back", release: "ns/a", req: request("b", 2, 1000), placed: 2},
	}
	for _, s := range steps {
		if s.release != "" {
			if err := c.Release(ctx, s.release); err != nil {
				t.Fatalf("%s: Release: %v", s.name, err)
			}
		}
		nodes, unplaced, err := c.Place(ctx, s.req)
		if err != nil {
			t.Fatalf("%s: Place: %v", s.name, err)
		}
		if len(nodes) != s.placed || !strings.HasPrefix(unplaced, s.unplaced) || (s.unplaced == "") != (unplaced == "") {
			t.Errorf("%s: placed %v, unplaced %q; want %d placed, unplaced %q", s.name, nodes, unplaced, s.placed, s.unplaced)
		}
		for pod, n := range nodes {
			if !strings.HasPrefix(pod, strings.TrimPrefix(s.req.Workload, "ns/")+"-main-") || (n != "n1" && n != "n2") {
				t.Errorf("%s: %s on %q", s.name, pod, n)
			}
		}
	}
}
