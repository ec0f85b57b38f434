package convert_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/simulate"
	"github.com/berthsched/berth/server/convert"
)

// TestSimulateAttemptRoundTrip converts attempts of every result to the
// wire and back: the trace line printed from the wire must be the one the
// engine reported, byte for byte.
func TestSimulateAttemptRoundTrip(t *testing.T) {
	pod := &model.Pod{Namespace: "ns", Name: "p", UID: "u1"}
	low := &model.Pod{Namespace: "ns", Name: "low", UID: "u2"}
	nodes := []string{"n1", "n2", "n3"}
	tests := []struct {
		name string
		a    simulate.Attempt
	}{
		{name: "bound with a tie", a: simulate.Attempt{Pod: pod, Line: simulate.Line{
			Pod: "ns/p", Result: simulate.ResultBound, Node: "n1", Feasible: []string{"n1", "n2"},
			Scores:       map[string]int64{"n1": 200, "n2": 200},
			PluginScores: map[string]map[string]int64{"n1": {"A": 100, "B": 100}, "n2": {"A": 200}},
			TopNodes:     []string{"n2", "n1"}, TieBreak: simulate.TieBreakSmallestName,
			Reasons: map[string][]string{"n3": {"Insufficient cpu", "Too many pods"}},
		}}},
		{name: "bound alone, scored for the report, a score of 0", a: simulate.Attempt{Pod: pod, Line: simulate.Line{
			Pod: "ns/p", Result: simulate.ResultBound, Node: "n2", Feasible: []string{"n2"}, ScoresReportOnly: true, ViaNominatedNode: true,
			Scores: map[string]int64{"n2": 0}, PluginScores: map[string]map[string]int64{"n2": {}},
		}}},
		{name: "nominated", a: simulate.Attempt{Pod: pod, Victims: []*model.Pod{low}, Line: simulate.Line{
			Pod: "ns/p", Result: simulate.ResultNominated, Node: "n3", Victims: []string{"ns/low"}, Message: "0/3 nodes are available: 3 Insufficient cpu.",
		}}},
		{name: "unschedulable", a: simulate.Attempt{Pod: pod, Line: simulate.Line{
			Pod: "ns/p", Result: simulate.ResultUnschedulable, Message: "0/3 nodes are available: ...",
			Reasons:      map[string][]string{"n1": {"Insufficient cpu"}, "n2": {"node(s) had untolerated taint {a: b}"}, "gone": {"x"}},
			Unresolvable: []string{"gone", "n2"},
		}}},
		{name: "gated", a: simulate.Attempt{Pod: pod, Line: simulate.Line{
			Pod: "ns/p", Result: simulate.ResultGated, Plugin: "SchedulingGates", Message: "pod was rejected by PreEnqueue plugin SchedulingGates",
		}}},
		{name: "skipped", a: simulate.Attempt{Pod: pod, Line: simulate.Line{Pod: "ns/p", Result: simulate.ResultSkipped, Message: `no profile for schedulerName "x"`}}},
		{name: "error", a: simulate.Attempt{Pod: pod, Line: simulate.Line{Pod: "ns/p", Result: simulate.ResultError, Message: "no PriorityClass with name gold was found"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wire := convert.SimulateAttemptToProto(tc.a, nodes)
			if wire.GetResult() == berthv1.SimulateResult_SIMULATE_RESULT_UNSPECIFIED {
				t.Fatalf("result %q has no wire value", tc.a.Result)
			}
			if got := wire.GetPod().GetUid(); got != "u1" {
				t.Errorf("pod uid = %q", got)
			}
			want, err := json.Marshal(tc.a.Line)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(convert.SimulateLineFromProto(wire))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("trace line (-engine +wire):\n%s", diff)
			}
		})
	}
}
