package noderesources_test

import (
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
	"github.com/berthsched/berth/core/plugins/noderesources"
	"github.com/berthsched/berth/core/plugins/tainttoleration"
)

type (
	nodes   = []string
	reasons = map[string][]string
	scores  = map[string]map[string]int64
)

const (
	tt  = tainttoleration.Name
	na  = nodeaffinity.Name
	fit = noderesources.Name
	ba  = noderesources.BalancedAllocationName

	cpu       = noderesources.ReasonInsufficientCPU
	memory    = noderesources.ReasonInsufficientMemory
	ephemeral = noderesources.ReasonInsufficientEphemeral
	tooMany   = noderesources.ReasonTooManyPods
)

// TestOracleFitLeastAllocated replays testdata/fit-least.yaml with the
// default profile; the expected outcomes are what /tmp/kubeoracle
// (kube-scheduler 1.36.4) printed for it.
func TestOracleFitLeastAllocated(t *testing.T) {
	c := plugintest.Load(t, "testdata/fit-least.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, fitLeastSteps, filters, scorers)
}

var fitLeastSteps = []plugintest.Step{
	{Pod: "default/basic", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 62, "n2": 76, "n3": 55},
			ba:  {"n1": 75, "n2": 75, "n3": 75},
		},
	}},
	{Pod: "default/best-effort", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 72, "n2": 75, "n3": 75},
		},
	}},
	{Pod: "default/init-sidecar", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2"},
		Reasons:  reasons{"n3": {cpu}},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300},
			fit: {"n1": 43, "n2": 59},
			ba:  {"n1": 65, "n2": 70},
		},
	}},
	{Pod: "default/overhead", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 66, "n2": 55, "n3": 62},
			ba:  {"n1": 73, "n2": 74, "n3": 71},
		},
	}},
	{Pod: "default/gpu", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1"},
		Reasons:  reasons{"n2": {"Insufficient example.com/gpu"}, "n3": {"Insufficient example.com/gpu"}},
		Scores: scores{
			tt:  {"n1": 300},
			fit: {"n1": 47},
			ba:  {"n1": 71},
		},
	}},
	{Pod: "default/ephemeral", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1"},
		Reasons:  reasons{"n2": {ephemeral}, "n3": {ephemeral}},
		Scores: scores{
			tt:  {"n1": 300},
			fit: {"n1": 45},
			ba:  {"n1": 74},
		},
	}},
	{Pod: "default/hugepages", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n3"},
		Reasons:  reasons{"n1": {"Insufficient hugepages-2Mi"}, "n2": {"Insufficient hugepages-2Mi"}},
		Scores: scores{
			tt:  {"n3": 300},
			fit: {"n3": 76},
			ba:  {"n3": 74},
		},
	}},
	{Pod: "default/cpu-only", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2"},
		Reasons:  reasons{"n3": {tooMany}},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300},
			fit: {"n1": 34, "n2": 54},
			ba:  {"n1": 70, "n2": 72},
		},
	}},
	{Pod: "default/too-big", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"n1": {cpu}, "n2": {cpu}, "n3": {tooMany, cpu}},
		Unresolvable: nodes{"n1", "n2", "n3"},
	}},
	{Pod: "default/gpu-three", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"n1": {"Insufficient example.com/gpu"}, "n2": {"Insufficient example.com/gpu"}, "n3": {tooMany, "Insufficient example.com/gpu"}},
		Unresolvable: nodes{"n1", "n2", "n3"},
	}},
	{Pod: "default/mem-heavy", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n2"},
		Reasons:  reasons{"n1": {memory}, "n3": {tooMany, memory}},
		Scores: scores{
			tt:  {"n2": 300},
			fit: {"n2": 19},
			ba:  {"n2": 81},
		},
	}},
	{Pod: "default/mem-heavy-2", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"n1": {memory}, "n2": {memory}, "n3": {tooMany, memory}},
		Unresolvable: nodes{"n3"},
	}},
	{Pod: "default/small-1", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2"},
		Reasons:  reasons{"n3": {tooMany}},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300},
			fit: {"n1": 43, "n2": 19},
			ba:  {"n1": 74, "n2": 75},
		},
	}},
	{Pod: "default/small-2", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2"},
		Reasons:  reasons{"n3": {tooMany}},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300},
			fit: {"n1": 41, "n2": 19},
			ba:  {"n1": 75, "n2": 75},
		},
	}},
}

// TestOracleFitMostAllocated replays testdata/fit-most.yaml (MostAllocated,
// ignored extended resources).
func TestOracleFitMostAllocated(t *testing.T) {
	c := plugintest.Load(t, "testdata/fit-most.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, fitMostSteps, filters, scorers)
}

// TestOracleRequestedToCapacityRatio replays testdata/rtcr-shape.yaml.
func TestOracleRequestedToCapacityRatio(t *testing.T) {
	c := plugintest.Load(t, "testdata/rtcr-shape.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, rtcrShapeSteps, filters, scorers)
}

// TestOracleRTCRDocExample is the worked example of seed 003 section 10
// (shared/scenarios/binpack-rtcr-doc-example.yaml): the doc's scores 5 and
// 7 are 60 and 69 on kube's 0..100 scale, and node2 wins.
func TestOracleRTCRDocExample(t *testing.T) {
	c := plugintest.Load(t, "testdata/rtcr-doc-example.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, rtcrDocSteps, filters, plugintest.Only(scorers, fit))
}

// TestOracleBalancedAllocationFourResources replays
// testdata/balanced-four.yaml.
func TestOracleBalancedAllocationFourResources(t *testing.T) {
	c := plugintest.Load(t, "testdata/balanced-four.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, balancedFourSteps, filters, scorers)
}

var fitMostSteps = []plugintest.Step{
	{Pod: "default/plain", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 28, "n2": 24, "n3": 29},
			ba:  {"n1": 75, "n2": 75, "n3": 75},
		},
	}},
	{Pod: "default/no-requests", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 21, "n2": 21, "n3": 34},
		},
	}},
	{Pod: "default/gpu", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n3"},
		Reasons:  reasons{"n2": {"Insufficient example.com/gpu"}},
		Scores: scores{
			tt:  {"n1": 300, "n3": 300},
			fit: {"n1": 37, "n3": 80},
			ba:  {"n1": 73, "n3": 71},
		},
	}},
	{Pod: "default/storage", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2"},
		Reasons:  reasons{"n3": {ephemeral}},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300},
			fit: {"n1": 29, "n2": 35},
			ba:  {"n1": 73, "n2": 74},
		},
	}},
	{Pod: "default/ignored-resource", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 21, "n2": 35, "n3": 61},
			ba:  {"n1": 74, "n2": 74, "n3": 74},
		},
	}},
	{Pod: "default/ignored-group", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 21, "n2": 35, "n3": 66},
			ba:  {"n1": 74, "n2": 74, "n3": 73},
		},
	}},
	{Pod: "default/gpu-many", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1"},
		Reasons:  reasons{"n2": {"Insufficient example.com/gpu"}, "n3": {"Insufficient example.com/gpu"}},
		Scores: scores{
			tt:  {"n1": 300},
			fit: {"n1": 57},
			ba:  {"n1": 74},
		},
	}},
	{Pod: "default/cpu-heavy", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n2"},
		Reasons:  reasons{"n1": {cpu}, "n3": {cpu}},
		Scores: scores{
			tt:  {"n2": 300},
			fit: {"n2": 54},
			ba:  {"n2": 66},
		},
	}},
	{Pod: "default/cpu-heavy-2", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"n1": {cpu}, "n2": {cpu}, "n3": {cpu}},
		Unresolvable: nodes{"n3"},
	}},
}

var rtcrShapeSteps = []plugintest.Step{
	{Pod: "default/small", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 5, "n2": 62, "n3": 90},
			ba:  {"n1": 74, "n2": 75, "n3": 77},
		},
	}},
	{Pod: "default/gpu", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n3"},
		Reasons:  reasons{"n2": {"Insufficient example.com/gpu"}},
		Scores: scores{
			tt:  {"n1": 300, "n3": 300},
			fit: {"n1": 74, "n3": 58},
			ba:  {"n1": 72, "n3": 84},
		},
	}},
	{Pod: "default/no-requests", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 62, "n2": 57, "n3": 92},
		},
	}},
	{Pod: "default/cpu-big", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n2"},
		Reasons:  reasons{"n1": {cpu}, "n3": {cpu}},
		Scores: scores{
			tt:  {"n2": 300},
			fit: {"n2": 64},
			ba:  {"n2": 72},
		},
	}},
	{Pod: "default/mem-big", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 70, "n2": 81, "n3": 28},
			ba:  {"n1": 79, "n2": 84, "n3": 71},
		},
	}},
	{Pod: "default/gpu-2", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n3"},
		Reasons:  reasons{"n2": {"Insufficient example.com/gpu"}},
		Scores: scores{
			tt:  {"n1": 300, "n3": 300},
			fit: {"n1": 55, "n3": 32},
			ba:  {"n1": 74, "n3": 76},
		},
	}},
}

var rtcrDocSteps = []plugintest.Step{
	{Pod: "default/packed", Node: "node2", Want: plugintest.Outcome{
		Feasible: nodes{"node1", "node2"},
		Scores: scores{
			fit: {"node1": 60, "node2": 69},
		},
	}},
}

var balancedFourSteps = []plugintest.Step{
	{Pod: "default/small", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 64, "n2": 47, "n3": 41},
			ba:  {"n1": 74, "n2": 74, "n3": 77},
		},
	}},
	{Pod: "default/gpu", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n3"},
		Reasons:  reasons{"n2": {"Insufficient example.com/gpu"}},
		Scores: scores{
			tt:  {"n1": 300, "n3": 300},
			fit: {"n1": 45, "n3": 18},
			ba:  {"n1": 69, "n3": 85},
		},
	}},
	{Pod: "default/storage-only", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2"},
		Reasons:  reasons{"n3": {ephemeral}},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300},
			fit: {"n1": 43, "n2": 48},
			ba:  {"n1": 76, "n2": 79},
		},
	}},
	{Pod: "default/cpu-only", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 31, "n2": 40, "n3": 21},
			ba:  {"n1": 69, "n2": 72, "n3": 87},
		},
	}},
	{Pod: "default/no-requests", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 43, "n2": 38, "n3": 43},
		},
	}},
	{Pod: "default/memory-heavy", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2"},
		Reasons:  reasons{"n3": {ephemeral}},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300},
			fit: {"n1": 16, "n2": 14},
			ba:  {"n1": 70, "n2": 73},
		},
	}},
	{Pod: "default/overhead-only", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 39, "n2": 12, "n3": 41},
			ba:  {"n1": 74, "n2": 75, "n3": 76},
		},
	}},
}
