package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/plugins/registry"
)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func cpuNode(name string, milli int64) *model.Node {
	return mt.MakeNode(name).Capacity(mt.Res(milli, 8*mt.Gi)).Obj()
}

func cpuPod(name string, milli int64, created int) *mt.PodBuilder {
	return mt.MakePod(name).Req(mt.Res(milli, mt.Gi)).Created(t0.Add(time.Duration(created) * time.Second))
}

func simulate(t *testing.T, in Input, reg map[string]framework.PluginFactory) []Line {
	t.Helper()
	if reg == nil {
		reg = registry.InTree()
	}
	if in.Config == nil {
		in.Config = withoutMissing(config.Default(), reg)
	}
	lines, err := Run(context.Background(), in, Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// summary keeps what a test table checks of a line.
type summary struct{ Pod, Result, Node, Message string }

func summarize(lines []Line) []summary {
	out := make([]summary, len(lines))
	for i, l := range lines {
		out[i] = summary{l.Pod, l.Result, l.Node, l.Message}
	}
	return out
}

func TestRunOrderAndResults(t *testing.T) {
	orphan := cpuPod("orphan", 100, 1).Obj()
	orphan.PriorityClassName = "nope"
	in := Input{
		Nodes: []*model.Node{cpuNode("n1", 2000), cpuNode("n2", 2000)},
		Pods: []*model.Pod{
			cpuPod("running", 1500, 0).Node("n1").Obj(),
			cpuPod("low", 1000, 2).Obj(),
			cpuPod("same-time", 1000, 2).Obj(),
			cpuPod("early", 1000, 1).Obj(),
			cpuPod("high", 1000, 5).RequestedPriority(100).Obj(),
			orphan,
			cpuPod("gated", 100, 3).Gate("example.com/wait").Obj(),
			cpuPod("other", 100, 3).SchedulerName("other-scheduler").Obj(),
			cpuPod("dying", 100, 3).Terminating().Obj(),
			cpuPod("too-big", 3000, 4).Obj(),
		},
	}
	want := []summary{
		{"default/orphan", ResultError, "", "no PriorityClass with name nope was found"},
		{"default/high", ResultBound, "n2", ""},
		{"default/early", ResultBound, "n2", ""},
		{"default/low", ResultUnschedulable, "", "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."},
		{"default/same-time", ResultUnschedulable, "", "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."},
		{"default/gated", ResultGated, "", "pod was rejected by PreEnqueue plugin SchedulingGates"},
		{"default/other", ResultSkipped, "", `no profile for schedulerName "other-scheduler"`},
		{"default/dying", ResultSkipped, "", "pod is being deleted"},
		{"default/too-big", ResultUnschedulable, "", "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."},
	}
	lines := simulate(t, in, nil)
	if diff := cmp.Diff(want, summarize(lines)); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if lines[5].Plugin != names.SchedulingGates {
		t.Errorf("gated line plugin %q", lines[5].Plugin)
	}
	if diff := cmp.Diff([]string{"n1", "n2"}, lines[8].Unresolvable); diff != "" {
		t.Errorf("too-big: a request above allocatable is unresolvable everywhere (-want +got):\n%s", diff)
	}
}

func TestBoundLineDetails(t *testing.T) {
	in := Input{
		Nodes: []*model.Node{cpuNode("b", 4000), cpuNode("a", 4000), cpuNode("small", 500)},
		Pods:  []*model.Pod{cpuPod("p", 1000, 1).Obj(), cpuPod("q", 1000, 2).Obj()},
	}
	lines := simulate(t, in, nil)
	first := lines[0]
	if first.Node != "a" || first.TieBreak != TieBreakSmallestName || !cmp.Equal(first.TopNodes, []string{"a", "b"}) {
		t.Errorf("tie: node %s tieBreak %q top %v", first.Node, first.TieBreak, first.TopNodes)
	}
	if !cmp.Equal(first.Feasible, []string{"a", "b"}) || !cmp.Equal(first.Reasons, map[string][]string{"small": {"Insufficient cpu"}}) {
		t.Errorf("feasible %v reasons %v", first.Feasible, first.Reasons)
	}
	if first.Scores["a"] != first.Scores["b"] || first.PluginScores["a"][names.NodeResourcesFit] == 0 {
		t.Errorf("scores %v plugin scores %v", first.Scores, first.PluginScores)
	}
	// The first bind is seen: q prefers the emptier node.
	if lines[1].Node != "b" || lines[1].TieBreak != "" {
		t.Errorf("second pod on %s (tieBreak %q), want b without a tie", lines[1].Node, lines[1].TieBreak)
	}
}

// fakePreemption stands in for DefaultPreemption: it evicts every
// lower-priority pod of a fixed node and nominates that node.
type fakePreemption struct {
	node string
	h    framework.Handle
}

func (*fakePreemption) Name() string { return names.DefaultPreemption }

func (f *fakePreemption) PostFilter(ctx context.Context, _ *framework.CycleState, pod *model.Pod, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	ni, err := f.h.SnapshotSharedLister().Get(f.node)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	for _, pi := range ni.Pods {
		if pi.Pod.Priority < pod.Priority {
			if _, err := framework.SubmitOne(ctx, f.h.Decisions(), &framework.Eviction{Victim: pi.Pod, Node: f.node, Preemptor: pod, Message: "preempted"}); err != nil {
				return nil, framework.AsStatus(err)
			}
		}
	}
	return &framework.PostFilterResult{NominatedNodeName: f.node}, nil
}

func TestPreemptionRetry(t *testing.T) {
	reg := registry.InTree()
	reg[names.DefaultPreemption] = func(_ context.Context, _ json.RawMessage, h framework.Handle) (framework.Plugin, error) {
		return &fakePreemption{node: "n1", h: h}, nil
	}
	in := Input{
		Nodes: []*model.Node{cpuNode("n1", 2000)},
		Pods: []*model.Pod{
			cpuPod("victim", 2000, 0).Node("n1").Obj(),
			cpuPod("p", 2000, 1).RequestedPriority(100).Obj(),
		},
	}
	for _, tc := range []struct {
		name    string
		retries int
		want    []summary
	}{
		{name: "retried at once", want: []summary{
			{"default/p", ResultNominated, "n1", "0/1 nodes are available: 1 Insufficient cpu."},
			{"default/p", ResultBound, "n1", ""},
		}},
		{name: "no retry", retries: -1, want: []summary{
			{"default/p", ResultNominated, "n1", "0/1 nodes are available: 1 Insufficient cpu."},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in.Config = withoutMissing(config.Default(), reg)
			lines, err := Run(context.Background(), in, Options{Registry: reg, MaxPreemptionRetries: tc.retries})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(lines)); diff != "" {
				t.Fatalf("lines (-want +got):\n%s", diff)
			}
			b, _ := json.Marshal(lines[0])
			wantJSON := `{"pod":"default/p","result":"nominated","node":"n1","victims":["default/victim"],"message":"0/1 nodes are available: 1 Insufficient cpu."}`
			if string(b) != wantJSON {
				t.Errorf("nominated line\n got %s\nwant %s", b, wantJSON)
			}
			if len(lines) > 1 && (!lines[1].ViaNominatedNode || !lines[1].ScoresReportOnly) {
				t.Errorf("retry line %+v: want viaNominatedNode and scoresReportOnly", lines[1])
			}
		})
	}
}

func TestPercentageOfNodesToScore(t *testing.T) {
	nodes := make([]*model.Node, 300)
	for i := range nodes {
		nodes[i] = cpuNode(nodeName(i), 4000)
	}
	reg := registry.InTree()
	withGlobal := func(p *int32) *config.Config {
		cfg := withoutMissing(config.Default(), reg)
		cfg.PercentageOfNodesToScore = p
		return cfg
	}
	tests := []struct {
		name   string
		config *config.Config
		option *int32
		want   int
	}{
		{name: "unset: every node, as kubeoracle", config: withGlobal(nil), want: 300},
		// 50 - 300/125 = 48% of 300.
		{name: "explicit 0 in the configuration: kube's adaptive share", config: withGlobal(ptr(int32(0))), want: 144},
		{name: "explicit 60 in the configuration", config: withGlobal(ptr(int32(60))), want: 180},
		{name: "the option wins over the configuration", config: withGlobal(ptr(int32(0))), option: ptr(int32(100)), want: 300},
		{name: "at least 100 nodes", config: withGlobal(nil), option: ptr(int32(10)), want: 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Nodes: nodes, Pods: []*model.Pod{cpuPod("p", 100, 1).Obj()}, Config: tc.config}
			lines, err := Run(context.Background(), in, Options{Registry: reg, PercentageOfNodesToScore: tc.option})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(lines[0].Feasible); got != tc.want {
				t.Errorf("%d feasible nodes, want %d", got, tc.want)
			}
		})
	}
}

func nodeName(i int) string {
	return fmt.Sprintf("n%03d", i)
}
