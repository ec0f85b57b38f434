package podtopologyspread_test

import (
	"path/filepath"
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/interpodaffinity"
	"github.com/berthsched/berth/core/plugins/nodeaffinity"
	"github.com/berthsched/berth/core/plugins/noderesources"
	"github.com/berthsched/berth/core/plugins/podtopologyspread"
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
	pts = podtopologyspread.Name
	ipa = interpodaffinity.Name

	skewReason     = podtopologyspread.ErrReasonConstraintsNotMatch
	labelReason    = podtopologyspread.ErrReasonNodeLabelNotMatch
	taintReason    = "node(s) had untolerated taint(s)"
	selectorReason = nodeaffinity.ErrReasonPod
)

// TestOracleSpread replays testdata/spread.yaml through the default
// profile; the expected outcomes are what /tmp/kubeoracle (kube-scheduler
// 1.36.4) printed for it (testdata/oracle2steps.py made the rows).
// Notable: the terminating pod on c1 and the team-a pods are not counted;
// an empty labelSelector counts no pod but selects the pod itself, a nil
// one selects nothing; min-domains counts the least domain as 0.
func TestOracleSpread(t *testing.T) {
	c, h := plugintest.LoadWithHandle(t, "testdata/spread.yaml")
	filters, scorers := plugintest.FullProfile(t, c, h, "", "")
	plugintest.Replay(t, c, spreadSteps, filters, scorers)
}

var spreadSteps = []plugintest.Step{
	{Pod: "default/zone-1", Node: "c1", Want: plugintest.Outcome{
		Feasible: nodes{"c1"},
		Reasons:  reasons{"a1": {skewReason}, "a2": {skewReason}, "b1": {skewReason}, "b2": {skewReason}, "c2": {taintReason}, "d1": {labelReason}},
		Scores: scores{
			tt:  {"c1": 300},
			fit: {"c1": 97},
			ba:  {"c1": 75},
		},
	}},
	{Pod: "default/honor-taints", Node: "b1", Want: plugintest.Outcome{
		Feasible: nodes{"b1", "b2", "c1"},
		Reasons:  reasons{"a1": {skewReason}, "a2": {skewReason}, "c2": {taintReason}, "d1": {labelReason}},
		Scores: scores{
			tt:  {"b1": 300, "b2": 300, "c1": 300},
			fit: {"b1": 97, "b2": 96, "c1": 96},
			ba:  {"b1": 75, "b2": 75, "c1": 75},
		},
	}},
	{Pod: "default/min-domains", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"a1": {skewReason}, "a2": {skewReason}, "b1": {skewReason}, "b2": {skewReason}, "c1": {skewReason}, "c2": {taintReason}, "d1": {labelReason}},
		Unresolvable: nodes{"c2", "d1"},
	}},
	{Pod: "default/ssd-honor", Node: "a1", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "b1"},
		Reasons:  reasons{"a2": {selectorReason}, "b2": {selectorReason}, "c1": {selectorReason}, "c2": {taintReason}, "d1": {selectorReason}},
		Scores: scores{
			tt:  {"a1": 300, "b1": 300},
			fit: {"a1": 96, "b1": 96},
			ba:  {"a1": 75, "b1": 75},
		},
	}},
	{Pod: "default/ssd-ignore", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"a1": {skewReason}, "a2": {selectorReason}, "b1": {skewReason}, "b2": {selectorReason}, "c1": {selectorReason}, "c2": {taintReason}, "d1": {selectorReason}},
		Unresolvable: nodes{"a2", "b2", "c1", "c2", "d1"},
	}},
	{Pod: "default/host-2", Node: "a2", Want: plugintest.Outcome{
		Feasible: nodes{"a2", "b2", "c1", "d1"},
		Reasons:  reasons{"a1": {skewReason}, "b1": {skewReason}, "c2": {taintReason}},
		Scores: scores{
			tt:  {"a2": 300, "b2": 300, "c1": 300, "d1": 300},
			fit: {"a2": 97, "b2": 96, "c1": 96, "d1": 97},
			ba:  {"a2": 75, "b2": 75, "c1": 75, "d1": 75},
		},
	}},
	{Pod: "default/soft", Node: "b2", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1", "d1"},
		Reasons:  reasons{"c2": {taintReason}},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300, "d1": 300},
			fit: {"a1": 95, "a2": 96, "b1": 96, "b2": 96, "c1": 96, "d1": 97},
			ba:  {"a1": 75, "a2": 75, "b1": 75, "b2": 75, "c1": 75, "d1": 75},
			pts: {"a1": 52, "a2": 80, "b1": 146, "b2": 200, "c1": 186, "d1": 0},
		},
	}},
	{Pod: "default/soft-tolerant", Node: "c2", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1", "c2", "d1"},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300, "c2": 300, "d1": 300},
			fit: {"a1": 95, "a2": 96, "b1": 96, "b2": 95, "c1": 96, "c2": 98, "d1": 97},
			ba:  {"a1": 75, "a2": 75, "b1": 75, "b2": 75, "c1": 75, "c2": 74, "d1": 75},
			pts: {"a1": 80, "a2": 80, "b1": 140, "b2": 140, "c1": 200, "c2": 200, "d1": 0},
		},
	}},
	{Pod: "default/soft-keys", Node: "c1", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1", "d1"},
		Reasons:  reasons{"c2": {taintReason}},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300, "d1": 300},
			fit: {"a1": 95, "a2": 96, "b1": 96, "b2": 95, "c1": 96, "d1": 97},
			ba:  {"a1": 75, "a2": 75, "b1": 75, "b2": 75, "c1": 75, "d1": 75},
			pts: {"a1": 0, "a2": 0, "b1": 0, "b2": 0, "c1": 200, "d1": 0},
		},
	}},
	{Pod: "default/hard-keys", Node: "b1", Want: plugintest.Outcome{
		Feasible: nodes{"b1", "b2", "c1"},
		Reasons:  reasons{"a1": {skewReason}, "a2": {skewReason}, "c2": {taintReason}, "d1": {labelReason}},
		Scores: scores{
			tt:  {"b1": 300, "b2": 300, "c1": 300},
			fit: {"b1": 96, "b2": 95, "c1": 95},
			ba:  {"b1": 75, "b2": 75, "c1": 75},
		},
	}},
	{Pod: "default/empty-selector", Node: "a2", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1"},
		Reasons:  reasons{"c2": {taintReason}, "d1": {labelReason}},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300},
			fit: {"a1": 95, "a2": 96, "b1": 95, "b2": 95, "c1": 95},
			ba:  {"a1": 75, "a2": 75, "b1": 75, "b2": 75, "c1": 75},
		},
	}},
	{Pod: "default/nil-selector", Node: "a1", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1"},
		Reasons:  reasons{"c2": {taintReason}, "d1": {labelReason}},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300},
			fit: {"a1": 95, "a2": 95, "b1": 95, "b2": 95, "c1": 95},
			ba:  {"a1": 75, "a2": 75, "b1": 75, "b2": 75, "c1": 75},
		},
	}},
	{Pod: "default/soft-empty", Node: "a2", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1", "d1"},
		Reasons:  reasons{"c2": {taintReason}},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300, "d1": 300},
			fit: {"a1": 94, "a2": 95, "b1": 95, "b2": 95, "c1": 95, "d1": 97},
			ba:  {"a1": 74, "a2": 75, "b1": 75, "b2": 75, "c1": 75, "d1": 75},
			pts: {"a1": 200, "a2": 200, "b1": 200, "b2": 200, "c1": 200, "d1": 0},
		},
	}},
	{Pod: "default/mixed", Node: "b2", Want: plugintest.Outcome{
		Feasible: nodes{"b1", "b2", "c1"},
		Reasons:  reasons{"a1": {skewReason}, "a2": {skewReason}, "c2": {taintReason}, "d1": {labelReason}},
		Scores: scores{
			tt:  {"b1": 300, "b2": 300, "c1": 300},
			fit: {"b1": 95, "b2": 95, "c1": 95},
			ba:  {"b1": 75, "b2": 75, "c1": 75},
			pts: {"b1": 80, "b2": 200, "c1": 160},
		},
	}},
	{Pod: "team-a/team", Node: "c1", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "c1"},
		Reasons:  reasons{"b1": {skewReason}, "b2": {skewReason}, "c2": {taintReason}, "d1": {labelReason}},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "c1": 300},
			fit: {"a1": 94, "a2": 94, "c1": 95},
			ba:  {"a1": 74, "a2": 74, "c1": 75},
			pts: {"a1": 200, "a2": 200, "c1": 200},
		},
	}},
	{Pod: "default/not-selected", Node: "c1", Want: plugintest.Outcome{
		Feasible: nodes{"c1"},
		Reasons:  reasons{"a1": {skewReason}, "a2": {skewReason}, "b1": {skewReason}, "b2": {skewReason}, "c2": {taintReason}, "d1": {labelReason}},
		Scores: scores{
			tt:  {"c1": 300},
			fit: {"c1": 94},
			ba:  {"c1": 74},
		},
	}},
}

// TestOracleScenarios replays the shared scenarios and the oracle's examples
// of testdata/scenarios (copied from ../shared/scenarios and
// ../shared/kubeoracle/examples) against what /tmp/kubeoracle printed.
func TestOracleScenarios(t *testing.T) {
	tests := []struct {
		file  string
		steps []plugintest.Step
	}{
		{file: "example-topology-spread.yaml", steps: []plugintest.Step{
			{Pod: "default/mypod", Node: "node4", Want: plugintest.Outcome{
				Feasible: nodes{"node3", "node4"},
				Reasons:  reasons{"node1": {skewReason}, "node2": {skewReason}},
				Scores: scores{
					tt:  {"node3": 300, "node4": 300},
					fit: {"node3": 95, "node4": 97},
				},
			}},
		}},
		{file: "spread-conflicting-constraints.yaml", steps: []plugintest.Step{
			{Pod: "default/mypod", Node: "", Want: plugintest.Outcome{
				Reasons: reasons{"node1": {skewReason}, "node2": {skewReason}, "node3": {skewReason}},
			}},
		}},
		{file: "spread-node-affinity-excludes-zone.yaml", steps: []plugintest.Step{
			{Pod: "default/mypod", Node: "node4", Want: plugintest.Outcome{
				Feasible: nodes{"node3", "node4"},
				Reasons:  reasons{"node1": {skewReason}, "node2": {skewReason}, "node5": {selectorReason}},
				Scores: scores{
					tt:  {"node3": 300, "node4": 300},
					fit: {"node3": 75, "node4": 87},
					ba:  {"node3": 75, "node4": 75},
				},
			}},
			{Pod: "default/mypod-2", Node: "node5", Want: plugintest.Outcome{
				Feasible: nodes{"node5"},
				Reasons:  reasons{"node1": {skewReason}, "node2": {skewReason}, "node3": {skewReason}, "node4": {skewReason}},
				Scores: scores{
					tt:  {"node5": 300},
					fit: {"node5": 87},
					ba:  {"node5": 75},
				},
			}},
		}},
		{file: "spread-single-constraint.yaml", steps: []plugintest.Step{
			{Pod: "default/mypod", Node: "node4", Want: plugintest.Outcome{
				Feasible: nodes{"node3", "node4"},
				Reasons:  reasons{"node1": {skewReason}, "node2": {skewReason}},
				Scores: scores{
					tt:  {"node3": 300, "node4": 300},
					fit: {"node3": 75, "node4": 87},
					ba:  {"node3": 75, "node4": 75},
				},
			}},
		}},
		{file: "spread-two-constraints.yaml", steps: []plugintest.Step{
			{Pod: "default/mypod", Node: "node4", Want: plugintest.Outcome{
				Feasible: nodes{"node4"},
				Reasons:  reasons{"node1": {skewReason}, "node2": {skewReason}, "node3": {skewReason}},
				Scores: scores{
					tt:  {"node4": 300},
					fit: {"node4": 87},
					ba:  {"node4": 75},
				},
			}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			c, h := plugintest.LoadWithHandle(t, filepath.Join("testdata/scenarios", tc.file))
			filters, scorers := plugintest.FullProfile(t, c, h, "", "")
			plugintest.Replay(t, c, tc.steps, filters, scorers)
		})
	}
}
