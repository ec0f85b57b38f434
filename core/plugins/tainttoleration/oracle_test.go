package tainttoleration_test

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

	untolerated = tainttoleration.ErrReasonNotMatch
)

// TestOracleTaints replays testdata/taints.yaml with the default profile;
// the expected outcomes are what /tmp/kubeoracle (kube-scheduler 1.36.4)
// printed for it.
func TestOracleTaints(t *testing.T) {
	c := plugintest.Load(t, "testdata/taints.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, taintSteps, filters, scorers)
}

var taintSteps = []plugintest.Step{
	{Pod: "default/plain", Node: "clean", Want: plugintest.Outcome{
		Feasible: nodes{"clean", "soft-one", "soft-two"},
		Reasons:  reasons{"exec": {untolerated}, "hard": {untolerated}},
		Scores: scores{
			tt:  {"clean": 300, "soft-one": 150, "soft-two": 0},
			fit: {"clean": 98, "soft-one": 98, "soft-two": 98},
			ba:  {"clean": 74, "soft-one": 74, "soft-two": 74},
		},
	}},
	{Pod: "default/tolerates-k1", Node: "clean", Want: plugintest.Outcome{
		Feasible: nodes{"clean", "soft-one", "soft-two"},
		Reasons:  reasons{"exec": {untolerated}, "hard": {untolerated}},
		Scores: scores{
			tt:  {"clean": 300, "soft-one": 300, "soft-two": 0},
			fit: {"clean": 97, "soft-one": 98, "soft-two": 98},
			ba:  {"clean": 75, "soft-one": 74, "soft-two": 74},
		},
	}},
	{Pod: "default/tolerates-k2-any-effect", Node: "clean", Want: plugintest.Outcome{
		Feasible: nodes{"clean", "soft-one", "soft-two"},
		Reasons:  reasons{"exec": {untolerated}, "hard": {untolerated}},
		Scores: scores{
			tt:  {"clean": 300, "soft-one": 0, "soft-two": 0},
			fit: {"clean": 96, "soft-one": 98, "soft-two": 98},
			ba:  {"clean": 75, "soft-one": 74, "soft-two": 74},
		},
	}},
	{Pod: "default/tolerates-k1-wrong-value", Node: "clean", Want: plugintest.Outcome{
		Feasible: nodes{"clean", "soft-one", "soft-two"},
		Reasons:  reasons{"exec": {untolerated}, "hard": {untolerated}},
		Scores: scores{
			tt:  {"clean": 300, "soft-one": 150, "soft-two": 0},
			fit: {"clean": 95, "soft-one": 98, "soft-two": 98},
			ba:  {"clean": 75, "soft-one": 74, "soft-two": 74},
		},
	}},
	{Pod: "default/k1-noschedule-only", Node: "clean", Want: plugintest.Outcome{
		Feasible: nodes{"clean", "soft-one", "soft-two"},
		Reasons:  reasons{"exec": {untolerated}, "hard": {untolerated}},
		Scores: scores{
			tt:  {"clean": 300, "soft-one": 150, "soft-two": 0},
			fit: {"clean": 94, "soft-one": 98, "soft-two": 98},
			ba:  {"clean": 74, "soft-one": 74, "soft-two": 74},
		},
	}},
	{Pod: "default/dedicated", Node: "clean", Want: plugintest.Outcome{
		Feasible: nodes{"clean", "hard", "soft-one", "soft-two"},
		Reasons:  reasons{"exec": {untolerated}},
		Scores: scores{
			tt:  {"clean": 300, "hard": 150, "soft-one": 150, "soft-two": 0},
			fit: {"clean": 93, "hard": 98, "soft-one": 98, "soft-two": 98},
			ba:  {"clean": 75, "hard": 74, "soft-one": 74, "soft-two": 74},
		},
	}},
	{Pod: "default/maintenance", Node: "exec", Want: plugintest.Outcome{
		Feasible: nodes{"clean", "exec", "soft-one", "soft-two"},
		Reasons:  reasons{"hard": {untolerated}},
		Scores: scores{
			tt:  {"clean": 300, "exec": 300, "soft-one": 150, "soft-two": 0},
			fit: {"clean": 92, "exec": 98, "soft-one": 98, "soft-two": 98},
			ba:  {"clean": 75, "exec": 74, "soft-one": 74, "soft-two": 74},
		},
	}},
	{Pod: "default/tolerates-everything", Node: "exec", Want: plugintest.Outcome{
		Feasible: nodes{"clean", "exec", "hard", "soft-one", "soft-two"},
		Scores: scores{
			tt:  {"clean": 300, "exec": 300, "hard": 300, "soft-one": 300, "soft-two": 300},
			fit: {"clean": 92, "exec": 97, "hard": 98, "soft-one": 98, "soft-two": 98},
			ba:  {"clean": 75, "exec": 75, "hard": 74, "soft-one": 74, "soft-two": 74},
		},
	}},
	{Pod: "default/all-prefer", Node: "hard", Want: plugintest.Outcome{
		Feasible: nodes{"clean", "hard", "soft-one", "soft-two"},
		Reasons:  reasons{"exec": {untolerated}},
		Scores: scores{
			tt:  {"clean": 300, "hard": 300, "soft-one": 300, "soft-two": 300},
			fit: {"clean": 92, "hard": 98, "soft-one": 98, "soft-two": 98},
			ba:  {"clean": 75, "hard": 74, "soft-one": 74, "soft-two": 74},
		},
	}},
}
