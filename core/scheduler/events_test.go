package scheduler

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/noderesources"
	"github.com/berthsched/berth/core/plugins/schedulinggates"
	"github.com/berthsched/berth/core/priority"
	"github.com/berthsched/berth/core/queue"
)

func TestNodeUpdateEvents(t *testing.T) {
	base := mt.MakeNode("n").Capacity(mt.Res(1000, mt.Gi)).Obj()
	tests := []struct {
		name string
		cur  *model.Node
		old  *model.Node
		want []string
	}{
		{name: "no change", old: base, cur: mt.MakeNode("n").Capacity(mt.Res(1000, mt.Gi)).Obj()},
		{name: "allocatable", old: base, cur: mt.MakeNode("n").Capacity(mt.Res(2000, mt.Gi)).Obj(), want: []string{"NodeUpdateNodeAllocatable"}},
		{name: "label and taint", old: base, cur: mt.MakeNode("n").Capacity(mt.Res(1000, mt.Gi)).Label("a", "b").Taint("k", "v", model.TaintEffectNoSchedule).Obj(),
			want: []string{"NodeUpdateNodeLabel", "NodeUpdateNodeTaint"}},
		{name: "cordon raises nothing", old: base, cur: mt.MakeNode("n").Capacity(mt.Res(1000, mt.Gi)).Unschedulable().Obj()},
		{name: "uncordon", old: mt.MakeNode("n").Capacity(mt.Res(1000, mt.Gi)).Unschedulable().Obj(), cur: base, want: []string{"NodeUpdateNodeUnschedulable"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, ev := range nodeUpdateEvents(tc.old, tc.cur) {
				got = append(got, ev.Label)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// withFit adds the real NodeResourcesFit plugin at every point it
// implements.
func withFit(tp *testPlugins) *testPlugins {
	tp.extraConfig = func(p *config.Profile) {
		p.Plugins.MultiPoint.Enabled = append(p.Plugins.MultiPoint.Enabled, config.Plugin{Name: noderesources.Name})
	}
	return tp
}

func newFitEnv(t *testing.T, tune func(*Options)) *env {
	tp := withFit(&testPlugins{})
	reg, cfg := tp.registryAndConfig()
	reg[noderesources.Name] = noderesources.NewFit
	e := newEnvFakes(t)
	opts := Options{Config: cfg, Registry: reg, Decisions: e.sink, Clock: e.clock, Deterministic: true, Replay: Replay{BindInline: true}}
	if tune != nil {
		tune(&opts)
	}
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	return e
}

// TestNodeAddedSchedulesPendingPod: a pod that fits no node waits among
// the unschedulable pods; adding a node that fits moves it back (through
// NodeResourcesFit's queueing hint) and the next cycle binds it.
func TestNodeAddedSchedulesPendingPod(t *testing.T) {
	ctx := context.Background()
	e := newFitEnv(t, nil)
	e.addNodes(mt.MakeNode("small").Capacity(mt.Res(1000, 4*mt.Gi)).Obj())
	e.addPods(mt.MakePod("p").Req(mt.Res(2000, mt.Gi)).Obj())
	att := e.scheduleOne()
	if att.Result != ResultUnschedulable || att.Message != "0/1 nodes are available: 1 Insufficient cpu." {
		t.Fatalf("first attempt: %s %q", att.Result, att.Message)
	}
	if st := e.s.View().Stats().Queue; st.Unschedulable != 1 {
		t.Fatalf("queue %+v, want the pod unschedulable", st)
	}
	// A node too small does not move the pod (the hint says so).
	e.addNodes(mt.MakeNode("small2").Capacity(mt.Res(1000, 4*mt.Gi)).Obj())
	if st := e.s.View().Stats().Queue; st.Unschedulable != 1 {
		t.Fatalf("after a small node: queue %+v, want the pod still unschedulable", st)
	}
	e.addNodes(mt.MakeNode("big").Capacity(mt.Res(4000, 4*mt.Gi)).Obj())
	if st := e.s.View().Stats().Queue; st.Unschedulable != 0 {
		t.Fatalf("after a big node: queue %+v, want the pod moved", st)
	}
	att = e.scheduleOne()
	if att.Result != ResultScheduled || att.Node != "big" {
		t.Fatalf("second attempt: %s on %q (%s)", att.Result, att.Node, att.Message)
	}
	if diff := cmp.Diff([]decision{{Kind: "bind", Pod: "default/p", Node: "big"}}, e.sink.decisions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	// The caller confirms; the node's room is taken.
	e.addPods(mt.MakePod("p").Req(mt.Res(2000, mt.Gi)).Node("big").Obj())
	ni, _ := e.s.cache.NodeInfo("big")
	if ni.Requested.MilliCPU != 2000 {
		t.Errorf("big requested %d millicores, want 2000", ni.Requested.MilliCPU)
	}
	if err := e.s.DeletePod(ctx, mt.MakePod("p").Obj()); err != nil {
		t.Fatal(err)
	}
	if ni, _ := e.s.cache.NodeInfo("big"); ni.Requested.MilliCPU != 0 {
		t.Errorf("after deletion big requested %d millicores", ni.Requested.MilliCPU)
	}
}

func TestUnschedulableReportedOncePerMessage(t *testing.T) {
	f := &fakeFilter{name: "F", reject: map[string]reject{"n1": {framework.Unschedulable, "nope"}, "n2": {framework.Unschedulable, "nope"}}}
	e := newEnv(t, &testPlugins{filters: []*fakeFilter{f}}, nil)
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("p").Obj())
	e.scheduleOne()
	// Same nodes, same message: a label change moves the pod (the fake
	// plugin registers every event) but is not reported again.
	e.addNodes(mt.MakeNode("n1").Label("x", "y").Obj())
	e.scheduleOne()
	// A new node changes the message.
	e.addNodes(mt.MakeNode("n2").Obj())
	e.scheduleOne()
	want := []string{
		"default/p: 0/1 nodes are available: 1 nope.",
		"default/p: 0/2 nodes are available: 2 nope.",
	}
	if diff := cmp.Diff(want, e.reporter.reports()); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

func TestAdmission(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, &testPlugins{}, nil)
	if err := e.s.setPriorityClass(ctx, &model.PriorityClass{Name: "high", Value: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := e.s.setPriorityClass(ctx, &model.PriorityClass{Name: "default", Value: 7, GlobalDefault: true, PreemptionPolicy: model.PreemptNever}); err != nil {
		t.Fatal(err)
	}
	explicit := mt.MakePod("explicit").Obj()
	explicit.RequestedPriority = ptr(int32(42))
	tests := []struct {
		name         string
		pod          *model.Pod
		wantPriority int32
		wantPolicy   model.PreemptionPolicy
		wantUnknown  string
	}{
		{name: "class", pod: classPod("a", "high"), wantPriority: 1000, wantPolicy: model.PreemptLowerPriority},
		{name: "global default", pod: mt.MakePod("b").Obj(), wantPriority: 7, wantPolicy: model.PreemptNever},
		{name: "explicit priority without class", pod: explicit, wantPriority: 42},
		{name: "unknown class", pod: classPod("c", "nope"), wantUnknown: "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := e.s.AddPod(ctx, tc.pod)
			if tc.wantUnknown != "" {
				var unk *priority.UnknownClassError
				if !errors.As(err, &unk) || unk.Name != tc.wantUnknown {
					t.Fatalf("err = %v, want UnknownClassError naming %s", err, tc.wantUnknown)
				}
				if _, ok := e.s.View().Pod(tc.pod.UID); ok {
					t.Error("a refused pod is known")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := e.s.View().Pod(tc.pod.UID)
			if got.Priority != tc.wantPriority || got.PreemptionPolicy != tc.wantPolicy {
				t.Errorf("priority %d policy %q, want %d %q", got.Priority, got.PreemptionPolicy, tc.wantPriority, tc.wantPolicy)
			}
		})
	}
	// Priority is fixed at admission: a class change later does not move
	// an admitted pod, and an update keeps it.
	if err := e.s.setPriorityClass(ctx, &model.PriorityClass{Name: "high", Value: 5}); err != nil {
		t.Fatal(err)
	}
	if err := e.s.AddPod(ctx, classPod("a", "high")); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.s.View().Pod("uid-a"); got.Priority != 1000 {
		t.Errorf("after update priority %d, want 1000", got.Priority)
	}
}

func classPod(name, class string) *model.Pod {
	p := mt.MakePod(name).Obj()
	p.PriorityClassName = class
	return p
}

func TestGatedAndIgnoredPods(t *testing.T) {
	tp := &testPlugins{extraConfig: func(p *config.Profile) {
		p.Plugins.PreEnqueue.Enabled = []config.Plugin{{Name: schedulinggates.Name}}
	}}
	reg, cfg := tp.registryAndConfig()
	reg[schedulinggates.Name] = schedulinggates.New
	s, err := New(context.Background(), Options{Config: cfg, Registry: reg, Decisions: &fakeSink{}, Clock: newFakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []*model.Pod{mt.MakePod("gated").Gate("example.com/foo").Obj(), mt.MakePod("other").SchedulerName("someone-else").Obj()} {
		if err := s.AddPod(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	ex, _ := s.View().Explain("default", "gated")
	if ex.Phase != PhasePending || ex.Queue.SubQueue != queue.Gated || ex.Queue.GatingPlugin != schedulinggates.Name {
		t.Errorf("gated pod: %s %+v", ex.Phase, ex.Queue)
	}
	if ex, _ := s.View().Explain("default", "other"); ex.Phase != PhaseIgnored {
		t.Errorf("pod of another scheduler: %s, want Ignored", ex.Phase)
	}
	// Removing the gate queues the pod.
	if err := s.AddPod(ctx, mt.MakePod("gated").Obj()); err != nil {
		t.Fatal(err)
	}
	if ex, _ := s.View().Explain("default", "gated"); ex.Queue.SubQueue != queue.Active {
		t.Errorf("ungated pod in %s, want Active", ex.Queue.SubQueue)
	}
}

// TestPreemptionNominates runs a PostFilter that evicts a victim and
// nominates a node: the scheduler records the nomination, and once the
// victim is gone the pod goes to its nominated node first.
func TestPreemptionNominates(t *testing.T) {
	ctx := context.Background()
	victim := mt.MakePod("victim").Node("n2").Obj()
	f := &fakeFilter{name: "F", reject: map[string]reject{"n1": {framework.Unschedulable, "full"}, "n2": {framework.Unschedulable, "full"}}}
	pf := &fakePostFilter{name: "PF", nominate: "n2", victims: []*model.Pod{victim}}
	e := newEnv(t, &testPlugins{filters: []*fakeFilter{f}, scores: []*fakeScore{{name: "S", scores: map[string]int64{"n1": 100}}}, postFilter: pf}, nil)
	e.addNodes(mt.MakeNode("n1").Obj(), mt.MakeNode("n2").Obj())
	e.addPods(victim, mt.MakePod("p").RequestedPriority(10).Obj())
	att := e.scheduleOne()
	if att.Result != ResultUnschedulable || att.NominatedNode != "n2" || att.Evictions != 1 {
		t.Fatalf("attempt %s nominated %q evictions %d", att.Result, att.NominatedNode, att.Evictions)
	}
	want := []decision{{Kind: "evict", Pod: "default/victim", Node: "n2", Other: "default/p"}, {Kind: "nominate", Pod: "default/p", Node: "n2"}}
	if diff := cmp.Diff(want, e.sink.decisions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if got, _ := e.s.View().Pod("uid-p"); got.NominatedNodeName != "n2" {
		t.Errorf("pod nominated to %q, want n2", got.NominatedNodeName)
	}
	if diff := cmp.Diff([]queue.Nomination{{PodUID: "uid-p", PodKey: "default/p", NodeName: "n2"}}, e.s.View().Nominations()); diff != "" {
		t.Errorf("nominations (-want +got):\n%s", diff)
	}
	// The victim goes; the room on n2 is there now.
	delete(f.reject, "n2")
	if err := e.s.DeletePod(ctx, victim); err != nil {
		t.Fatal(err)
	}
	e.expireBackoff()
	f.calls()
	att = e.scheduleOne()
	if att.Node != "n2" || !att.ViaNominatedNode {
		t.Errorf("retry on %q via nominated %v, want n2 via the nomination", att.Node, att.ViaNominatedNode)
	}
	if len(e.s.View().Nominations()) != 0 {
		t.Errorf("nominations left: %v", e.s.View().Nominations())
	}
}

func TestRun(t *testing.T) {
	_, e := runningEnv(t, func(o *Options) { o.Replay.BindInline = false })
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("a").Obj(), mt.MakePod("b").Obj())
	got := map[string]string{}
	for range 2 {
		d := waitDecision(t, e.sink.ch)
		got[d.Pod] = d.Node
	}
	if diff := cmp.Diff(map[string]string{"default/a": "n1", "default/b": "n1"}, got); diff != "" {
		t.Errorf("binds (-want +got):\n%s", diff)
	}
}
