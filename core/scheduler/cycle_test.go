package scheduler

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/queue"
)

func ptr[T any](v T) *T { return &v }

func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		name    string
		global  int32
		profile *int32
		nodes   int32
		want    int32
	}{
		{name: "below 100 nodes: all", nodes: 99, want: 99},
		{name: "100 nodes adaptive: at least 100", nodes: 100, want: 100},
		{name: "1000 nodes adaptive: 42%", nodes: 1000, want: 420},
		{name: "5000 nodes adaptive: 10%", nodes: 5000, want: 500},
		{name: "6000 nodes adaptive: clamped at 5%", nodes: 6000, want: 300},
		{name: "20000 nodes adaptive: 5%", nodes: 20000, want: 1000},
		{name: "global percentage", global: 30, nodes: 1000, want: 300},
		{name: "global percentage, at least 100", global: 5, nodes: 1000, want: 100},
		{name: "profile wins over global", global: 30, profile: ptr(int32(60)), nodes: 1000, want: 600},
		{name: "profile 100%", profile: ptr(int32(100)), nodes: 5000, want: 5000},
		{name: "profile 0 is adaptive", global: 30, profile: ptr(int32(0)), nodes: 1000, want: 420},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Scheduler{percentageOfNodesToScore: tc.global}
			if got := s.numFeasibleNodesToFind(tc.profile, tc.nodes); got != tc.want {
				t.Errorf("numFeasibleNodesToFind = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestFilterWindow checks, with parallelism 1, which nodes each cycle
// filters: in zone-interleaved order, from the start index left by the
// previous cycle, stopping after one feasible node more than needed.
func TestFilterWindow(t *testing.T) {
	tests := []struct {
		name     string
		nodes    []*model.Node
		percent  int32
		rejected []string
		cycles   int
		want     [][]string // filter calls per cycle
	}{
		{
			name: "zone interleave (doc 003 §9)",
			nodes: []*model.Node{
				zoned("1", "a"), zoned("2", "a"), zoned("3", "a"), zoned("4", "a"), zoned("5", "b"), zoned("6", "b"),
			},
			cycles: 1,
			want:   [][]string{{"1", "5", "2", "6", "3", "4"}},
		},
		{
			name:    "early stop and rotating start",
			nodes:   manyNodes(200),
			percent: 50, // 100 feasible nodes to find
			cycles:  3,
			want: [][]string{
				nodeNames("n", 101),
				append(nodeNames("n", 200)[100:], "n000"),
				nodeNames("n", 101),
			},
		},
		{
			name:     "rejected nodes count as processed",
			nodes:    manyNodes(200),
			percent:  50,
			rejected: nodeNames("n", 10),
			cycles:   2,
			want: [][]string{
				nodeNames("n", 111),
				append(nodeNames("n", 200)[110:], nodeNames("n", 21)...), // 90 + 10 rejected + 11
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeFilter{name: "F", reject: map[string]reject{}}
			for _, n := range tc.rejected {
				f.reject[n] = reject{framework.Unschedulable, "no"}
			}
			tp := &testPlugins{filters: []*fakeFilter{f}, scores: []*fakeScore{{name: "S"}}}
			if tc.percent != 0 {
				tp.extraConfig = func(p *config.Profile) { p.PercentageOfNodesToScore = ptr(tc.percent) }
			}
			e := newEnv(t, tp, nil)
			e.addNodes(tc.nodes...)
			var got [][]string
			for i := range tc.cycles {
				e.addPods(mt.MakePod(nodeNames("p", tc.cycles)[i]).Obj())
				att := e.scheduleOne()
				if att.Result != ResultScheduled {
					t.Fatalf("cycle %d: %s %s", i, att.Result, att.Message)
				}
				got = append(got, f.calls())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("filter calls (-want +got):\n%s", diff)
			}
		})
	}
}

func zoned(name, zone string) *model.Node {
	return mt.MakeNode(name).Zone(zone).Capacity(mt.Res(4000, 8*mt.Gi)).Obj()
}

func manyNodes(n int) []*model.Node {
	out := make([]*model.Node, n)
	for i, name := range nodeNames("n", n) {
		out[i] = mt.MakeNode(name).Capacity(mt.Res(4000, 8*mt.Gi)).Obj()
	}
	return out
}

func TestNominatedNodeFirst(t *testing.T) {
	tests := []struct {
		name      string
		rejectN3  bool
		wantCalls []string
		wantNode  string
		wantVia   bool
	}{
		{name: "nominated node fits: nothing else is evaluated", wantCalls: []string{"n3"}, wantNode: "n3", wantVia: true},
		{name: "nominated node fails: every node is evaluated", rejectN3: true, wantCalls: []string{"n3", "n1", "n2", "n3"}, wantNode: "n1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeFilter{name: "F", reject: map[string]reject{}}
			if tc.rejectN3 {
				f.reject["n3"] = reject{framework.Unschedulable, "no"}
			}
			// n1 scores best: only the nominated-node shortcut picks n3.
			sc := &fakeScore{name: "S", scores: map[string]int64{"n1": 90, "n2": 10, "n3": 10}}
			e := newEnv(t, &testPlugins{filters: []*fakeFilter{f}, scores: []*fakeScore{sc}}, nil)
			for _, n := range []string{"n1", "n2", "n3"} {
				e.addNodes(mt.MakeNode(n).Obj())
			}
			e.addPods(mt.MakePod("p").Nominated("n3").Obj())
			att := e.scheduleOne()
			if diff := cmp.Diff(tc.wantCalls, f.calls()); diff != "" {
				t.Errorf("filter calls (-want +got):\n%s", diff)
			}
			if att.Node != tc.wantNode || att.ViaNominatedNode != tc.wantVia {
				t.Errorf("node %q via nominated %v, want %q %v", att.Node, att.ViaNominatedNode, tc.wantNode, tc.wantVia)
			}
		})
	}
}

func TestSelectHost(t *testing.T) {
	scores := []framework.NodePluginScores{
		{Name: "c", TotalScore: 50}, {Name: "b", TotalScore: 70}, {Name: "d", TotalScore: 70}, {Name: "a", TotalScore: 70}, {Name: "e", TotalScore: 10},
	}
	t.Run("deterministic: smallest name among the top", func(t *testing.T) {
		s := &Scheduler{opts: Options{Deterministic: true}}
		var top []string
		host := s.selectHost(scores, &top)
		if host != "a" || !cmp.Equal(top, []string{"a", "b", "d"}) {
			t.Errorf("selectHost = %q %v, want a [a b d]", host, top)
		}
	})
	t.Run("random: each top node gets its share", func(t *testing.T) {
		s := &Scheduler{rand: rand.New(rand.NewPCG(1, 2))}
		count := map[string]int{}
		for range 3000 {
			host := s.selectHost(scores, nil)
			count[host]++
		}
		for _, n := range []string{"a", "b", "d"} {
			if count[n] < 850 || count[n] > 1150 {
				t.Errorf("%s chosen %d times out of 3000, want about 1000 (%v)", n, count[n], count)
			}
		}
		if count["c"]+count["e"] != 0 {
			t.Errorf("a node below the top score was chosen: %v", count)
		}
	})
}

func TestScoresAndTopNodes(t *testing.T) {
	sc := &fakeScore{name: "S", scores: map[string]int64{"n1": 20, "n2": 60, "n3": 60}}
	e := newEnv(t, &testPlugins{filters: []*fakeFilter{{name: "F", reject: map[string]reject{"n4": {framework.UnschedulableAndUnresolvable, "nope"}}}}, scores: []*fakeScore{sc}}, nil)
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		e.addNodes(mt.MakeNode(n).Obj())
	}
	e.addPods(mt.MakePod("p").Obj())
	att := e.scheduleOne()
	if att.Node != "n2" || !cmp.Equal(att.TopNodes, []string{"n2", "n3"}) || !cmp.Equal(att.Feasible, []string{"n1", "n2", "n3"}) {
		t.Errorf("node %s top %v feasible %v; want n2 [n2 n3] [n1 n2 n3]", att.Node, att.TopNodes, att.Feasible)
	}
	if got := att.Diagnosis.NodeToStatus.Get("n4").Reasons(); !cmp.Equal(got, []string{"nope"}) {
		t.Errorf("n4 reasons %v", got)
	}
	want := map[string]int64{"n1": 20, "n2": 60, "n3": 60}
	got := map[string]int64{}
	for _, ns := range att.Scores {
		got[ns.Name] = ns.TotalScore
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
}

func TestSingleFeasibleNode(t *testing.T) {
	for _, report := range []bool{false, true} {
		sc := &fakeScore{name: "S", scores: map[string]int64{"n1": 42}}
		e := newEnv(t, &testPlugins{filters: []*fakeFilter{{name: "F", reject: map[string]reject{"n2": {framework.Unschedulable, "no"}}}}, scores: []*fakeScore{sc}},
			func(o *Options) { o.Replay.ScoreSingleNode = report })
		e.addNodes(mt.MakeNode("n1").Obj(), mt.MakeNode("n2").Obj())
		e.addPods(mt.MakePod("p").Obj())
		att := e.scheduleOne()
		if att.Node != "n1" || att.ScoresReportOnly != report || (len(att.Scores) == 1) != report {
			t.Errorf("ScoreSingleNode=%v: node %s reportOnly %v scores %v", report, att.Node, att.ScoresReportOnly, att.Scores)
		}
	}
}

func TestNoNodes(t *testing.T) {
	e := newEnv(t, &testPlugins{}, nil)
	e.addPods(mt.MakePod("p").Obj())
	att := e.scheduleOne()
	if att.Result != ResultUnschedulable || att.Message != "no nodes available to schedule pods" {
		t.Fatalf("attempt %s %q", att.Result, att.Message)
	}
	// Without a rejecting plugin the failure is retried after backoff.
	if ex, _ := e.s.View().Explain("default", "p"); ex.Queue.SubQueue != queue.Backoff {
		t.Errorf("sub-queue %s, want Backoff", ex.Queue.SubQueue)
	}
	if diff := cmp.Diff([]string{"default/p: no nodes available to schedule pods"}, e.reporter.reports()); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

func TestFitErrorMessageAndRequeue(t *testing.T) {
	f := &fakeFilter{name: "F", reject: map[string]reject{
		"n1": {framework.Unschedulable, "Insufficient cpu"},
		"n2": {framework.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector"},
		"n3": {framework.Unschedulable, "Insufficient cpu"},
	}}
	e := newEnv(t, &testPlugins{filters: []*fakeFilter{f}}, nil)
	e.addNodes(mt.MakeNode("n1").Obj(), mt.MakeNode("n2").Obj(), mt.MakeNode("n3").Obj())
	e.addPods(mt.MakePod("p").Obj())
	att := e.scheduleOne()
	want := "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu."
	if att.Result != ResultUnschedulable || att.Message != want {
		t.Fatalf("attempt %s %q, want unschedulable %q", att.Result, att.Message, want)
	}
	ex, err := e.s.View().Explain("default", "p")
	if err != nil {
		t.Fatal(err)
	}
	if ex.Queue.SubQueue != queue.Unschedulable || !cmp.Equal(ex.Queue.UnschedulablePlugins, []string{"F"}) {
		t.Errorf("queue state %+v, want Unschedulable by F", ex.Queue)
	}
	wantNodes := []NodeDiagnosis{
		{Node: "n1", Reasons: []string{"Insufficient cpu"}, Plugin: "F"},
		{Node: "n2", Reasons: []string{"node(s) didn't match Pod's node affinity/selector"}, Plugin: "F", Unresolvable: true},
		{Node: "n3", Reasons: []string{"Insufficient cpu"}, Plugin: "F"},
	}
	if diff := cmp.Diff(wantNodes, ex.Diagnosis.Nodes); diff != "" {
		t.Errorf("diagnosis (-want +got):\n%s", diff)
	}
}

func TestEvaluateCommitsNothing(t *testing.T) {
	f := &fakeFilter{name: "F", reject: map[string]reject{"n000": {framework.Unschedulable, "no"}}}
	pf := &fakePostFilter{name: "PF", nominate: "n001"}
	e := newEnv(t, &testPlugins{filters: []*fakeFilter{f}, scores: []*fakeScore{{name: "S"}}, postFilter: pf},
		func(o *Options) { o.PercentageOfNodesToScore = ptr(int32(10)) })
	e.addNodes(manyNodes(150)...)
	att, err := e.s.Evaluate(context.Background(), mt.MakePod("what-if").Obj())
	if err != nil {
		t.Fatal(err)
	}
	if att.Result != ResultScheduled || len(att.Feasible) != 149 || len(att.Scores) != 149 {
		t.Errorf("evaluate: %s, %d feasible, %d scored; want every node filtered and scored", att.Result, len(att.Feasible), len(att.Scores))
	}
	if got := att.Diagnosis.NodeToStatus.Get("n000").Reasons(); !cmp.Equal(got, []string{"no"}) {
		t.Errorf("n000 verdict %v", got)
	}
	// A pod no node fits: no preemption, no nomination.
	f.reject = map[string]reject{}
	for _, n := range nodeNames("n", 150) {
		f.reject[n] = reject{framework.Unschedulable, "no"}
	}
	att, err = e.s.Evaluate(context.Background(), mt.MakePod("what-if").Obj())
	if err != nil {
		t.Fatal(err)
	}
	if att.Result != ResultUnschedulable || att.NominatedNode != "" || att.Message != "0/150 nodes are available: 150 no." {
		t.Errorf("evaluate: %s nominated %q %q", att.Result, att.NominatedNode, att.Message)
	}
	st := e.s.View().Stats()
	if len(e.sink.decisions()) != 0 || st.Pods != 0 || st.Cache.Pods != 0 || e.s.nextStartNodeIndex != 0 || len(e.reporter.reports()) != 0 {
		t.Errorf("Evaluate changed state: decisions %v, stats %+v, start index %d", e.sink.decisions(), st, e.s.nextStartNodeIndex)
	}
}
