package preemption_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/preemption"
)

// budgetBox serves budgets a test changes between calls.
type budgetBox struct {
	mu   sync.Mutex
	list []framework.PDBStatus
}

func (b *budgetBox) List() []framework.PDBStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.list
}

func (b *budgetBox) set(list ...framework.PDBStatus) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.list = list
}

// movableClock is a clock a test sets.
type movableClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *movableClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *movableClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// TestDryRunMemoFollowsTheTime: a pod that has not started counts as
// starting now, so which of two equal-priority pods is the more important,
// and stays, depends on the time when the other started later than the
// first dry run. The memo must not serve the first outcome then.
func TestDryRunMemoFollowsTheTime(t *testing.T) {
	run := func(noMemo bool) []outcome {
		clock := &movableClock{now: t0}
		spec := clusterSpec{clock: clock, noPreemptionMemo: noMemo, nodes: []*model.Node{node("n0", 4000)},
			pods: []*model.Pod{
				mt.MakePod("unstarted").Node("n0").Priority(100).Req(mt.Res(1000, 0)).Obj(),
				running("later", "n0", 100, 1000, -time.Hour).Obj(), // starts at t0+1h
				running("top", "n0", 5000, 2000, time.Hour).Obj(),
			}}
		c := newCluster(t, spec)
		ev := preemption.New(c.fwk, defaultOptions())
		var outs []outcome
		for _, at := range []time.Time{t0, t0.Add(2 * time.Hour)} {
			clock.set(at)
			c.sink.log = nil
			pod := preemptor(1000, 1000).Obj()
			state, m := c.filter(t, pod)
			res, st := ev.Preempt(context.Background(), state, pod, m)
			out := outcome{Node: "-", Code: st.Code(), Message: st.Message(), Decisions: c.sink.log}
			if res != nil {
				out.Node = res.NominatedNodeName
			}
			outs = append(outs, out)
		}
		return outs
	}
	recomputed, remembered := run(true), run(false)
	if diff := cmp.Diff(recomputed, remembered); diff != "" {
		t.Errorf("outcomes (-recomputed +remembered):\n%s", diff)
	}
	if len(recomputed) == 2 && cmp.Equal(recomputed[0].Decisions, recomputed[1].Decisions) {
		t.Errorf("the victim should change with the time; both runs: %v", recomputed[0].Decisions)
	}
}

// TestDryRunMemoFollowsItsInputs runs two preemptors alike but for what
// the case changes, one after the other on one Evaluator, with the
// preemption memo on and off, and requires the same outcomes: the second
// must not reuse the first's dry runs where an input of them changed.
func TestDryRunMemoFollowsItsInputs(t *testing.T) {
	tests := []struct {
		name string
		// second is the second preemptor; between is applied to the
		// cluster between the two calls.
		second  *model.Pod
		between func(c *cluster, budgets *budgetBox)
	}{
		{name: "nothing changed", second: preemptor(1000, 3000).Obj()},
		{name: "lower priority: the priority-500 pods are no victims", second: preemptor(300, 3000).Obj()},
		{name: "a budget stops allowing disruptions", second: preemptor(1000, 3000).Obj(),
			between: func(_ *cluster, b *budgetBox) { b.set(budget("web", 0)) }},
		{name: "a pod is nominated to a node", second: preemptor(1000, 3000).Obj(),
			between: func(c *cluster, _ *budgetBox) {
				c.nominator.AddNominatedPod(framework.MustPodInfo(
					mt.MakePod("big").Priority(2000).Req(mt.Res(2000, 0)).Nominated("n0").Obj()), nil)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := func(noMemo bool) []outcome {
				budgets := &budgetBox{}
				budgets.set(budget("web", 2))
				spec := clusterSpec{budgets: budgets, noPreemptionMemo: noMemo}
				// Each node: the preemptor evicts low and mid. n0's mid
				// started last, so n0 wins ties; n2's pods are under no
				// budget, so n2 wins once the budget allows nothing.
				for i := range 3 {
					n := fmt.Sprintf("n%d", i)
					app := "web"
					if i == 2 {
						app = "other"
					}
					spec.nodes = append(spec.nodes, node(n, 4000))
					spec.pods = append(spec.pods,
						running(n+"-low", n, 100, 1000, time.Hour).Label("app", app).Obj(),
						running(n+"-mid", n, 500, 2000, time.Duration(i)*time.Minute).Label("app", app).Obj(),
						running(n+"-top", n, 5000, 1000, time.Hour).Obj())
				}
				c := newCluster(t, spec)
				ev := preemption.New(c.fwk, defaultOptions())
				var outs []outcome
				for i, pod := range []*model.Pod{preemptor(1000, 3000).Obj(), tc.second} {
					if i == 1 && tc.between != nil {
						tc.between(c, budgets)
					}
					c.sink.log = nil
					state, m := c.filter(t, pod)
					res, st := ev.Preempt(context.Background(), state, pod, m)
					out := outcome{Node: "-", Code: st.Code(), Message: st.Message(), Decisions: c.sink.log}
					if res != nil {
						out.Node = res.NominatedNodeName
					}
					outs = append(outs, out)
				}
				return outs
			}
			recomputed, remembered := run(true), run(false)
			if diff := cmp.Diff(recomputed, remembered); diff != "" {
				t.Errorf("outcomes (-recomputed +remembered):\n%s", diff)
			}
		})
	}
}
