package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

type filterFn = func(*framework.CycleState, *model.Pod, *framework.NodeInfo) *framework.Status

func filterReturns(s *framework.Status) filterFn {
	return func(*framework.CycleState, *model.Pod, *framework.NodeInfo) *framework.Status { return s }
}

func TestRunFilterPlugins(t *testing.T) {
	tests := []struct {
		name      string
		hooks     []filterFn
		skip      []string
		want      *framework.Status
		wantCalls []string
	}{
		{
			name:      "all pass",
			hooks:     []filterFn{filterReturns(nil), filterReturns(nil)},
			wantCalls: []string{"Filter/F0", "Filter/F1"},
		},
		{
			name:      "stops at the first rejection, naming the plugin",
			hooks:     []filterFn{filterReturns(framework.NewStatus(framework.Unschedulable, "Insufficient cpu")), filterReturns(nil)},
			want:      status(framework.Unschedulable, "F0", "Insufficient cpu"),
			wantCalls: []string{"Filter/F0"},
		},
		{
			name:      "unresolvable keeps its code",
			hooks:     []filterFn{filterReturns(nil), filterReturns(framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) were unschedulable"))},
			want:      status(framework.UnschedulableAndUnresolvable, "F1", "node(s) were unschedulable"),
			wantCalls: []string{"Filter/F0", "Filter/F1"},
		},
		{
			name:      "skipped plugins do not run",
			hooks:     []filterFn{filterReturns(framework.NewStatus(framework.Unschedulable, "x")), filterReturns(nil)},
			skip:      []string{"F0"},
			wantCalls: []string{"Filter/F1"},
		},
		{
			name:      "an error is wrapped",
			hooks:     []filterFn{filterReturns(framework.AsStatus(errors.New("boom")))},
			want:      status(framework.Error, "F0", `running "F0" filter plugin: boom`),
			wantCalls: []string{"Filter/F0"},
		},
		{
			name:      "skip from a filter is an error",
			hooks:     []filterFn{filterReturns(framework.NewStatus(framework.Skip, "why"))},
			want:      status(framework.Error, "F0", `running "F0" filter plugin: why`),
			wantCalls: []string{"Filter/F0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPlugins()
			tp.basics()
			var names []string
			for i, h := range tc.hooks {
				name := fmt.Sprintf("F%d", i)
				tp.add(name, filterKind).filter = h
				names = append(names, name)
			}
			f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.Filter: plugins(names...)}))
			state := framework.NewCycleState()
			state.SkipFilterPlugins = set(tc.skip...)
			got := f.RunFilterPlugins(context.Background(), state, podNamed("p"), nodeInfos("n1")[0])
			if d := statusDiff(tc.want, got); d != "" {
				t.Error(d)
			}
			if diff := cmp.Diff(tc.wantCalls, tp.log.get()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// fakeNominator returns fixed nominated pods per node.
type fakeNominator map[string][]*framework.PodInfo

func (n fakeNominator) AddNominatedPod(*framework.PodInfo, *framework.NominatingInfo) {}
func (n fakeNominator) DeleteNominatedPodIfExists(*model.Pod)                         {}
func (n fakeNominator) UpdateNominatedPod(*model.Pod, *framework.PodInfo)             {}
func (n fakeNominator) NominatedPodsForNode(node string) []*framework.PodInfo         { return n[node] }
func (n fakeNominator) AnyNominated() bool                                            { return len(n) > 0 }

// countState counts pods added through AddPod, as a plugin's PreFilter
// state would.
type countState struct{ added int }

func (c *countState) Clone() framework.StateData { cp := *c; return &cp }

func TestRunFilterPluginsWithNominatedPods(t *testing.T) {
	const key framework.StateKey = "count"
	nominee := func(name string, prio int32) *framework.PodInfo {
		return framework.MustPodInfo(mt.MakePod(name).Priority(prio).Nominated("n1").Obj())
	}
	// The "Room" filter admits the pod while the node and the state hold
	// at most maxPods pods; "Company" needs another pod on the node.
	tests := []struct {
		name      string
		nominated []*framework.PodInfo
		pod       *model.Pod
		maxPods   int
		company   bool
		want      *framework.Status
		// wantSeen lists the pod counts the Room filter saw, pass by pass.
		wantSeen []string
	}{
		{
			name:     "no nominated pods: one pass",
			pod:      mt.MakePod("p").Priority(5).Obj(),
			maxPods:  0,
			wantSeen: []string{"node=0 state=0"},
		},
		{
			name:      "lower-priority nominees are ignored",
			nominated: []*framework.PodInfo{nominee("low", 4)},
			pod:       mt.MakePod("p").Priority(5).Obj(),
			maxPods:   0,
			wantSeen:  []string{"node=0 state=0"},
		},
		{
			name:      "the pod's own nomination is ignored",
			nominated: []*framework.PodInfo{framework.MustPodInfo(mt.MakePod("p").Priority(5).Nominated("n1").Obj())},
			pod:       mt.MakePod("p").Priority(5).Obj(),
			maxPods:   0,
			wantSeen:  []string{"node=0 state=0"},
		},
		{
			name:      "equal or higher priority nominees are added, then the second pass runs without them",
			nominated: []*framework.PodInfo{nominee("eq", 5), nominee("low", 1), nominee("high", 9)},
			pod:       mt.MakePod("p").Priority(5).Obj(),
			maxPods:   2,
			wantSeen:  []string{"node=2 state=2", "node=0 state=0"},
		},
		{
			name:      "the first pass fails: no second pass",
			nominated: []*framework.PodInfo{nominee("high", 9)},
			pod:       mt.MakePod("p").Priority(5).Obj(),
			maxPods:   0,
			want:      status(framework.Unschedulable, "Room", "Insufficient room"),
			wantSeen:  []string{"node=1 state=1"},
		},
		{
			name:      "the second pass fails: a filter needing the nominee",
			nominated: []*framework.PodInfo{nominee("high", 9)},
			pod:       mt.MakePod("p").Priority(5).Obj(),
			maxPods:   1,
			company:   true,
			want:      status(framework.Unschedulable, "Company", "alone"),
			wantSeen:  []string{"node=1 state=1", "node=0 state=0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPlugins()
			tp.basics()
			var seen []string
			room := tp.add("Room", preFilterKind)
			room.addPod = func(state *framework.CycleState, _ *model.Pod, _ *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
				c, _ := framework.ReadAs[*countState](state, key)
				c.added++
				return nil
			}
			room.filter = func(state *framework.CycleState, _ *model.Pod, ni *framework.NodeInfo) *framework.Status {
				c, _ := framework.ReadAs[*countState](state, key)
				seen = append(seen, fmt.Sprintf("node=%d state=%d", len(ni.Pods), c.added))
				if len(ni.Pods) > tc.maxPods {
					return framework.NewStatus(framework.Unschedulable, "Insufficient room")
				}
				return nil
			}
			tp.add("Company", filterKind).filter = func(_ *framework.CycleState, _ *model.Pod, ni *framework.NodeInfo) *framework.Status {
				if tc.company && len(ni.Pods) == 0 {
					return framework.NewStatus(framework.Unschedulable, "alone")
				}
				return nil
			}
			f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{
				config.PreFilter: plugins("Room"),
				config.Filter:    plugins("Room", "Company"),
			}), runtime.WithPodNominator(fakeNominator{"n1": tc.nominated}))
			state := framework.NewCycleState()
			state.Write(key, &countState{})
			ni := nodeInfos("n1")[0]
			got := f.RunFilterPluginsWithNominatedPods(context.Background(), state, tc.pod, ni)
			if d := statusDiff(tc.want, got); d != "" {
				t.Error(d)
			}
			if diff := cmp.Diff(tc.wantSeen, seen); diff != "" {
				t.Errorf("passes (-want +got):\n%s", diff)
			}
			if c, _ := framework.ReadAs[*countState](state, key); c.added != 0 || len(ni.Pods) != 0 {
				t.Errorf("the caller's state or node changed: added=%d pods=%d", c.added, len(ni.Pods))
			}
		})
	}
}

func TestRunFilterPluginsWithNominatedPodsAddPodError(t *testing.T) {
	tp := newTestPlugins()
	tp.basics()
	tp.add("Room", preFilterKind).addPod = func(*framework.CycleState, *model.Pod, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
		return framework.AsStatus(errors.New("broken state"))
	}
	f := mustNew(t, tp, profile(map[config.ExtensionPoint][]config.Plugin{config.PreFilter: plugins("Room"), config.Filter: plugins("Room")}),
		runtime.WithPodNominator(fakeNominator{"n1": {framework.MustPodInfo(mt.MakePod("high").Priority(9).Obj())}}))
	got := f.RunFilterPluginsWithNominatedPods(context.Background(), framework.NewCycleState(), podNamed("p"), nodeInfos("n1")[0])
	want := framework.NewStatus(framework.Error, `running AddPod on PreFilter plugin "Room": broken state`)
	if d := statusDiff(want, got); d != "" {
		t.Error(d)
	}
	if calls := tp.log.get(); len(calls) != 1 || calls[0] != "AddPod/Room" {
		t.Errorf("calls = %v, want only AddPod/Room", calls)
	}
}
