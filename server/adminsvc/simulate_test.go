package adminsvc_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/server/convert"
)

func wirePod(name string, cpu int64, edit ...func(*berthv1.Pod)) *berthv1.Pod {
	p := convert.PodToProto(pod(name, cpu).Obj())
	for _, e := range edit {
		e(p)
	}
	return p
}

// liveState is what the live scheduler holds, to check Simulate changed
// nothing.
func (e *env) liveState(t *testing.T) string {
	t.Helper()
	nodes, err := e.sched.View().Nodes()
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, n := range nodes {
		out += fmt.Sprintf("node %s pods=%d requested=%+v\n", n.Node.Name, n.Pods, n.Requested)
	}
	for _, p := range e.sched.View().Pods() {
		ex, err := e.sched.View().ExplainUID(p.UID)
		if err != nil {
			t.Fatal(err)
		}
		out += fmt.Sprintf("pod %s node=%q phase=%s queue=%s nominated=%q\n", p.Key(), p.NodeName, ex.Phase, ex.Queue.SubQueue, ex.Queue.NominatedNode)
	}
	out += fmt.Sprintf("stats %+v\nnominations %+v\n", e.sched.View().Stats(), e.sched.View().Nominations())
	return out
}

// attemptSummary is an attempt without its scores, which the scoring
// plugins decide.
type attemptSummary struct {
	Pod, Result, Node, Message string
	Feasible                   []string
	Reasons                    map[string][]string
}

func summarize(a *berthv1.SimulateAttempt) attemptSummary {
	s := attemptSummary{Pod: a.GetPod().GetName(), Result: a.GetResult().String(), Node: a.GetNode(), Message: a.GetMessage()}
	for _, v := range a.GetNodes() {
		if v.GetFeasible() {
			s.Feasible = append(s.Feasible, v.GetNode())
		} else if len(v.GetReasons()) > 0 {
			if s.Reasons == nil {
				s.Reasons = map[string][]string{}
			}
			s.Reasons[v.GetNode()] = v.GetReasons()
		}
	}
	return s
}

// simulateSummaries simulates req and summarizes the attempts.
func simulateSummaries(t *testing.T, e *env, req *berthv1.SimulateRequest) (*berthv1.SimulateResponse, []attemptSummary) {
	t.Helper()
	resp, err := e.client.Simulate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	var got []attemptSummary
	for _, a := range resp.GetAttempts() {
		got = append(got, summarize(a))
	}
	return resp, got
}

func TestSimulateCommitsNothing(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.load(t, []*model.Node{node("n1", 1000), node("n2", 2000)},
		pod("run", 500).Node("n1").Obj(), pod("wait", 5000).Nominated("n2").Obj())
	if _, err := e.sched.ScheduleOne(ctx); err != nil { // "wait" fails
		t.Fatal(err)
	}
	before := e.liveState(t)

	req := &berthv1.SimulateRequest{
		ClusterDelta: []*berthv1.Object{convert.ObjectToProto(convert.Object{Node: node("n3", 4000)})},
		ClusterRemovals: []*berthv1.ObjectRef{
			{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: "n2"},
			{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: "ghost"}, // ignored
		},
		Pods: []*berthv1.Pod{
			wirePod("p4", 10000),
			wirePod("p2", 400),
			wirePod("p1", 3000, func(p *berthv1.Pod) { p.Priority = new(int32(10)) }),
			wirePod("p3", 100, func(p *berthv1.Pod) { p.SchedulingGates = []string{"example.com/wait"} }),
			wirePod("p5", 100, func(p *berthv1.Pod) { p.NodeName = "n1" }),
		},
	}
	resp, got := simulateSummaries(t, e, req)
	// Queue order: p1 (priority 10) first, then in the order given. p5 is
	// placed as given.
	want := []attemptSummary{
		{Pod: "p1", Result: "SIMULATE_RESULT_BOUND", Node: "n3", Feasible: []string{"n3"}, Reasons: map[string][]string{"n1": {"Insufficient cpu"}}},
		{Pod: "p4", Result: "SIMULATE_RESULT_UNSCHEDULABLE", Reasons: map[string][]string{"n1": {"Insufficient cpu"}, "n3": {"Insufficient cpu"}}},
		{Pod: "p2", Result: "SIMULATE_RESULT_BOUND", Node: "n3", Feasible: []string{"n1", "n3"}},
		{Pod: "p3", Result: "SIMULATE_RESULT_GATED", Message: "pod was rejected by PreEnqueue plugin SchedulingGates"},
	}
	if diff := cmp.Diff(want, got, cmpIgnoreMessageOf("p4")); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	if msg := resp.GetAttempts()[1].GetMessage(); len(msg) < 24 || msg[:24] != "0/2 nodes are available:" {
		t.Errorf("p4 message = %q", msg)
	}
	// One feasible node: kube-scheduler does not score, the report does.
	// Two: scored, with each plugin's share.
	if a := resp.GetAttempts()[0]; !a.GetScoresReportOnly() || !a.GetNodes()[1].GetScored() || a.GetNodes()[0].GetScored() {
		t.Errorf("lone feasible node: want scores for the report only on n3: %v", a)
	}
	for _, v := range resp.GetAttempts()[2].GetNodes() {
		sum := int64(0)
		for _, s := range v.GetPluginScores() {
			sum += s
		}
		if !v.GetScored() || len(v.GetPluginScores()) == 0 || sum != v.GetTotalScore() {
			t.Errorf("node %s: total %d, plugin scores %v", v.GetNode(), v.GetTotalScore(), v.GetPluginScores())
		}
	}
	if after := e.liveState(t); after != before {
		t.Errorf("Simulate changed the live scheduler:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// cmpIgnoreMessageOf ignores the message of one pod's summary (it is
// checked apart: its preemption part depends on DefaultPreemption).
func cmpIgnoreMessageOf(pod string) cmp.Option {
	return cmp.Transformer("ignoreMessage", func(s attemptSummary) attemptSummary {
		if s.Pod == pod {
			s.Message = ""
		}
		return s
	})
}

func TestSimulateErrors(t *testing.T) {
	e := newEnv(t)
	e.load(t, []*model.Node{node("n1", 1000)})
	tests := []struct {
		name      string
		req       *berthv1.SimulateRequest
		want      codes.Code
		wantField string
	}{
		{name: "invalid pod", req: &berthv1.SimulateRequest{Pods: []*berthv1.Pod{
			wirePod("a", 1), wirePod("b", 1, func(p *berthv1.Pod) { p.Containers[0].Name = "" }),
		}}, want: codes.InvalidArgument, wantField: "pods[1].containers[0].name"},
		{name: "invalid delta", req: &berthv1.SimulateRequest{ClusterDelta: []*berthv1.Object{{Kind: &berthv1.Object_Node{Node: &berthv1.Node{}}}}},
			want: codes.InvalidArgument, wantField: "cluster_delta[0].node.name"},
		{name: "invalid removal", req: &berthv1.SimulateRequest{ClusterRemovals: []*berthv1.ObjectRef{{Name: "n1"}}},
			want: codes.InvalidArgument, wantField: "cluster_removals[0].kind"},
		{name: "unknown profile", req: &berthv1.SimulateRequest{SchedulerName: "nope", Pods: []*berthv1.Pod{wirePod("a", 1)}}, want: codes.FailedPrecondition},
		{name: "unknown class in the delta", req: &berthv1.SimulateRequest{ClusterDelta: []*berthv1.Object{
			{Kind: &berthv1.Object_Pod{Pod: wirePod("a", 1, func(p *berthv1.Pod) { p.PriorityClassName = "gold" })}},
		}}, want: codes.FailedPrecondition},
		{name: "class in the delta", req: &berthv1.SimulateRequest{
			ClusterDelta: []*berthv1.Object{{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{Name: "gold", Value: 5}}}},
			Pods:         []*berthv1.Pod{wirePod("a", 1, func(p *berthv1.Pod) { p.PriorityClassName = "gold" })},
		}, want: codes.OK},
		{name: "profile override", req: &berthv1.SimulateRequest{SchedulerName: "default-scheduler",
			Pods: []*berthv1.Pod{wirePod("a", 1, func(p *berthv1.Pod) { p.SchedulerName = "nope" })}}, want: codes.OK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.client.Simulate(t.Context(), tc.req)
			if status.Code(err) != tc.want {
				t.Fatalf("Simulate = %v, want %v", err, tc.want)
			}
			if tc.wantField != "" {
				if got := badRequestField(t, err); got != tc.wantField {
					t.Errorf("BadRequest field = %q, want %q", got, tc.wantField)
				}
			}
		})
	}
	if pods := e.sched.View().Pods(); len(pods) != 0 {
		t.Errorf("the live scheduler holds %d pods after simulations", len(pods))
	}
}

// TestSimulateKeepsAdmittedPriority copies held pods with the priority
// they were admitted with, even after their PriorityClass is deleted.
func TestSimulateKeepsAdmittedPriority(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if err := e.sched.Upsert(ctx, &model.PriorityClass{Name: "pc1", Value: 1000}); err != nil {
		t.Fatal(err)
	}
	held := pod("held", 600).Nominated("n1").Obj()
	held.PriorityClassName = "pc1"
	e.load(t, []*model.Node{node("n1", 1000)}, held)
	if err := e.sched.Delete(ctx, objstore.Ref{Kind: objstore.KindPriorityClass, Name: "pc1"}); err != nil {
		t.Fatal(err)
	}
	// "held" (1000) keeps its room on n1 from a pod of priority 500; were
	// its priority lost, the room would go to the newcomer.
	resp, err := e.client.Simulate(ctx, &berthv1.SimulateRequest{Pods: []*berthv1.Pod{
		wirePod("newcomer", 600, func(p *berthv1.Pod) { p.Priority = new(int32(500)) }),
	}})
	if err != nil {
		t.Fatalf("Simulate = %v", err)
	}
	if got := resp.GetAttempts(); len(got) != 1 || got[0].GetResult() != berthv1.SimulateResult_SIMULATE_RESULT_UNSCHEDULABLE {
		t.Errorf("attempts = %v, want newcomer unschedulable", got)
	}

	// A pod of the delta naming the deleted class is refused, its field
	// named from the request's root.
	_, err = e.client.Simulate(ctx, &berthv1.SimulateRequest{ClusterDelta: []*berthv1.Object{
		{Kind: &berthv1.Object_Pod{Pod: wirePod("late", 1, func(p *berthv1.Pod) { p.PriorityClassName = "pc1" })}},
	}})
	if status.Code(err) != codes.FailedPrecondition || !strings.HasPrefix(status.Convert(err).Message(), "cluster_delta[0].pod.priority_class_name: no PriorityClass with name pc1") {
		t.Errorf("delta pod of a deleted class: %v", err)
	}
}

// TestSimulateReportsRefusedAndSkipped reports, as berthctl simulate does,
// a pod refused at admission as ERROR and one no profile serves as
// SKIPPED, and still schedules the others.
func TestSimulateReportsRefusedAndSkipped(t *testing.T) {
	e := newEnv(t)
	e.load(t, []*model.Node{node("n1", 1000)})
	_, got := simulateSummaries(t, e, &berthv1.SimulateRequest{Pods: []*berthv1.Pod{
		wirePod("classless", 1, func(p *berthv1.Pod) { p.PriorityClassName = "gold" }),
		wirePod("elsewhere", 1, func(p *berthv1.Pod) { p.SchedulerName = "nope" }),
		wirePod("fits", 1),
	}})
	want := []attemptSummary{
		{Pod: "classless", Result: "SIMULATE_RESULT_ERROR", Message: "no PriorityClass with name gold was found"},
		{Pod: "elsewhere", Result: "SIMULATE_RESULT_SKIPPED", Message: `no profile for schedulerName "nope"`},
		{Pod: "fits", Result: "SIMULATE_RESULT_BOUND", Node: "n1", Feasible: []string{"n1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}

// TestSimulateCopiesNamespaces copies the namespaces the live scheduler
// holds with their labels: a pod whose required affinity selects a
// namespace by label finds its peer through the copy.
func TestSimulateCopiesNamespaces(t *testing.T) {
	e := newEnv(t)
	if err := e.sched.Upsert(t.Context(), &model.Namespace{Name: "prod", Labels: map[string]string{"team": "a"}}); err != nil {
		t.Fatal(err)
	}
	e.load(t, []*model.Node{node("n1", 1000), node("n2", 1000)}, pod("db", 100).Namespace("prod").Label("app", "db").Node("n1").Obj())
	near := convert.PodToProto(pod("near", 100).PodAffinity(0, model.PodAffinityTerm{
		LabelSelector:     &model.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		NamespaceSelector: &model.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
		TopologyKey:       model.LabelHostname,
	}).Obj())
	_, got := simulateSummaries(t, e, &berthv1.SimulateRequest{Pods: []*berthv1.Pod{near}})
	want := []attemptSummary{{Pod: "near", Result: "SIMULATE_RESULT_BOUND", Node: "n1", Feasible: []string{"n1"},
		Reasons: map[string][]string{"n2": {"node(s) didn't match pod affinity rules"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}
