package nodeunschedulable_test

import (
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
	"github.com/berthsched/berth/core/plugins/noderesources"
	"github.com/berthsched/berth/core/plugins/nodeunschedulable"
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

	cordoned = nodeunschedulable.ErrReasonUnschedulable
	cpu      = noderesources.ReasonInsufficientCPU
)

// TestOracleCordon replays testdata/cordon.yaml with the default profile; the expected
// outcomes are what /tmp/kubeoracle (kube-scheduler 1.36.4) printed for it.
func TestOracleCordon(t *testing.T) {
	c := plugintest.Load(t, "testdata/cordon.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, cordonSteps, filters, scorers)
}

var cordonSteps = []plugintest.Step{
	{Pod: "default/plain", Node: "open", Want: plugintest.Outcome{
		Feasible: nodes{"open"},
		Reasons:  reasons{"cordoned": {cordoned}, "cordoned-tainted": {cordoned}},
		Scores: scores{
			tt:  {"open": 300},
			fit: {"open": 91},
			ba:  {"open": 74},
		},
	}},
	{Pod: "default/tolerates-cordon", Node: "cordoned", Want: plugintest.Outcome{
		Feasible: nodes{"cordoned", "cordoned-tainted", "open"},
		Scores: scores{
			tt:  {"cordoned": 300, "cordoned-tainted": 300, "open": 300},
			fit: {"cordoned": 98, "cordoned-tainted": 98, "open": 83},
			ba:  {"cordoned": 74, "cordoned-tainted": 74, "open": 74},
		},
	}},
	{Pod: "default/tolerates-cordon-noexecute", Node: "open", Want: plugintest.Outcome{
		Feasible: nodes{"open"},
		Reasons:  reasons{"cordoned": {cordoned}, "cordoned-tainted": {cordoned}},
		Scores: scores{
			tt:  {"open": 300},
			fit: {"open": 83},
			ba:  {"open": 74},
		},
	}},
	{Pod: "default/tolerates-all", Node: "cordoned", Want: plugintest.Outcome{
		Feasible: nodes{"cordoned", "cordoned-tainted", "open"},
		Scores: scores{
			tt:  {"cordoned": 300, "cordoned-tainted": 300, "open": 300},
			fit: {"cordoned": 97, "cordoned-tainted": 98, "open": 75},
			ba:  {"cordoned": 75, "cordoned-tainted": 74, "open": 74},
		},
	}},
	{Pod: "default/too-big-for-open", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"cordoned": {cordoned}, "cordoned-tainted": {cordoned}, "open": {cpu}},
		Unresolvable: nodes{"cordoned", "cordoned-tainted", "open"},
	}},
}
