package nodeaffinity_test

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

	podReason = nodeaffinity.ErrReasonPod
	conflict  = nodeaffinity.ErrReasonConflict
	enforced  = nodeaffinity.ErrReasonEnforced
)

// TestOracleAffinity replays testdata/affinity.yaml; the expected outcomes
// are what /tmp/kubeoracle (kube-scheduler 1.36.4) printed for it.
// match-fields narrows the nodes to a-hdd and c-none in PreFilter, so the
// oracle lists no reason for a-ssd and b-ssd.
func TestOracleAffinity(t *testing.T) {
	c := plugintest.Load(t, "testdata/affinity.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, affinitySteps, filters, scorers)
}

// TestOracleAddedAffinity replays testdata/added-affinity.yaml, whose
// profile gives NodeAffinity an addedAffinity.
func TestOracleAddedAffinity(t *testing.T) {
	c := plugintest.Load(t, "testdata/added-affinity.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, addedAffinitySteps, filters, scorers)
}

var affinitySteps = []plugintest.Step{
	{Pod: "default/selector", Node: "a-ssd", Want: plugintest.Outcome{
		Feasible: nodes{"a-ssd", "b-ssd"},
		Reasons:  reasons{"a-hdd": {podReason}, "c-none": {podReason}},
		Scores: scores{
			tt:  {"a-ssd": 300, "b-ssd": 300},
			fit: {"a-ssd": 97, "b-ssd": 97},
			ba:  {"a-ssd": 74, "b-ssd": 74},
		},
	}},
	{Pod: "default/required-in", Node: "a-hdd", Want: plugintest.Outcome{
		Feasible: nodes{"a-hdd", "a-ssd", "c-none"},
		Reasons:  reasons{"b-ssd": {podReason}},
		Scores: scores{
			tt:  {"a-hdd": 300, "a-ssd": 300, "c-none": 300},
			fit: {"a-hdd": 97, "a-ssd": 95, "c-none": 97},
			ba:  {"a-hdd": 74, "a-ssd": 75, "c-none": 74},
		},
	}},
	{Pod: "default/required-or", Node: "b-ssd", Want: plugintest.Outcome{
		Feasible: nodes{"b-ssd", "c-none"},
		Reasons:  reasons{"a-hdd": {podReason}, "a-ssd": {podReason}},
		Scores: scores{
			tt:  {"b-ssd": 300, "c-none": 300},
			fit: {"b-ssd": 97, "c-none": 97},
			ba:  {"b-ssd": 74, "c-none": 74},
		},
	}},
	{Pod: "default/gt-lt", Node: "a-hdd", Want: plugintest.Outcome{
		Feasible: nodes{"a-hdd"},
		Reasons:  reasons{"a-ssd": {podReason}, "b-ssd": {podReason}, "c-none": {podReason}},
		Scores: scores{
			tt:  {"a-hdd": 300},
			fit: {"a-hdd": 95},
			ba:  {"a-hdd": 75},
		},
	}},
	{Pod: "default/notin-exists", Node: "b-ssd", Want: plugintest.Outcome{
		Feasible: nodes{"b-ssd"},
		Reasons:  reasons{"a-hdd": {podReason}, "a-ssd": {podReason}, "c-none": {podReason}},
		Scores: scores{
			tt:  {"b-ssd": 300},
			fit: {"b-ssd": 95},
			ba:  {"b-ssd": 75},
		},
	}},
	{Pod: "default/selector-and-affinity", Node: "a-hdd", Want: plugintest.Outcome{
		Feasible: nodes{"a-hdd"},
		Reasons:  reasons{"a-ssd": {podReason}, "b-ssd": {podReason}, "c-none": {podReason}},
		Scores: scores{
			tt:  {"a-hdd": 300},
			fit: {"a-hdd": 93},
			ba:  {"a-hdd": 74},
		},
	}},
	{Pod: "default/preferred", Node: "b-ssd", Want: plugintest.Outcome{
		Feasible: nodes{"a-hdd", "a-ssd", "b-ssd", "c-none"},
		Scores: scores{
			tt:  {"a-hdd": 300, "a-ssd": 300, "b-ssd": 300, "c-none": 300},
			na:  {"a-hdd": 16, "a-ssd": 44, "b-ssd": 200, "c-none": 136},
			fit: {"a-hdd": 91, "a-ssd": 95, "b-ssd": 93, "c-none": 97},
			ba:  {"a-hdd": 75, "a-ssd": 75, "b-ssd": 74, "c-none": 74},
		},
	}},
	{Pod: "default/preferred-none-match", Node: "c-none", Want: plugintest.Outcome{
		Feasible: nodes{"a-hdd", "a-ssd", "b-ssd", "c-none"},
		Scores: scores{
			tt:  {"a-hdd": 300, "a-ssd": 300, "b-ssd": 300, "c-none": 300},
			na:  {"a-hdd": 0, "a-ssd": 0, "b-ssd": 0, "c-none": 0},
			fit: {"a-hdd": 91, "a-ssd": 95, "b-ssd": 91, "c-none": 97},
			ba:  {"a-hdd": 75, "a-ssd": 75, "b-ssd": 75, "c-none": 74},
		},
	}},
	{Pod: "default/required-and-preferred", Node: "b-ssd", Want: plugintest.Outcome{
		Feasible: nodes{"a-hdd", "a-ssd", "b-ssd"},
		Reasons:  reasons{"c-none": {podReason}},
		Scores: scores{
			tt:  {"a-hdd": 300, "a-ssd": 300, "b-ssd": 300},
			na:  {"a-hdd": 60, "a-ssd": 0, "b-ssd": 200},
			fit: {"a-hdd": 91, "a-ssd": 95, "b-ssd": 91},
			ba:  {"a-hdd": 75, "a-ssd": 75, "b-ssd": 75},
		},
	}},
	{Pod: "default/match-fields", Node: "a-hdd", Want: plugintest.Outcome{
		Feasible: nodes{"a-hdd"},
		Reasons:  reasons{"c-none": {podReason}},
		Scores: scores{
			tt:  {"a-hdd": 300},
			fit: {"a-hdd": 91},
			ba:  {"a-hdd": 75},
		},
	}},
	{Pod: "default/match-fields-notin", Node: "a-hdd", Want: plugintest.Outcome{
		Feasible: nodes{"a-hdd"},
		Reasons:  reasons{"a-ssd": {podReason}, "b-ssd": {podReason}, "c-none": {podReason}},
		Scores: scores{
			tt:  {"a-hdd": 300},
			fit: {"a-hdd": 89},
			ba:  {"a-hdd": 74},
		},
	}},
	{Pod: "default/match-fields-mixed", Node: "c-none", Want: plugintest.Outcome{
		Feasible: nodes{"b-ssd", "c-none"},
		Reasons:  reasons{"a-hdd": {podReason}, "a-ssd": {podReason}},
		Scores: scores{
			tt:  {"b-ssd": 300, "c-none": 300},
			fit: {"b-ssd": 89, "c-none": 95},
			ba:  {"b-ssd": 74, "c-none": 75},
		},
	}},
	{Pod: "default/match-fields-conflict", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"a-hdd": {conflict}, "a-ssd": {conflict}, "b-ssd": {conflict}, "c-none": {conflict}},
		Unresolvable: nodes{"a-hdd", "a-ssd", "b-ssd", "c-none"},
	}},
	{Pod: "default/no-match", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"a-hdd": {podReason}, "a-ssd": {podReason}, "b-ssd": {podReason}, "c-none": {podReason}},
		Unresolvable: nodes{"a-hdd", "a-ssd", "b-ssd", "c-none"},
	}},
	{Pod: "default/empty-required", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"a-hdd": {podReason}, "a-ssd": {podReason}, "b-ssd": {podReason}, "c-none": {podReason}},
		Unresolvable: nodes{"a-hdd", "a-ssd", "b-ssd", "c-none"},
	}},
}

var addedAffinitySteps = []plugintest.Step{
	{Pod: "default/plain", Node: "batch-1", Want: plugintest.Outcome{
		Feasible: nodes{"batch-1", "gen-1", "gen-2"},
		Reasons:  reasons{"infra-1": {enforced}},
		Scores: scores{
			tt:  {"batch-1": 300, "gen-1": 300, "gen-2": 300},
			na:  {"batch-1": 200, "gen-1": 0, "gen-2": 50},
			fit: {"batch-1": 97, "gen-1": 97, "gen-2": 97},
			ba:  {"batch-1": 74, "gen-1": 74, "gen-2": 74},
		},
	}},
	{Pod: "default/prefers-gen-2", Node: "gen-2", Want: plugintest.Outcome{
		Feasible: nodes{"batch-1", "gen-1", "gen-2"},
		Reasons:  reasons{"infra-1": {enforced}},
		Scores: scores{
			tt:  {"batch-1": 300, "gen-1": 300, "gen-2": 300},
			na:  {"batch-1": 72, "gen-1": 0, "gen-2": 200},
			fit: {"batch-1": 95, "gen-1": 97, "gen-2": 97},
			ba:  {"batch-1": 75, "gen-1": 74, "gen-2": 74},
		},
	}},
	{Pod: "default/wants-infra", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"batch-1": {podReason}, "gen-1": {podReason}, "gen-2": {podReason}, "infra-1": {enforced}},
		Unresolvable: nodes{"batch-1", "gen-1", "gen-2", "infra-1"},
	}},
	{Pod: "default/wants-general", Node: "gen-2", Want: plugintest.Outcome{
		Feasible: nodes{"gen-1", "gen-2"},
		Reasons:  reasons{"batch-1": {podReason}, "infra-1": {enforced}},
		Scores: scores{
			tt:  {"gen-1": 300, "gen-2": 300},
			na:  {"gen-1": 0, "gen-2": 200},
			fit: {"gen-1": 97, "gen-2": 95},
			ba:  {"gen-1": 74, "gen-2": 75},
		},
	}},
}
