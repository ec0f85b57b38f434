package adminsvc_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/scheduler"
)

// ListPods lists bound pods beside the pending ones, with their states,
// and filters by state, namespace, node and text.
func TestListPods(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.load(t, []*model.Node{node("n1", 1000), node("n2", 1000)},
		pod("a", 100).Obj(), pod("b", 5000).Obj(), pod("c", 100).Gate("example.com/wait").Obj(),
		pod("e", 100).Node("n1").Obj(), mt.MakePod("web-1").Namespace("shop").Req(mt.Res(100, mt.Gi)).Node("n2").Obj())
	for range 2 { // a binds (to n1 or n2), b fails
		if _, err := e.sched.ScheduleOne(ctx); err != nil {
			t.Fatal(err)
		}
	}
	aNode := ""
	if ex, err := e.sched.View().Explain("default", "a"); err == nil {
		aNode = ex.Node
	}
	list := func(req *berthv1.ListPodsRequest) []string {
		t.Helper()
		resp, err := e.client.ListPods(ctx, req)
		if err != nil {
			t.Fatalf("ListPods(%v): %v", req, err)
		}
		var out []string
		for _, p := range resp.GetPods() {
			out = append(out, p.GetPod().GetNamespace()+"/"+p.GetPod().GetName()+":"+stateWord(p.GetState())+"@"+p.GetNode())
		}
		return out
	}
	tests := []struct {
		name string
		req  *berthv1.ListPodsRequest
		want []string
	}{
		{"all, bound ones too", &berthv1.ListPodsRequest{},
			[]string{"default/a:binding@" + aNode, "default/b:unschedulable@", "default/c:gated@", "default/e:bound@n1", "shop/web-1:bound@n2"}},
		{"bound only", &berthv1.ListPodsRequest{States: []berthv1.QueueState{berthv1.QueueState_QUEUE_STATE_BOUND}},
			[]string{"default/e:bound@n1", "shop/web-1:bound@n2"}},
		{"one namespace", &berthv1.ListPodsRequest{Namespace: "shop"}, []string{"shop/web-1:bound@n2"}},
		{"by text", &berthv1.ListPodsRequest{Contains: "web"}, []string{"shop/web-1:bound@n2"}},
		{"by text across namespace and name", &berthv1.ListPodsRequest{Contains: "t/c"}, []string{"default/c:gated@"}},
		{"on a node", &berthv1.ListPodsRequest{Node: "n1", States: []berthv1.QueueState{berthv1.QueueState_QUEUE_STATE_BOUND}},
			[]string{"default/e:bound@n1"}},
		{"nothing matches", &berthv1.ListPodsRequest{Namespace: "none"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, list(tt.req)); diff != "" {
				t.Errorf("ListPods (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("pages", func(t *testing.T) {
		var got []string
		for token := ""; ; {
			resp, err := e.client.ListPods(ctx, &berthv1.ListPodsRequest{PageSize: 2, PageToken: token})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range resp.GetPods() {
				got = append(got, p.GetPod().GetName())
			}
			if token = resp.GetNextPageToken(); token == "" {
				break
			}
		}
		if diff := cmp.Diff([]string{"a", "b", "c", "e", "web-1"}, got); diff != "" {
			t.Errorf("pages of 2 (-want +got):\n%s", diff)
		}
	})
	t.Run("a bound pod's entry", func(t *testing.T) {
		resp, err := e.client.ListPods(ctx, &berthv1.ListPodsRequest{Namespace: "shop"})
		if err != nil {
			t.Fatal(err)
		}
		want := []*berthv1.PendingPod{{Pod: &berthv1.PodRef{Namespace: "shop", Name: "web-1", Uid: "uid-web-1"}, SchedulerName: "default-scheduler",
			State: berthv1.QueueState_QUEUE_STATE_BOUND, Node: "n2"}}
		if diff := cmp.Diff(want, resp.GetPods(), protocmp.Transform()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	for name, tc := range map[string]struct {
		req   *berthv1.ListPodsRequest
		field string
	}{
		"unspecified state": {&berthv1.ListPodsRequest{States: []berthv1.QueueState{0}}, "states[0]"},
		"unknown state":     {&berthv1.ListPodsRequest{States: []berthv1.QueueState{1, 99}}, "states[1]"},
		"negative size":     {&berthv1.ListPodsRequest{PageSize: -1}, "page_size"},
		"malformed token":   {&berthv1.ListPodsRequest{PageToken: "!!"}, "page_token"},
		"bad namespace":     {&berthv1.ListPodsRequest{Namespace: "Not A Name"}, "namespace"},
		"bad node":          {&berthv1.ListPodsRequest{Node: "n_1"}, "node"},
		"text too long":     {&berthv1.ListPodsRequest{Contains: string(make([]byte, 254))}, "contains"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.client.ListPods(ctx, tc.req)
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("ListPods = %v, want InvalidArgument", err)
			}
			if got := badRequestField(t, err); got != tc.field {
				t.Errorf("field %q, want %q", got, tc.field)
			}
		})
	}
}

func stateWord(s berthv1.QueueState) string {
	return map[berthv1.QueueState]string{
		berthv1.QueueState_QUEUE_STATE_BINDING: "binding", berthv1.QueueState_QUEUE_STATE_BOUND: "bound",
		berthv1.QueueState_QUEUE_STATE_UNSCHEDULABLE: "unschedulable", berthv1.QueueState_QUEUE_STATE_GATED: "gated",
	}[s]
}

// Explain's shortfalls give numbers to NodeResourcesFit's reasons: the
// pod's request against each node's free room, for cpu, an extended
// resource and the pod count.
func TestExplainShortfalls(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	gpu := mt.MakeNode("gpu-1").Capacity(model.ResourceList{model.ResourceCPU: 8000, model.ResourceMemory: 8 * mt.Gi, "example.com/gpu": 1}).Obj()
	full := mt.MakeNode("full").Capacity(model.ResourceList{model.ResourceCPU: 8000, model.ResourceMemory: 8 * mt.Gi, model.ResourcePods: 1}).Obj()
	e.load(t, []*model.Node{node("small", 1000), gpu, full},
		pod("held", 500).Node("small").Obj(), pod("sits", 100).Node("full").Obj(),
		mt.MakePod("train").Req(model.ResourceList{model.ResourceCPU: 2000, model.ResourceMemory: mt.Gi, "example.com/gpu": 2}).Obj())
	att, err := e.sched.ScheduleOne(ctx)
	if err != nil || att.Result != scheduler.ResultUnschedulable {
		t.Fatalf("ScheduleOne = %+v, %v", att, err)
	}
	resp, err := e.client.Explain(ctx, &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: "train"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int64{"cpu": 2000, "memory": mt.Gi, "example.com/gpu": 2, "pods": 1}, resp.GetRequests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	want := []*berthv1.NodeShortfall{
		{Node: "full", Resources: []*berthv1.ResourceShortfall{
			{Resource: "example.com/gpu", Requested: 2}, {Resource: "pods", Requested: 1, Free: 0, Allocatable: 1}}},
		{Node: "gpu-1", Resources: []*berthv1.ResourceShortfall{{Resource: "example.com/gpu", Requested: 2, Free: 1, Allocatable: 1}}},
		{Node: "small", Resources: []*berthv1.ResourceShortfall{
			{Resource: "cpu", Requested: 2000, Free: 500, Allocatable: 1000}, {Resource: "example.com/gpu", Requested: 2}}},
	}
	if diff := cmp.Diff(want, resp.GetShortfalls(), protocmp.Transform()); diff != "" {
		t.Errorf("shortfalls (-want +got):\n%s\nreasons: %v", diff, resp.GetLastDiagnosis().GetNodeReasons())
	}
}
