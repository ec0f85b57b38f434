package preemption_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
)

// TestThroughTheScheduler follows a preemption through the real scheduling
// loop: the preemptor is nominated and waits while the victim terminates,
// its nomination keeps a lower-priority pod off the room, then it binds to
// its node; or elsewhere if room appears there first.
func TestThroughTheScheduler(t *testing.T) {
	ctx := context.Background()
	type env struct {
		s    *scheduler.Scheduler
		sink *recorder
	}
	setup := func(t *testing.T) (env, *model.Pod) {
		sink := &recorder{}
		s, err := scheduler.New(ctx, scheduler.Options{Registry: registry.InTree(), Decisions: sink, Clock: fixedClock{}, Deterministic: true, Replay: scheduler.Replay{BindInline: true}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Upsert(ctx, node("n1", 2000)); err != nil {
			t.Fatal(err)
		}
		victim := running("low", "n1", 0, 2000, time.Hour).Obj()
		for _, p := range []*model.Pod{
			victim,
			mt.MakePod("preemptor").RequestedPriority(100).Req(mt.Res(2000, 0)).Obj(),
			mt.MakePod("mid").RequestedPriority(50).Req(mt.Res(1000, 0)).Obj(),
		} {
			if err := s.AddPod(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		return env{s, sink}, victim
	}
	attempt := func(t *testing.T, e env, uid string) *scheduler.Attempt {
		t.Helper()
		att, err := e.s.AttemptPod(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		return att
	}

	t.Run("waits for the victim, keeps the room, binds there", func(t *testing.T) {
		e, victim := setup(t)
		att := attempt(t, e, "uid-preemptor")
		if att.NominatedNode != "n1" || att.Evictions != 1 {
			t.Fatalf("preemptor: %s nominated %q evictions %d: %s", att.Result, att.NominatedNode, att.Evictions, att.Message)
		}
		// The victim is terminating: the preemptor does not preempt again.
		dying := *victim
		dying.Terminating = true
		if err := e.s.AddPod(ctx, &dying); err != nil {
			t.Fatal(err)
		}
		if att := attempt(t, e, "uid-preemptor"); att.Evictions != 0 || att.Message != "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node." {
			t.Errorf("second attempt: %d evictions, %q", att.Evictions, att.Message)
		}
		if err := e.s.DeletePod(ctx, &dying); err != nil {
			t.Fatal(err)
		}
		// The room is reserved for the preemptor: the lower-priority pod
		// does not take it.
		if att := attempt(t, e, "uid-mid"); att.Result != scheduler.ResultUnschedulable {
			t.Errorf("mid: %s on %q, want unschedulable", att.Result, att.Node)
		}
		if att := attempt(t, e, "uid-preemptor"); att.Result != scheduler.ResultScheduled || att.Node != "n1" || !att.ViaNominatedNode {
			t.Errorf("preemptor: %s on %q via nominated %v, want n1 via its nomination", att.Result, att.Node, att.ViaNominatedNode)
		}
	})

	t.Run("binds elsewhere when room appears there first", func(t *testing.T) {
		e, _ := setup(t)
		if att := attempt(t, e, "uid-preemptor"); att.NominatedNode != "n1" {
			t.Fatalf("preemptor nominated %q: %s", att.NominatedNode, att.Message)
		}
		if err := e.s.Upsert(ctx, node("n2", 4000)); err != nil {
			t.Fatal(err)
		}
		if att := attempt(t, e, "uid-preemptor"); att.Result != scheduler.ResultScheduled || att.Node != "n2" {
			t.Errorf("preemptor: %s on %q, want n2", att.Result, att.Node)
		}
	})
}

// decisionsOf keeps the entries of the recorder's log that start with one
// of the prefixes ("evict", "nominate", "clear", "bind").
func decisionsOf(r *recorder, prefixes ...string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.log {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p+" ") {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// TestEvictedVictims follows victims after their Evict decision, before
// the orchestrator deletes them: the scheduler holds them as terminating by
// preemption, so nothing evicts them again.
func TestEvictedVictims(t *testing.T) {
	ctx := context.Background()
	newScheduler := func(t *testing.T, nodes ...*model.Node) (*scheduler.Scheduler, *recorder) {
		t.Helper()
		sink := &recorder{}
		s, err := scheduler.New(ctx, scheduler.Options{Registry: registry.InTree(), Decisions: sink, Clock: fixedClock{}, Deterministic: true, Replay: scheduler.Replay{BindInline: true}})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if err := s.Upsert(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		return s, sink
	}
	add := func(t *testing.T, s *scheduler.Scheduler, pods ...*model.Pod) {
		t.Helper()
		for _, p := range pods {
			if err := s.AddPod(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	attempt := func(t *testing.T, s *scheduler.Scheduler, uid string) *scheduler.Attempt {
		t.Helper()
		att, err := s.AttemptPod(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		return att
	}
	pending := func(name string, prio int32, milliCPU int64) *model.Pod {
		return mt.MakePod(name).RequestedPriority(prio).Req(mt.Res(milliCPU, 0)).Obj()
	}
	const notEligible = "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node."

	t.Run("a preemptor retried before its victim goes does not evict again", func(t *testing.T) {
		s, sink := newScheduler(t, node("n1", 2000), node("n2", 2000))
		low1 := running("low1", "n1", 0, 2000, 2*time.Hour).Ready().Obj()
		add(t, s, low1, running("low2", "n2", 0, 2000, time.Hour).Ready().Obj(), pending("hi", 100, 2000))
		if att := attempt(t, s, "uid-hi"); att.NominatedNode != "n2" || att.Evictions != 1 {
			t.Fatalf("first attempt: nominated %q, %d evictions: %s", att.NominatedNode, att.Evictions, att.Message)
		}
		if v, _ := s.View().Pod("uid-low2"); !v.TerminatingByPreemption() {
			t.Errorf("the victim is not terminating by preemption in the scheduler's view: %+v", v)
		}
		for i := range 3 {
			if att := attempt(t, s, "uid-hi"); att.Evictions != 0 || att.Message != notEligible {
				t.Errorf("retry %d: %d evictions, %q", i, att.Evictions, att.Message)
			}
		}
		// A resync re-sends the victim as running before the orchestrator
		// acted: the mark stays.
		add(t, s, running("low2", "n2", 0, 2000, time.Hour).Ready().Obj())
		if att := attempt(t, s, "uid-hi"); att.Evictions != 0 || att.Message != notEligible {
			t.Errorf("after the victim was re-sent as running: %d evictions, %q", att.Evictions, att.Message)
		}
		if diff := cmp.Diff([]string{evictedFor("low2", "n2", "hi")}, decisionsOf(sink, "evict")); diff != "" {
			t.Errorf("evictions (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"uid-low2"}, s.View().Evicted()); diff != "" {
			t.Errorf("Evicted() (-want +got):\n%s", diff)
		}
		// Deleting the victim clears the mark; the preemptor binds.
		if err := s.DeletePod(ctx, low1); err != nil {
			t.Fatal(err)
		}
		if err := s.DeletePod(ctx, mt.MakePod("low2").Obj()); err != nil {
			t.Fatal(err)
		}
		if got := s.View().Evicted(); len(got) != 0 {
			t.Errorf("Evicted() after the deletion = %v, want none", got)
		}
		if att := attempt(t, s, "uid-hi"); att.Result != scheduler.ResultScheduled || att.Node != "n2" {
			t.Errorf("after the victim left: %s on %q: %s", att.Result, att.Node, att.Message)
		}
	})

	t.Run("a higher-priority pod takes the node while the preemptor waits", func(t *testing.T) {
		// kube's docs: while the preemptor waits for its victims, a pod
		// of higher priority that needs the same node may take it; the
		// preemptor loses its nomination. The victim, already going, is
		// not evicted again.
		s, sink := newScheduler(t, node("n1", 2000))
		low := running("low", "n1", 0, 2000, time.Hour).Ready().Obj()
		add(t, s, low, pending("p", 100, 2000), pending("q", 200, 2000))
		if att := attempt(t, s, "uid-p"); att.NominatedNode != "n1" || att.Evictions != 1 {
			t.Fatalf("p: nominated %q, %d evictions: %s", att.NominatedNode, att.Evictions, att.Message)
		}
		if att := attempt(t, s, "uid-q"); att.NominatedNode != "n1" || att.Evictions != 0 {
			t.Fatalf("q: nominated %q, %d evictions: %s", att.NominatedNode, att.Evictions, att.Message)
		}
		if p, _ := s.View().Pod("uid-p"); p.NominatedNodeName != "" {
			t.Errorf("p is still nominated to %q", p.NominatedNodeName)
		}
		// p may not preempt q's room: the only lower-priority pod there
		// is the victim, and q's nomination keeps the room.
		if att := attempt(t, s, "uid-p"); att.Result != scheduler.ResultUnschedulable || att.Evictions != 0 || att.NominatedNode != "" {
			t.Errorf("p again: %s nominated %q, %d evictions: %s", att.Result, att.NominatedNode, att.Evictions, att.Message)
		}
		if err := s.DeletePod(ctx, low); err != nil {
			t.Fatal(err)
		}
		if att := attempt(t, s, "uid-p"); att.Result != scheduler.ResultUnschedulable {
			t.Errorf("p once the victim left: %s on %q, want unschedulable (the room is q's)", att.Result, att.Node)
		}
		if att := attempt(t, s, "uid-q"); att.Result != scheduler.ResultScheduled || att.Node != "n1" || !att.ViaNominatedNode {
			t.Errorf("q once the victim left: %s on %q via nominated %v", att.Result, att.Node, att.ViaNominatedNode)
		}
		want := []string{
			evictedFor("low", "n1", "p"),
			"nominate default/p n1",
			"clear default/p: node n1 was taken by preemptor default/q of higher priority",
			"nominate default/q n1",
			"bind default/q n1",
		}
		if diff := cmp.Diff(want, decisionsOf(sink, "evict", "nominate", "clear", "bind")); diff != "" {
			t.Errorf("decisions (-want +got):\n%s", diff)
		}
	})

	t.Run("an evicted victim no longer counts as healthy for its budget", func(t *testing.T) {
		// web1 and web2 are covered by a budget keeping one of them: once
		// web1 is evicted for a, b must not take web2 too.
		s, sink := newScheduler(t, node("n1", 2000), node("n2", 2000), node("n3", 2000))
		add(t, s,
			running("web1", "n1", 0, 2000, time.Hour).Label("app", "web").Ready().Obj(),
			running("web2", "n2", 0, 2000, 2*time.Hour).Label("app", "web").Ready().Obj(),
			running("other", "n3", 50, 2000, 3*time.Hour).Ready().Obj(),
			pending("a", 100, 2000), pending("b", 100, 2000))
		one := model.IntOrPercent{Value: 1}
		if err := s.Upsert(ctx, &model.PodDisruptionBudget{Namespace: "default", Name: "web",
			Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, MinAvailable: &one}); err != nil {
			t.Fatal(err)
		}
		if att := attempt(t, s, "uid-a"); att.NominatedNode != "n1" {
			t.Fatalf("a: nominated %q: %s", att.NominatedNode, att.Message)
		}
		if att := attempt(t, s, "uid-b"); att.NominatedNode != "n3" {
			t.Errorf("b: nominated %q, want n3 (web2 is the last healthy web pod): %s", att.NominatedNode, att.Message)
		}
		if diff := cmp.Diff([]string{evictedFor("web1", "n1", "a"), evictedFor("other", "n3", "b")}, decisionsOf(sink, "evict")); diff != "" {
			t.Errorf("evictions (-want +got):\n%s", diff)
		}
	})
}

// evictedFor is the recorder's line for an eviction for preemptor.
func evictedFor(victim, node, preemptor string) string {
	return "evict default/" + victim + " from " + node + " for default/" + preemptor + ": Preempted by pod default/" + preemptor + " on node " + node
}

// holdPermit keeps the pods labelled hold=yes waiting at Permit.
type holdPermit struct{}

func (holdPermit) Name() string { return "Hold" }

func (holdPermit) Permit(_ context.Context, _ *framework.CycleState, pod *model.Pod, _ string) (*framework.Status, time.Duration) {
	if pod.Labels["hold"] == "yes" {
		return framework.NewStatus(framework.Wait), time.Minute
	}
	return nil, 0
}

// TestVictimHeldAtPermit: a victim waiting at Permit (assumed, its bind not
// issued) is rejected there instead of evicted, as kube's executor does: no
// Evict goes out, the victim goes back to the queue as a pending pod, not
// terminating, and the preemptor takes its room.
func TestVictimHeldAtPermit(t *testing.T) {
	ctx := context.Background()
	reg := registry.InTree()
	reg["Hold"] = func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
		return holdPermit{}, nil
	}
	cfg := config.Default()
	cfg.Profiles[0].Plugins.Permit.Enabled = append(cfg.Profiles[0].Plugins.Permit.Enabled, config.Plugin{Name: "Hold"})
	sink := &recorder{}
	s, err := scheduler.New(ctx, scheduler.Options{Config: cfg, Registry: reg, Decisions: sink, Clock: fixedClock{}, Deterministic: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, node("n1", 2000)); err != nil {
		t.Fatal(err)
	}
	held := mt.MakePod("held").Label("hold", "yes").RequestedPriority(0).Req(mt.Res(2000, 0)).Obj()
	if err := s.AddPod(ctx, held); err != nil {
		t.Fatal(err)
	}
	if att, err := s.ScheduleOne(ctx); err != nil || att.Result != scheduler.ResultScheduled {
		t.Fatalf("held: %v %+v", err, att)
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting until %s", what)
			}
		}
	}
	fwk, _ := s.View().Profile(model.DefaultSchedulerName)
	waitFor("held waits at Permit", func() bool { return fwk.GetWaitingPod("uid-held") != nil })

	if err := s.AddPod(ctx, mt.MakePod("hi").RequestedPriority(100).Req(mt.Res(2000, 0)).Obj()); err != nil {
		t.Fatal(err)
	}
	att, err := s.AttemptPod(ctx, "uid-hi")
	if err != nil {
		t.Fatal(err)
	}
	if att.NominatedNode != "n1" || att.Evictions != 0 {
		t.Errorf("hi: nominated %q, %d evictions, want n1 and none: %s", att.NominatedNode, att.Evictions, att.Message)
	}
	waitFor("held is pending again", func() bool {
		ex, err := s.View().ExplainUID("uid-held")
		return err == nil && ex.Phase == scheduler.PhasePending
	})
	if p, _ := s.View().Pod("uid-held"); p.Terminating || p.Preempted || p.NodeName != "" {
		t.Errorf("held after the rejection: terminating %v preempted %v node %q, want a plain pending pod", p.Terminating, p.Preempted, p.NodeName)
	}
	if got := s.View().Evicted(); len(got) != 0 {
		t.Errorf("Evicted() = %v, want none", got)
	}
	if att, err := s.AttemptPod(ctx, "uid-hi"); err != nil || att.Result != scheduler.ResultScheduled || att.Node != "n1" {
		t.Errorf("hi once the room is free: %v %+v", err, att)
	}
	waitFor("hi's binding cycle binds it", func() bool { return len(decisionsOf(sink, "bind")) > 0 })
	if diff := cmp.Diff([]string{"nominate default/hi n1", "bind default/hi n1"}, decisionsOf(sink, "evict", "nominate", "bind")); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}
