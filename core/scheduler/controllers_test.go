package scheduler

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/berthsched/berth/core/framework"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// recordingPlanner records the plans it is given and commits them all.
type recordingPlanner struct {
	mu    sync.Mutex
	plans []framework.Plan
	// refuse, when set, refuses every Eviction with it.
	refuse error
}

func (r *recordingPlanner) Submit(_ context.Context, plan framework.Plan) (framework.PlanResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.plans = append(r.plans, plan)
	res := framework.PlanResult{Revisions: make([]uint64, len(plan.Items)), Refused: make([]error, len(plan.Items))}
	for i, item := range plan.Items {
		if _, ok := item.(*framework.Eviction); ok {
			res.Refused[i] = r.refuse
		}
	}
	return res, nil
}

// A controller's plan reaches the decision sink whole, then the
// scheduler's view: the evicted pod is held terminating (not by
// preemption for another cause), the nominated pod carries its node and
// the nominator holds it, a cleared nomination is let go. A Bind is not a
// controller's to make.
func TestControllerDecisions(t *testing.T) {
	sink := &recordingPlanner{}
	e := newEnv(t, &testPlugins{}, func(o *Options) { o.Decisions = sink })
	e.addNodes(mt.MakeNode("n1").Obj())
	victim := mt.MakePod("moved").Node("n1").Obj()
	waiting := mt.MakePod("waiting").Obj()
	e.addPods(victim, waiting)
	ctx := context.Background()
	p := e.s.ControllerDecisions()

	res, err := p.Submit(ctx, framework.Plan{Items: []framework.PlanItem{
		&framework.Eviction{Victim: victim, Node: "n1", Cause: framework.EvictDefragment, Message: "moved"},
		&framework.Nomination{Pod: waiting, Node: "n1"},
	}})
	if err != nil || res.Err(0) != nil || res.Err(1) != nil {
		t.Fatalf("Submit: %v %+v", err, res)
	}
	if len(sink.plans) != 1 || len(sink.plans[0].Items) != 2 {
		t.Errorf("sink got %+v, want the plan whole", sink.plans)
	}
	v, _ := e.s.View().Pod(victim.UID)
	if !v.Terminating || v.Preempted {
		t.Errorf("moved pod terminating %v, preempted %v: want terminating, not by preemption", v.Terminating, v.Preempted)
	}
	w, _ := e.s.View().Pod(waiting.UID)
	if node, _ := e.s.queue.Nominator().NominatedNodeName(waiting.UID); w.NominatedNodeName != "n1" || node != "n1" {
		t.Errorf("waiting pod nominated %q, nominator %q: want n1", w.NominatedNodeName, node)
	}

	if _, err := p.Submit(ctx, framework.Plan{Items: []framework.PlanItem{&framework.ClearNomination{Pod: w, Reason: "abandoned"}}}); err != nil {
		t.Fatal(err)
	}
	w, _ = e.s.View().Pod(waiting.UID)
	if node, ok := e.s.queue.Nominator().NominatedNodeName(waiting.UID); w.NominatedNodeName != "" || ok {
		t.Errorf("after the clear: nominated %q, nominator %q", w.NominatedNodeName, node)
	}

	if _, err := p.Submit(ctx, framework.Plan{Items: []framework.PlanItem{&framework.Bind{Pod: waiting, Node: "n1"}}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a controller's Bind: %v, want ErrInvalid", err)
	}
}

// An item the sink refuses is not applied to the view.
func TestControllerDecisionsRefused(t *testing.T) {
	sink := &recordingPlanner{refuse: errors.New("evicted already")}
	e := newEnv(t, &testPlugins{}, func(o *Options) { o.Decisions = sink })
	e.addNodes(mt.MakeNode("n1").Obj())
	victim := mt.MakePod("moved").Node("n1").Obj()
	e.addPods(victim)
	res, err := e.s.ControllerDecisions().Submit(context.Background(), framework.Plan{Items: []framework.PlanItem{
		&framework.Eviction{Victim: victim, Node: "n1", Cause: framework.EvictDefragment},
	}})
	if err != nil || res.Err(0) == nil {
		t.Fatalf("Submit: %v %+v, want the Eviction refused", err, res)
	}
	if v, _ := e.s.View().Pod(victim.UID); v.Terminating {
		t.Errorf("a refused eviction marked the pod terminating")
	}
}
