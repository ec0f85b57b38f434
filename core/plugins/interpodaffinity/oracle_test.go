package interpodaffinity_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
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

	affinityReason = interpodaffinity.ErrReasonAffinity
	antiReason     = interpodaffinity.ErrReasonAntiAffinity
	existingReason = interpodaffinity.ErrReasonExistingAntiAffinity
)

// TestOracleAffinity replays testdata/affinity.yaml through the default
// profile; the expected outcomes are what /tmp/kubeoracle (kube-scheduler
// 1.36.4) printed for it (testdata/oracle2steps.py made the rows).
// Notable: "quirk" has a namespaceSelector "team DoesNotExist", which
// kube-scheduler matches against no labels and so against every namespace:
// db-2 in team-a (labelled team=a) counts, b1 is feasible.
func TestOracleAffinity(t *testing.T) {
	c, h := plugintest.LoadWithHandle(t, "testdata/affinity.yaml")
	filters, scorers := plugintest.FullProfile(t, c, h, "", "")
	plugintest.Replay(t, c, affinitySteps, filters, scorers)
}

var affinitySteps = []plugintest.Step{
	{Pod: "default/web-1", Node: "a1", Want: plugintest.Outcome{
		Feasible: nodes{"a1"},
		Reasons:  reasons{"a2": {existingReason}, "b1": {affinityReason}, "b2": {affinityReason}, "c1": {affinityReason}, "d1": {affinityReason}},
		Scores: scores{
			tt:  {"a1": 300},
			fit: {"a1": 97},
			ba:  {"a1": 75},
			ipa: {"a1": 0},
		},
	}},
	{Pod: "default/web-2", Node: "c1", Want: plugintest.Outcome{
		Feasible: nodes{"b1", "b2", "c1", "d1"},
		Reasons:  reasons{"a1": {antiReason}, "a2": {existingReason}},
		Scores: scores{
			tt:  {"b1": 300, "b2": 300, "c1": 300, "d1": 300},
			fit: {"b1": 97, "b2": 97, "c1": 97, "d1": 97},
			ba:  {"b1": 75, "b2": 75, "c1": 75, "d1": 75},
			ipa: {"b1": 0, "b2": 0, "c1": 200, "d1": 0},
		},
	}},
	{Pod: "default/nsel", Node: "b1", Want: plugintest.Outcome{
		Feasible: nodes{"b1", "b2"},
		Reasons:  reasons{"a1": {affinityReason}, "a2": {affinityReason}, "c1": {affinityReason}, "d1": {affinityReason}},
		Scores: scores{
			tt:  {"b1": 300, "b2": 300},
			fit: {"b1": 97, "b2": 97},
			ba:  {"b1": 75, "b2": 75},
		},
	}},
	{Pod: "default/anyns", Node: "a1", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "b1"},
		Reasons:  reasons{"a2": {affinityReason}, "b2": {affinityReason}, "c1": {affinityReason}, "d1": {affinityReason}},
		Scores: scores{
			tt:  {"a1": 300, "b1": 300},
			fit: {"a1": 96, "b1": 96},
			ba:  {"a1": 75, "b1": 75},
		},
	}},
	{Pod: "default/nslist", Node: "b1", Want: plugintest.Outcome{
		Feasible: nodes{"b1"},
		Reasons:  reasons{"a1": {affinityReason}, "a2": {affinityReason}, "b2": {affinityReason}, "c1": {affinityReason}, "d1": {affinityReason}},
		Scores: scores{
			tt:  {"b1": 300},
			fit: {"b1": 96},
			ba:  {"b1": 75},
		},
	}},
	{Pod: "default/quirk", Node: "a1", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "b1"},
		Reasons:  reasons{"a2": {affinityReason}, "b2": {affinityReason}, "c1": {affinityReason}, "d1": {affinityReason}},
		Scores: scores{
			tt:  {"a1": 300, "b1": 300},
			fit: {"a1": 95, "b1": 95},
			ba:  {"a1": 75, "b1": 75},
		},
	}},
	{Pod: "default/group-1", Node: "a2", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1"},
		Reasons:  reasons{"d1": {affinityReason}},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300},
			fit: {"a1": 94, "a2": 97, "b1": 95, "b2": 97, "c1": 96},
			ba:  {"a1": 74, "a2": 75, "b1": 75, "b2": 75, "c1": 75},
		},
	}},
	{Pod: "default/group-2", Node: "a2", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2"},
		Reasons:  reasons{"b1": {affinityReason}, "b2": {affinityReason}, "c1": {affinityReason}, "d1": {affinityReason}},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300},
			fit: {"a1": 94, "a2": 96},
			ba:  {"a1": 74, "a2": 75},
			ipa: {"a1": 0, "a2": 0},
		},
	}},
	{Pod: "default/lonely", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"a1": {affinityReason}, "a2": {affinityReason}, "b1": {affinityReason}, "b2": {affinityReason}, "c1": {affinityReason}, "d1": {affinityReason}},
		Unresolvable: nodes{"a1", "a2", "b1", "b2", "c1", "d1"},
	}},
	{Pod: "default/all-terms", Node: "", Want: plugintest.Outcome{
		Reasons:      reasons{"a1": {affinityReason}, "a2": {affinityReason}, "b1": {affinityReason}, "b2": {affinityReason}, "c1": {affinityReason}, "d1": {affinityReason}},
		Unresolvable: nodes{"a1", "a2", "b1", "b2", "c1", "d1"},
	}},
	{Pod: "default/front-2", Node: "c1", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1", "d1"},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300, "d1": 300},
			fit: {"a1": 94, "a2": 95, "b1": 95, "b2": 97, "c1": 96, "d1": 97},
			ba:  {"a1": 74, "a2": 75, "b1": 75, "b2": 75, "c1": 75, "d1": 75},
			ipa: {"a1": 0, "a2": 0, "b1": 0, "b2": 0, "c1": 200, "d1": 0},
		},
	}},
	{Pod: "default/spreader", Node: "b2", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1", "d1"},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300, "d1": 300},
			fit: {"a1": 94, "a2": 95, "b1": 95, "b2": 97, "c1": 95, "d1": 97},
			ba:  {"a1": 74, "a2": 75, "b1": 75, "b2": 75, "c1": 75, "d1": 75},
			ipa: {"a1": 46, "a2": 200, "b1": 200, "b2": 200, "c1": 0, "d1": 152},
		},
	}},
	{Pod: "team-a/intruder", Node: "d1", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "c1", "d1"},
		Reasons:  reasons{"b1": {existingReason}, "b2": {existingReason}},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "c1": 300, "d1": 300},
			fit: {"a1": 94, "a2": 95, "c1": 95, "d1": 97},
			ba:  {"a1": 74, "a2": 75, "c1": 75, "d1": 75},
		},
	}},
	{Pod: "default/intruder-ok", Node: "b2", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "a2", "b1", "b2", "c1", "d1"},
		Scores: scores{
			tt:  {"a1": 300, "a2": 300, "b1": 300, "b2": 300, "c1": 300, "d1": 300},
			fit: {"a1": 94, "a2": 95, "b1": 95, "b2": 96, "c1": 95, "d1": 96},
			ba:  {"a1": 74, "a2": 75, "b1": 75, "b2": 75, "c1": 75, "d1": 75},
		},
	}},
	{Pod: "default/web-3", Node: "d1", Want: plugintest.Outcome{
		Feasible: nodes{"a1", "b1", "b2", "d1"},
		Reasons:  reasons{"a2": {existingReason}, "c1": {existingReason}},
		Scores: scores{
			tt:  {"a1": 300, "b1": 300, "b2": 300, "d1": 300},
			fit: {"a1": 94, "b1": 95, "b2": 95, "d1": 96},
			ba:  {"a1": 74, "b1": 75, "b2": 75, "d1": 75},
			ipa: {"a1": 200, "b1": 200, "b2": 0, "d1": 200},
		},
	}},
}

// TestMatchLabelKeys replays testdata/matchlabelkeys.yaml. Berth folds
// matchLabelKeys and mismatchLabelKeys into the term selectors, as the
// Kubernetes API server does when it creates a pod, so it differs from the
// oracle, whose fake API server leaves them out. The oracle printed:
// web-new feasible on n3 only (n1 and n2: anti-affinity reason) and bound
// to n3; tenant feasible on n1 and n2 (n3: existing anti-affinity reason).
func TestMatchLabelKeys(t *testing.T) {
	c, h := plugintest.LoadWithHandle(t, "testdata/matchlabelkeys.yaml")
	filters, scorers := plugintest.FullProfile(t, c, h, "", "")
	tests := []struct {
		pod      string
		feasible []string
		reasons  map[string][]string
		bind     string
	}{
		{
			// Anti-affinity to app=web pods with ver=v2 only: web-old
			// (v1) on n1 no longer repels it.
			pod:      "default/web-new",
			feasible: nodes{"n1", "n3"},
			reasons:  reasons{"n2": {antiReason}},
			bind:     "n3",
		},
		{
			// Affinity to app=web pods whose ver is not v1 (n2, n3); the
			// anti-affinity of web-new on n3 targets ver=v2 only.
			pod:      "default/tenant",
			feasible: nodes{"n2", "n3"},
			reasons:  reasons{"n1": {affinityReason}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.pod, func(t *testing.T) {
			i := slices.IndexFunc(c.Pending, func(p *model.Pod) bool { return p.Key() == tc.pod })
			got := plugintest.Run(t, c, c.Pending[i], filters, scorers)
			if diff := cmp.Diff(tc.feasible, got.Feasible); diff != "" {
				t.Errorf("feasible (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.reasons, got.Reasons); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			if tc.bind != "" {
				c.Bind(t, c.Pending[i], tc.bind)
			}
		})
	}
}

// TestOracleArgs replays testdata/args.yaml with default args and with the
// args of testdata/args-*.config.yaml (given to the oracle with --config).
// With hardPodAffinityWeight 5 anchor's required affinity outweighs fan's
// preference; with ignorePreferredTermsOfExistingPods web-plain, which has
// no preferred terms of its own, is not scored by InterPodAffinity.
func TestOracleArgs(t *testing.T) {
	tests := []struct {
		name, args string
		steps      []plugintest.Step
	}{
		{name: "defaults", steps: []plugintest.Step{
			{Pod: "default/web-plain", Node: "n3", Want: plugintest.Outcome{
				Feasible: nodes{"n1", "n2", "n3", "n4"},
				Scores: scores{
					tt:  {"n1": 300, "n2": 300, "n3": 300, "n4": 300},
					fit: {"n1": 97, "n2": 98, "n3": 97, "n4": 97},
					ba:  {"n1": 75, "n2": 74, "n3": 75, "n4": 75},
					ipa: {"n1": 80, "n2": 80, "n3": 200, "n4": 0},
				},
			}},
			{Pod: "default/web-picky", Node: "n3", Want: plugintest.Outcome{
				Feasible: nodes{"n1", "n2", "n3", "n4"},
				Scores: scores{
					tt:  {"n1": 300, "n2": 300, "n3": 300, "n4": 300},
					fit: {"n1": 97, "n2": 98, "n3": 96, "n4": 97},
					ba:  {"n1": 75, "n2": 74, "n3": 75, "n4": 75},
					ipa: {"n1": 160, "n2": 80, "n3": 200, "n4": 0},
				},
			}},
		}},
		{name: "hardPodAffinityWeight", args: `{"hardPodAffinityWeight":5}`, steps: []plugintest.Step{
			{Pod: "default/web-plain", Node: "n3", Want: plugintest.Outcome{
				Feasible: nodes{"n1", "n2", "n3", "n4"},
				Scores: scores{
					tt:  {"n1": 300, "n2": 300, "n3": 300, "n4": 300},
					fit: {"n1": 97, "n2": 98, "n3": 97, "n4": 97},
					ba:  {"n1": 75, "n2": 74, "n3": 75, "n4": 75},
					ipa: {"n1": 160, "n2": 160, "n3": 200, "n4": 0},
				},
			}},
			{Pod: "default/web-picky", Node: "n1", Want: plugintest.Outcome{
				Feasible: nodes{"n1", "n2", "n3", "n4"},
				Scores: scores{
					tt:  {"n1": 300, "n2": 300, "n3": 300, "n4": 300},
					fit: {"n1": 97, "n2": 98, "n3": 96, "n4": 97},
					ba:  {"n1": 75, "n2": 74, "n3": 75, "n4": 75},
					ipa: {"n1": 200, "n2": 132, "n3": 166, "n4": 0},
				},
			}},
		}},
		{name: "ignorePreferredTermsOfExistingPods", args: `{"ignorePreferredTermsOfExistingPods":true}`, steps: []plugintest.Step{
			{Pod: "default/web-plain", Node: "n1", Want: plugintest.Outcome{
				Feasible: nodes{"n1", "n2", "n3", "n4"},
				Scores: scores{
					tt:  {"n1": 300, "n2": 300, "n3": 300, "n4": 300},
					fit: {"n1": 97, "n2": 98, "n3": 97, "n4": 97},
					ba:  {"n1": 75, "n2": 74, "n3": 75, "n4": 75},
				},
			}},
			{Pod: "default/web-picky", Node: "n3", Want: plugintest.Outcome{
				Feasible: nodes{"n1", "n2", "n3", "n4"},
				Scores: scores{
					tt:  {"n1": 300, "n2": 300, "n3": 300, "n4": 300},
					fit: {"n1": 96, "n2": 98, "n3": 97, "n4": 97},
					ba:  {"n1": 75, "n2": 74, "n3": 75, "n4": 75},
					ipa: {"n1": 160, "n2": 80, "n3": 200, "n4": 0},
				},
			}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, h := plugintest.LoadWithHandle(t, "testdata/args.yaml")
			filters, scorers := plugintest.FullProfile(t, c, h, tc.args, "")
			plugintest.Replay(t, c, tc.steps, filters, scorers)
		})
	}
}

// TestOracleScenarios replays the shared scenarios and the oracle's examples
// of testdata/scenarios (copied from ../shared/scenarios and
// ../shared/kubeoracle/examples) against what /tmp/kubeoracle printed.
func TestOracleScenarios(t *testing.T) {
	tests := []struct {
		file  string
		steps []plugintest.Step
	}{
		{file: "example-pod-affinity.yaml", steps: []plugintest.Step{
			{Pod: "default/web", Node: "n2", Want: plugintest.Outcome{
				Feasible: nodes{"n1", "n2"},
				Reasons:  reasons{"n3": {affinityReason}},
				Scores: scores{
					tt:  {"n1": 300, "n2": 300},
					fit: {"n1": 65, "n2": 90},
					ba:  {"n1": 73, "n2": 73},
				},
			}},
			{Pod: "default/cache", Node: "n2", Want: plugintest.Outcome{
				Feasible: nodes{"n2", "n3"},
				Reasons:  reasons{"n1": {antiReason}},
				Scores: scores{
					tt:  {"n2": 300, "n3": 300},
					fit: {"n2": 81, "n3": 90},
					ba:  {"n2": 73, "n3": 73},
					ipa: {"n2": 200, "n3": 0},
				},
			}},
			// default/gated: gated
		}},
		{file: "interpod-redis-web-colocation.yaml", steps: []plugintest.Step{
			{Pod: "default/redis-cache-1", Node: "node-1", Want: plugintest.Outcome{
				Feasible: nodes{"node-1", "node-2", "node-3"},
				Scores: scores{
					tt:  {"node-1": 300, "node-2": 300, "node-3": 300},
					fit: {"node-1": 93, "node-2": 68, "node-3": 43},
					ba:  {"node-1": 75, "node-2": 75, "node-3": 75},
				},
			}},
			{Pod: "default/redis-cache-2", Node: "node-2", Want: plugintest.Outcome{
				Feasible: nodes{"node-2", "node-3"},
				Reasons:  reasons{"node-1": {antiReason}},
				Scores: scores{
					tt:  {"node-2": 300, "node-3": 300},
					fit: {"node-2": 68, "node-3": 43},
					ba:  {"node-2": 75, "node-3": 75},
				},
			}},
			{Pod: "default/redis-cache-3", Node: "node-3", Want: plugintest.Outcome{
				Feasible: nodes{"node-3"},
				Reasons:  reasons{"node-1": {antiReason}, "node-2": {antiReason}},
				Scores: scores{
					tt:  {"node-3": 300},
					fit: {"node-3": 43},
					ba:  {"node-3": 75},
				},
			}},
			{Pod: "default/web-server-1", Node: "node-1", Want: plugintest.Outcome{
				Feasible: nodes{"node-1", "node-2", "node-3"},
				Scores: scores{
					tt:  {"node-1": 300, "node-2": 300, "node-3": 300},
					fit: {"node-1": 87, "node-2": 62, "node-3": 37},
					ba:  {"node-1": 75, "node-2": 75, "node-3": 75},
				},
			}},
			{Pod: "default/web-server-2", Node: "node-2", Want: plugintest.Outcome{
				Feasible: nodes{"node-2", "node-3"},
				Reasons:  reasons{"node-1": {antiReason}},
				Scores: scores{
					tt:  {"node-2": 300, "node-3": 300},
					fit: {"node-2": 62, "node-3": 37},
					ba:  {"node-2": 75, "node-3": 75},
				},
			}},
			{Pod: "default/web-server-3", Node: "node-3", Want: plugintest.Outcome{
				Feasible: nodes{"node-3"},
				Reasons:  reasons{"node-1": {antiReason}, "node-2": {antiReason}},
				Scores: scores{
					tt:  {"node-3": 300},
					fit: {"node-3": 37},
					ba:  {"node-3": 75},
				},
			}},
			{Pod: "default/web-server-4", Node: "", Want: plugintest.Outcome{
				Reasons: reasons{"node-1": {antiReason}, "node-2": {antiReason}, "node-3": {antiReason}},
			}},
			{Pod: "default/redis-cache-4", Node: "", Want: plugintest.Outcome{
				Reasons: reasons{"node-1": {antiReason}, "node-2": {antiReason}, "node-3": {antiReason}},
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
