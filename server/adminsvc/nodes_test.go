package adminsvc_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

func TestListNodes(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	gpu := mt.MakeNode("n2").Capacity(mt.Res(4000, 8*mt.Gi)).Label("zone", "b").
		Taint("dedicated", "gpu", model.TaintEffectNoSchedule).Unschedulable().Obj()
	e.load(t, []*model.Node{node("n1", 1000), gpu, mt.MakeNode("n3").Label("zone", "b").Obj()},
		pod("a", 300).Node("n1").Obj(),
		mt.MakePod("b").Req(model.ResourceList{}).Node("n1").Obj(), // requests nothing: scoring counts the defaults
		pod("c", 200).Obj(),                                        // pending, scheduled below: assumed on n1
		pod("big", 9000).Nominated("n2").Obj())
	if att, err := e.sched.ScheduleOne(ctx); err != nil || att.Node != "n1" {
		t.Fatalf("ScheduleOne = %+v, %v", att, err)
	}
	resp, err := e.client.ListNodes(ctx, &berthv1.ListNodesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	const gi = 1 << 30
	want := &berthv1.ListNodesResponse{Nodes: []*berthv1.NodeUsage{
		{
			Name: "n1", Labels: map[string]string{"kubernetes.io/hostname": "n1"},
			Allocatable:      map[string]int64{"cpu": 1000, "memory": 8 * gi, "pods": 110},
			Requested:        map[string]int64{"cpu": 500, "memory": 2 * gi, "pods": 3},
			NonZeroRequested: map[string]int64{"cpu": 600, "memory": 2*gi + 200<<20},
			PodCount:         3,
		},
		{
			Name: "n2", Labels: map[string]string{"kubernetes.io/hostname": "n2", "zone": "b"},
			Taints:        []*berthv1.Taint{{Key: "dedicated", Value: "gpu", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}},
			Unschedulable: true,
			Allocatable:   map[string]int64{"cpu": 4000, "memory": 8 * gi, "pods": 110},
			Requested:     map[string]int64{}, NonZeroRequested: map[string]int64{},
			NominatedPodCount: 1,
		},
		{
			Name: "n3", Labels: map[string]string{"kubernetes.io/hostname": "n3", "zone": "b"},
			Allocatable: map[string]int64{}, Requested: map[string]int64{}, NonZeroRequested: map[string]int64{},
		},
	}}
	if diff := cmp.Diff(want, resp, protocmp.Transform()); diff != "" {
		t.Errorf("ListNodes (-want +got):\n%s", diff)
	}

	names := func(req *berthv1.ListNodesRequest) ([]string, string) {
		t.Helper()
		resp, err := e.client.ListNodes(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range resp.GetNodes() {
			out = append(out, n.GetName())
		}
		return out, resp.GetNextPageToken()
	}
	var paged []string
	for token := ""; ; {
		page, next := names(&berthv1.ListNodesRequest{PageSize: 2, PageToken: token})
		paged = append(paged, page...)
		if next == "" {
			break
		}
		token = next
	}
	if diff := cmp.Diff([]string{"n1", "n2", "n3"}, paged); diff != "" {
		t.Errorf("pages of 2 (-want +got):\n%s", diff)
	}
	if got, _ := names(&berthv1.ListNodesRequest{MatchLabels: map[string]string{"zone": "b", "kubernetes.io/hostname": "n3"}}); !cmp.Equal(got, []string{"n3"}) {
		t.Errorf("by labels: %v, want [n3]", got)
	}
	for name, req := range map[string]*berthv1.ListNodesRequest{
		"negative size":   {PageSize: -1},
		"malformed token": {PageToken: "!!"},
		"pod token":       {PageToken: "ZGVmYXVsdC94"}, // "default/x", a ListPending token
		"1 MiB token":     {PageToken: strings.Repeat("A", 1<<20)},
		"not a node name": {PageToken: "Tk9ERQ"}, // "NODE"
		"empty label key": {MatchLabels: map[string]string{"": "x"}},
	} {
		if _, err := e.client.ListNodes(ctx, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: %v, want InvalidArgument", name, err)
		}
	}
}
