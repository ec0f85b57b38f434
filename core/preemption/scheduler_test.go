package preemption_test

import (
	"context"
	"testing"
	"time"

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
		s, err := scheduler.New(ctx, scheduler.Options{Registry: registry.InTree(), Decisions: sink, Clock: fixedClock{}, Deterministic: true, BindInline: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddNode(ctx, node("n1", 2000)); err != nil {
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
		if err := e.s.UpdatePod(ctx, &dying); err != nil {
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
		if err := e.s.AddNode(ctx, node("n2", 4000)); err != nil {
			t.Fatal(err)
		}
		if att := attempt(t, e, "uid-preemptor"); att.Result != scheduler.ResultScheduled || att.Node != "n2" {
			t.Errorf("preemptor: %s on %q, want n2", att.Result, att.Node)
		}
	})
}
