package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
)

func TestRunPreScorePlugins(t *testing.T) {
	tests := []struct {
		name      string
		statuses  []*framework.Status
		want      *framework.Status
		wantSkip  map[string]struct{}
		wantCalls []string
	}{
		{
			name:      "all succeed",
			statuses:  []*framework.Status{nil, nil},
			wantCalls: []string{"PreScore/S0", "PreScore/S1"},
		},
		{
			name:      "skip is recorded",
			statuses:  []*framework.Status{framework.NewStatus(framework.Skip), nil},
			wantSkip:  set("S0"),
			wantCalls: []string{"PreScore/S0", "PreScore/S1"},
		},
		{
			name:      "a rejection is an error",
			statuses:  []*framework.Status{framework.NewStatus(framework.Unschedulable, "no"), nil},
			want:      framework.NewStatus(framework.Error, `running PreScore plugin "S0": no`),
			wantCalls: []string{"PreScore/S0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPlugins()
			tp.basics()
			var names []string
			for i, s := range tc.statuses {
				name := fmt.Sprintf("S%d", i)
				tp.add(name, scoreKind).preScore = func([]*framework.NodeInfo) *framework.Status { return s }
				names = append(names, name)
			}
			f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.PreScore: plugins(names...)}))
			state := framework.NewCycleState()
			if d := statusDiff(tc.want, f.RunPreScorePlugins(context.Background(), state, podNamed("p"), nodeInfos("n1"))); d != "" {
				t.Error(d)
			}
			if diff := cmp.Diff(tc.wantSkip, state.SkipScorePlugins); diff != "" {
				t.Errorf("SkipScorePlugins (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCalls, tp.log.get()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// byNode scores nodes from a table.
func byNode(scores map[string]int64) func(*framework.NodeInfo) (int64, *framework.Status) {
	return func(ni *framework.NodeInfo) (int64, *framework.Status) { return scores[ni.Name()], nil }
}

// reverse normalizes like the taint plugin: max - score, scaled to 100.
func reverse(scores framework.NodeScoreList) *framework.Status {
	var top int64
	for _, s := range scores {
		top = max(top, s.Score)
	}
	for i := range scores {
		if top == 0 {
			scores[i].Score = framework.MaxNodeScore
			continue
		}
		scores[i].Score = (top - scores[i].Score) * framework.MaxNodeScore / top
	}
	return nil
}

func TestRunScorePlugins(t *testing.T) {
	type plug struct {
		name      string
		weight    int32
		score     func(*framework.NodeInfo) (int64, *framework.Status)
		normalize func(framework.NodeScoreList) *framework.Status
	}
	tests := []struct {
		name    string
		plugins []plug
		skip    []string
		want    []framework.NodePluginScores
		wantErr *framework.Status
	}{
		{
			name: "weighted and normalized, in node order",
			plugins: []plug{
				{name: "A", weight: 2, score: byNode(map[string]int64{"n1": 10, "n2": 50, "n3": 100})},
				{name: "B", weight: 3, score: byNode(map[string]int64{"n1": 0, "n2": 1, "n3": 2}), normalize: reverse},
			},
			want: []framework.NodePluginScores{
				{Name: "n1", Scores: []framework.PluginScore{{Name: "A", Score: 20}, {Name: "B", Score: 300}}, TotalScore: 320},
				{Name: "n2", Scores: []framework.PluginScore{{Name: "A", Score: 100}, {Name: "B", Score: 150}}, TotalScore: 250},
				{Name: "n3", Scores: []framework.PluginScore{{Name: "A", Score: 200}, {Name: "B", Score: 0}}, TotalScore: 200},
			},
		},
		{
			name: "skipped plugins are left out",
			plugins: []plug{
				{name: "A", weight: 1, score: byNode(map[string]int64{"n1": 7, "n2": 8, "n3": 9})},
				{name: "B", weight: 1, score: byNode(map[string]int64{"n1": 1})},
			},
			skip: []string{"B"},
			want: []framework.NodePluginScores{
				{Name: "n1", Scores: []framework.PluginScore{{Name: "A", Score: 7}}, TotalScore: 7},
				{Name: "n2", Scores: []framework.PluginScore{{Name: "A", Score: 8}}, TotalScore: 8},
				{Name: "n3", Scores: []framework.PluginScore{{Name: "A", Score: 9}}, TotalScore: 9},
			},
		},
		{
			name: "score out of range after normalizing",
			plugins: []plug{
				{name: "A", weight: 1, score: byNode(map[string]int64{"n1": 1})},
				{name: "B", weight: 1, score: byNode(map[string]int64{"n2": 101})},
			},
			wantErr: status(framework.Error, "B", `applying score defaultWeights on Score plugins: plugin "B" returns an invalid score 101, it should in the range of [0, 100] after normalizing`),
		},
		{
			name: "negative score",
			plugins: []plug{
				{name: "A", weight: 1, score: byNode(map[string]int64{"n3": -1})},
			},
			wantErr: status(framework.Error, "A", `applying score defaultWeights on Score plugins: plugin "A" returns an invalid score -1, it should in the range of [0, 100] after normalizing`),
		},
		{
			name: "a plugin fails to score",
			plugins: []plug{
				{name: "A", weight: 1, score: func(*framework.NodeInfo) (int64, *framework.Status) {
					return 0, framework.AsStatus(errors.New("boom"))
				}},
			},
			wantErr: status(framework.Error, "A", `running Score plugins: plugin "A" failed with: boom`),
		},
		{
			name: "a plugin fails to normalize",
			plugins: []plug{
				{name: "A", weight: 1, score: byNode(nil), normalize: func(framework.NodeScoreList) *framework.Status {
					return framework.AsStatus(errors.New("bad"))
				}},
			},
			wantErr: status(framework.Error, "A", `running Normalize on Score plugins: plugin "A" failed with: bad`),
		},
	}
	for _, tc := range tests {
		for _, par := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/parallelism=%d", tc.name, par), func(t *testing.T) {
				tp := newTestPlugins()
				tp.basics()
				var pls []config.Plugin
				for _, p := range tc.plugins {
					fk := tp.add(p.name, scoreKind)
					fk.score, fk.normalize = p.score, p.normalize
					pls = append(pls, config.Plugin{Name: p.name, Weight: p.weight})
				}
				f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.Score: pls}), runtime.WithParallelism(par))
				state := framework.NewCycleState()
				state.SkipScorePlugins = set(tc.skip...)
				got, s := f.RunScorePlugins(context.Background(), state, podNamed("p"), nodeInfos("n1", "n2", "n3"))
				if d := statusDiff(tc.wantErr, s); d != "" {
					t.Fatal(d)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("scores (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestRunScorePluginsCanceled(t *testing.T) {
	tp := newTestPlugins()
	tp.basics()
	tp.add("A", scoreKind)
	f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.Score: plugins("A")}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, s := f.RunScorePlugins(ctx, framework.NewCycleState(), podNamed("p"), nodeInfos("n1"))
	if s.Code() != framework.Error || !strings.Contains(s.Message(), "context canceled") {
		t.Errorf("status = %v, want an Error about the cancellation", s)
	}
}

func TestRunPostFilterPlugins(t *testing.T) {
	type pf struct {
		result *framework.PostFilterResult
		status *framework.Status
	}
	nominate := func(n string) *framework.PostFilterResult { return &framework.PostFilterResult{NominatedNodeName: n} }
	tests := []struct {
		name       string
		plugins    []pf
		wantResult *framework.PostFilterResult
		want       *framework.Status
		wantCalls  []string
	}{
		{
			name:      "no plugin",
			want:      framework.NewStatus(framework.Unschedulable),
			wantCalls: nil,
		},
		{
			name:       "the first success wins",
			plugins:    []pf{{status: framework.NewStatus(framework.Unschedulable, "a")}, {result: nominate("n2")}, {result: nominate("n3")}},
			wantResult: nominate("n2"),
			wantCalls:  []string{"PostFilter/P0", "PostFilter/P1"},
		},
		{
			name:       "unresolvable stops, naming the plugin",
			plugins:    []pf{{result: nominate(""), status: framework.NewStatus(framework.UnschedulableAndUnresolvable, "hopeless")}, {}},
			wantResult: nominate(""),
			want:       status(framework.UnschedulableAndUnresolvable, "P0", "hopeless"),
			wantCalls:  []string{"PostFilter/P0"},
		},
		{
			name:      "an error stops, naming the plugin",
			plugins:   []pf{{status: framework.AsStatus(errors.New("boom"))}, {}},
			want:      status(framework.Error, "P0", "boom"),
			wantCalls: []string{"PostFilter/P0"},
		},
		{
			name: "all unschedulable: reasons joined, first plugin named, last result kept",
			plugins: []pf{
				{status: framework.NewStatus(framework.Unschedulable, "no new claims to deallocate")},
				{result: nominate(""), status: framework.NewStatus(framework.Unschedulable, "preemption: 0/3 nodes are available: 3 Insufficient cpu.")},
				{status: framework.NewStatus(framework.Unschedulable)},
			},
			wantResult: nominate(""),
			want:       status(framework.Unschedulable, "P0", "no new claims to deallocate", "preemption: 0/3 nodes are available: 3 Insufficient cpu."),
			wantCalls:  []string{"PostFilter/P0", "PostFilter/P1", "PostFilter/P2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPlugins()
			tp.basics()
			var names []string
			for i, p := range tc.plugins {
				name := fmt.Sprintf("P%d", i)
				tp.add(name, postFilterKind).postFilter = func(*framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
					return p.result, p.status
				}
				names = append(names, name)
			}
			f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.PostFilter: plugins(names...)}))
			r, s := f.RunPostFilterPlugins(context.Background(), framework.NewCycleState(), podNamed("p"), framework.NewNodeToStatus())
			if d := statusDiff(tc.want, s); d != "" {
				t.Error(d)
			}
			if diff := cmp.Diff(tc.wantResult, r); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCalls, tp.log.get()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if f.HasPostFilterPlugins() != (len(tc.plugins) > 0) {
				t.Errorf("HasPostFilterPlugins = %v", f.HasPostFilterPlugins())
			}
		})
	}
}
