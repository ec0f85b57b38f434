package runtime_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

type preFilterFn = func(*framework.CycleState, *model.Pod) (*framework.PreFilterResult, *framework.Status)

func result(nodes ...string) preFilterFn {
	return func(*framework.CycleState, *model.Pod) (*framework.PreFilterResult, *framework.Status) {
		r := &framework.PreFilterResult{NodeNames: map[string]struct{}{}}
		for _, n := range nodes {
			r.NodeNames[n] = struct{}{}
		}
		return r, nil
	}
}

func returns(s *framework.Status) preFilterFn {
	return func(*framework.CycleState, *model.Pod) (*framework.PreFilterResult, *framework.Status) { return nil, s }
}

func set(names ...string) map[string]struct{} {
	if names == nil {
		return nil
	}
	out := make(map[string]struct{}, len(names))
	for _, n := range names {
		out[n] = struct{}{}
	}
	return out
}

func TestRunPreFilterPlugins(t *testing.T) {
	tests := []struct {
		name       string
		hooks      []preFilterFn // plugins P0, P1, P2, ...
		wantResult []string      // nil: all nodes
		wantStatus *framework.Status
		wantSet    map[string]struct{}
		wantSkip   map[string]struct{}
		wantCalls  []string
	}{
		{
			name:      "all succeed",
			hooks:     []preFilterFn{returns(nil), returns(nil)},
			wantSkip:  set(),
			wantCalls: []string{"PreFilter/P0", "PreFilter/P1"},
		},
		{
			name:      "skip is recorded",
			hooks:     []preFilterFn{returns(framework.NewStatus(framework.Skip)), returns(nil)},
			wantSkip:  set("P0"),
			wantCalls: []string{"PreFilter/P0", "PreFilter/P1"},
		},
		{
			name:       "unresolvable stops at once",
			hooks:      []preFilterFn{returns(framework.NewStatus(framework.UnschedulableAndUnresolvable, "no")), returns(nil)},
			wantStatus: status(framework.UnschedulableAndUnresolvable, "P0", "no"),
			wantSkip:   set(),
			wantCalls:  []string{"PreFilter/P0"},
		},
		{
			name: "unschedulable lets the others run, the last one wins",
			hooks: []preFilterFn{
				returns(framework.NewStatus(framework.Unschedulable, "first")),
				returns(framework.NewStatus(framework.Skip)),
				returns(framework.NewStatus(framework.Unschedulable, "second")),
				result("n1"),
			},
			wantResult: []string{"n1"},
			wantStatus: status(framework.Unschedulable, "P2", "second"),
			wantSet:    set("P3"),
			wantSkip:   set("P1"),
			wantCalls:  []string{"PreFilter/P0", "PreFilter/P1", "PreFilter/P2", "PreFilter/P3"},
		},
		{
			name:       "error names the plugin",
			hooks:      []preFilterFn{returns(framework.AsStatus(errors.New("boom"))), returns(nil)},
			wantStatus: status(framework.Error, "P0", `running PreFilter plugin "P0": boom`),
			wantSkip:   set(),
			wantCalls:  []string{"PreFilter/P0"},
		},
		{
			name:       "results intersect",
			hooks:      []preFilterFn{result("n1", "n2", "n3"), returns(nil), result("n2", "n3", "n4")},
			wantResult: []string{"n2", "n3"},
			wantSet:    set("P0", "P2"),
			wantSkip:   set(),
			wantCalls:  []string{"PreFilter/P0", "PreFilter/P1", "PreFilter/P2"},
		},
		{
			name:       "one plugin leaves no node",
			hooks:      []preFilterFn{result(), returns(nil)},
			wantResult: []string{},
			wantStatus: framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin P0"),
			wantSet:    set("P0"),
			wantSkip:   set(),
			wantCalls:  []string{"PreFilter/P0"},
		},
		{
			name:       "two plugins leave no node together",
			hooks:      []preFilterFn{result("n1"), returns(nil), result("n2"), returns(nil)},
			wantResult: []string{},
			wantStatus: framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [P0 P2] simultaneously"),
			wantSet:    set("P0", "P2"),
			wantSkip:   set(),
			wantCalls:  []string{"PreFilter/P0", "PreFilter/P1", "PreFilter/P2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPlugins()
			tp.basics()
			var names []string
			for i, h := range tc.hooks {
				name := "P" + string(rune('0'+i))
				tp.add(name, preFilterKind).preFilter = h
				names = append(names, name)
			}
			f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.PreFilter: plugins(names...)}))
			state := framework.NewCycleState()
			r, s, pls := f.RunPreFilterPlugins(context.Background(), state, podNamed("p"), nodeInfos("n1", "n2", "n3", "n4"))
			if d := statusDiff(tc.wantStatus, s); d != "" {
				t.Errorf("status: %s", d)
			}
			var got []string
			if !r.AllNodes() {
				got = []string{}
				for n := range r.NodeNames {
					got = append(got, n)
				}
			}
			if diff := cmp.Diff(tc.wantResult, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSet, pls); diff != "" {
				t.Errorf("plugin set (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSkip, state.SkipFilterPlugins); diff != "" {
				t.Errorf("SkipFilterPlugins (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCalls, tp.log.get()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunPreFilterExtensions(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(tp *testPlugins)
		skip      []string
		wantAdd   *framework.Status
		wantCalls []string
	}{
		{
			name:      "every plugin with extensions, in order",
			wantCalls: []string{"AddPod/A", "AddPod/C", "RemovePod/A", "RemovePod/C"},
		},
		{
			name:      "skipped plugins are left out",
			skip:      []string{"A"},
			wantCalls: []string{"AddPod/C", "RemovePod/C"},
		},
		{
			name: "a failure stops and is an error",
			setup: func(tp *testPlugins) {
				tp.fakes["A"].addPod = func(*framework.CycleState, *model.Pod, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
					return framework.NewStatus(framework.Unschedulable, "nope")
				}
			},
			wantAdd:   framework.NewStatus(framework.Error, `running AddPod on PreFilter plugin "A": nope`),
			wantCalls: []string{"AddPod/A", "RemovePod/A", "RemovePod/C"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPlugins()
			tp.basics()
			tp.add("A", preFilterKind)
			tp.add("B", preFilterKind).noExt = true
			tp.add("C", preFilterKind)
			if tc.setup != nil {
				tc.setup(tp)
			}
			f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.PreFilter: plugins("A", "B", "C")}))
			state := framework.NewCycleState()
			state.SkipFilterPlugins = set(tc.skip...)
			pi := framework.MustPodInfo(podNamed("other"))
			ni := nodeInfos("n1")[0]
			if d := statusDiff(tc.wantAdd, f.RunPreFilterExtensionAddPod(context.Background(), state, podNamed("p"), pi, ni)); d != "" {
				t.Errorf("AddPod: %s", d)
			}
			if s := f.RunPreFilterExtensionRemovePod(context.Background(), state, podNamed("p"), pi, ni); !s.IsSuccess() {
				t.Errorf("RemovePod: %v", s)
			}
			if diff := cmp.Diff(tc.wantCalls, tp.log.get()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}
