package scheduler

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// TestEvictionMark follows the mark an Evict puts on its victim through the
// victim's life: bound or with its bind in flight, upserted again, restored
// after a restart, deleted.
func TestEvictionMark(t *testing.T) {
	ctx := context.Background()
	type view struct {
		Pod, Cached bool // TerminatingByPreemption in s.pods, in the cache
		Assumed     bool
		Evicted     []string
	}
	look := func(e *env, uid string) view {
		var v view
		if p, ok := e.s.View().Pod(uid); ok {
			v.Pod = p.TerminatingByPreemption()
		}
		if st, ok := e.s.cache.Pod(uid); ok {
			v.Cached, v.Assumed = st.Pod.TerminatingByPreemption(), st.Assumed
		}
		v.Evicted = e.s.View().Evicted()
		return v
	}
	// setup schedules victim onto n1 (its bind issued, not confirmed) and
	// returns an env whose next pod, p, fails everywhere and evicts victim.
	setup := func(t *testing.T, confirm bool) (*env, *model.Pod) {
		victim := mt.MakePod("victim").Req(mt.Res(100, 0)).Obj()
		f := &fakeFilter{name: "F", reject: map[string]reject{}}
		pf := &fakePostFilter{name: "PF", nominate: "n1"}
		e := newEnv(t, &testPlugins{filters: []*fakeFilter{f}, postFilter: pf}, nil)
		e.addNodes(mt.MakeNode("n1").Capacity(mt.Res(1000, mt.Gi)).Obj())
		e.addPods(victim)
		if att := e.scheduleOne(); att.Result != ResultScheduled {
			t.Fatalf("victim: %s", att.Message)
		}
		bound := mt.MakePod("victim").Req(mt.Res(100, 0)).Node("n1").Obj()
		if confirm {
			e.addPods(bound)
		}
		f.reject["n1"] = reject{framework.Unschedulable, "full"}
		pf.victims = []*model.Pod{bound}
		e.addPods(mt.MakePod("p").RequestedPriority(10).Obj())
		if att := e.scheduleOne(); att.Evictions != 1 {
			t.Fatalf("p: %d evictions: %s", att.Evictions, att.Message)
		}
		return e, bound
	}
	marked := []string{"uid-victim"}

	t.Run("bound victim", func(t *testing.T) {
		e, victim := setup(t, true)
		if diff := cmp.Diff(view{Pod: true, Cached: true, Evicted: marked}, look(e, "uid-victim")); diff != "" {
			t.Errorf("after the Evict (-want +got):\n%s", diff)
		}
		// Re-sent as running and ready, not terminating: still marked.
		e.addPods(mt.MakePod("victim").Req(mt.Res(100, 0)).Node("n1").Ready().Obj())
		if diff := cmp.Diff(view{Pod: true, Cached: true, Evicted: marked}, look(e, "uid-victim")); diff != "" {
			t.Errorf("after an upsert (-want +got):\n%s", diff)
		}
		if err := e.s.DeletePod(ctx, victim); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(view{Evicted: []string{}}, look(e, "uid-victim")); diff != "" {
			t.Errorf("after the deletion (-want +got):\n%s", diff)
		}
		// The same uid sent again is a new pod: not marked.
		e.addPods(mt.MakePod("victim").Req(mt.Res(100, 0)).Node("n1").Obj())
		if diff := cmp.Diff(view{Evicted: []string{}}, look(e, "uid-victim")); diff != "" {
			t.Errorf("re-added after the deletion (-want +got):\n%s", diff)
		}
	})

	t.Run("victim with its bind in flight", func(t *testing.T) {
		e, _ := setup(t, false)
		if diff := cmp.Diff(view{Pod: true, Cached: true, Assumed: true, Evicted: marked}, look(e, "uid-victim")); diff != "" {
			t.Errorf("after the Evict (-want +got):\n%s", diff)
		}
		// The bind is confirmed after all: the pod stays marked.
		if err := e.s.ReportBindResult(ctx, "uid-victim", "n1", true, ""); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(view{Pod: true, Cached: true, Evicted: marked}, look(e, "uid-victim")); diff != "" {
			t.Errorf("after the bind was confirmed (-want +got):\n%s", diff)
		}
	})

	t.Run("victim whose bind fails", func(t *testing.T) {
		e, _ := setup(t, false)
		if err := e.s.ReportBindResult(ctx, "uid-victim", "n1", false, "no"); err != nil {
			t.Fatal(err)
		}
		// Pending again but being deleted: never scheduled again.
		if diff := cmp.Diff(view{Pod: true, Evicted: marked}, look(e, "uid-victim")); diff != "" {
			t.Errorf("after the bind failed (-want +got):\n%s", diff)
		}
		e.expireBackoff()
		if att, err := e.s.AttemptPod(ctx, "uid-victim"); err != nil || att.Result != ResultSkipped {
			t.Errorf("attempt of the evicted pod: %v %+v, want skipped", err, att)
		}
	})

	t.Run("restored after a restart", func(t *testing.T) {
		e := newEnv(t, &testPlugins{}, nil)
		e.s.Restore(Restored{Evictions: []string{"uid-victim", "uid-gone"}})
		e.addNodes(mt.MakeNode("n1").Obj())
		e.addPods(mt.MakePod("victim").Node("n1").Ready().Obj())
		if diff := cmp.Diff(view{Pod: true, Cached: true, Evicted: []string{"uid-gone", "uid-victim"}}, look(e, "uid-victim")); diff != "" {
			t.Errorf("re-listed (-want +got):\n%s", diff)
		}
	})
}
