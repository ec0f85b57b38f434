package nodeports_test

import (
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
	"github.com/berthsched/berth/core/plugins/nodeports"
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

	busy = nodeports.ErrReason
)

// TestOraclePorts replays testdata/ports.yaml with the default profile; the expected
// outcomes are what /tmp/kubeoracle (kube-scheduler 1.36.4) printed for it.
func TestOraclePorts(t *testing.T) {
	c := plugintest.Load(t, "testdata/ports.yaml")
	filters, scorers := plugintest.Profile(t, c.Args)
	plugintest.Replay(t, c, portSteps, filters, scorers)
}

var portSteps = []plugintest.Step{
	{Pod: "default/want-80", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n2", "n3"},
		Reasons:  reasons{"n1": {busy}},
		Scores: scores{
			tt:  {"n2": 300, "n3": 300},
			fit: {"n2": 97, "n3": 96},
			ba:  {"n2": 75, "n3": 75},
		},
	}},
	{Pod: "default/want-8080-other-ip", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 97, "n2": 96, "n3": 96},
			ba:  {"n1": 75, "n2": 75, "n3": 75},
		},
	}},
	{Pod: "default/want-8080-any-ip", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n3"},
		Reasons:  reasons{"n1": {busy}, "n2": {busy}},
		Scores: scores{
			tt:  {"n3": 300},
			fit: {"n3": 96},
			ba:  {"n3": 75},
		},
	}},
	{Pod: "default/want-53-tcp", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 96, "n2": 96, "n3": 95},
			ba:  {"n1": 75, "n2": 75, "n3": 75},
		},
	}},
	{Pod: "default/want-53-udp", Node: "n1", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n3"},
		Reasons:  reasons{"n2": {busy}},
		Scores: scores{
			tt:  {"n1": 300, "n3": 300},
			fit: {"n1": 95, "n3": 95},
			ba:  {"n1": 75, "n3": 75},
		},
	}},
	{Pod: "default/want-9090", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2"},
		Reasons:  reasons{"n3": {busy}},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300},
			fit: {"n1": 94, "n2": 96},
			ba:  {"n1": 74, "n2": 75},
		},
	}},
	{Pod: "default/want-7070", Node: "n2", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 94, "n2": 95, "n3": 95},
			ba:  {"n1": 74, "n2": 75, "n3": 75},
		},
	}},
	{Pod: "default/container-port-only", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n1", "n2", "n3"},
		Scores: scores{
			tt:  {"n1": 300, "n2": 300, "n3": 300},
			fit: {"n1": 94, "n2": 94, "n3": 95},
			ba:  {"n1": 74, "n2": 74, "n3": 75},
		},
	}},
	{Pod: "default/sidecar-wants-80", Node: "n3", Want: plugintest.Outcome{
		Feasible: nodes{"n3"},
		Reasons:  reasons{"n1": {busy}, "n2": {busy}},
		Scores: scores{
			tt:  {"n3": 300},
			fit: {"n3": 93},
			ba:  {"n3": 74},
		},
	}},
	{Pod: "default/want-80-again", Node: "", Want: plugintest.Outcome{
		Reasons: reasons{"n1": {busy}, "n2": {busy}, "n3": {busy}},
	}},
}
