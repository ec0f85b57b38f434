package scheduler

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// fakePlanner records each plan as "kind pod [node]" lines, or fails
// them when fail is set; with refuseEvicts it refuses every Evict alone.
type fakePlanner struct {
	fail, refuseEvicts bool
	submitted          [][]string
}

func (f *fakePlanner) Submit(_ context.Context, plan framework.Plan) (framework.PlanResult, error) {
	if f.fail {
		return framework.PlanResult{}, errors.New("disk on fire")
	}
	var lines []string
	res := framework.PlanResult{Refused: make([]error, len(plan.Items))}
	for i, item := range plan.Items {
		switch it := item.(type) {
		case *framework.Eviction:
			if f.refuseEvicts {
				res.Refused[i] = errors.New("evicted already")
				continue
			}
			lines = append(lines, "evict "+it.Victim.Name+" "+it.Node)
		case *framework.Nomination:
			lines = append(lines, "nominate "+it.Pod.Name+" "+it.Node)
		case *framework.ClearNomination:
			lines = append(lines, "clear "+it.Pod.Name)
		case *framework.UnschedulableReport:
			lines = append(lines, "unschedulable "+it.Pod.Name)
		case *framework.Bind:
			lines = append(lines, "bind "+it.Pod.Name+" "+it.Node)
		}
	}
	f.submitted = append(f.submitted, lines)
	return res, nil
}

// TestAttemptPlan: with GroupDecisions, a preemption's Evict, the pod's
// Nominate and its report are submitted as one plan at the end of the
// cycle, not one by one; when the plan fails, or refuses the Evict alone,
// the victim is no longer held as evicted (its Evict was not made).
func TestAttemptPlan(t *testing.T) {
	for _, tc := range []struct {
		name          string
		fail, refuse  bool
		want          [][]string
		victimEvicted bool
	}{
		{name: "committed", want: [][]string{{"evict victim n1", "nominate p n1", "unschedulable p"}}, victimEvicted: true},
		{name: "failed", fail: true},
		{name: "evict refused", refuse: true, want: [][]string{{"nominate p n1", "unschedulable p"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			planner := &fakePlanner{fail: tc.fail, refuseEvicts: tc.refuse}
			f := &fakeFilter{name: "F", reject: map[string]reject{}}
			pf := &fakePostFilter{name: "PF", nominate: "n1"}
			e := newEnv(t, &testPlugins{filters: []*fakeFilter{f}, postFilter: pf}, func(o *Options) { o.Decisions, o.GroupDecisions = planner, true })
			e.addNodes(mt.MakeNode("n1").Capacity(mt.Res(1000, mt.Gi)).Obj())
			victim := mt.MakePod("victim").Req(mt.Res(100, 0)).Node("n1").Obj()
			e.addPods(victim)
			f.reject["n1"] = reject{framework.Unschedulable, "full"}
			pf.victims = []*model.Pod{victim}
			e.addPods(mt.MakePod("p").RequestedPriority(10).Obj())
			if att := e.scheduleOne(); att.Evictions != 1 {
				t.Fatalf("p: %d evictions: %s", att.Evictions, att.Message)
			}
			if diff := cmp.Diff(tc.want, planner.submitted); diff != "" {
				t.Errorf("plans submitted (-want +got):\n%s", diff)
			}
			p, _ := e.s.View().Pod("uid-victim")
			st, _ := e.s.cache.Pod("uid-victim")
			marked := []bool{p.TerminatingByPreemption(), st.Pod.TerminatingByPreemption(), len(e.s.View().Evicted()) == 1}
			if diff := cmp.Diff([]bool{tc.victimEvicted, tc.victimEvicted, tc.victimEvicted}, marked); diff != "" {
				t.Errorf("victim marked evicted (view, cache, evicted set) (-want +got):\n%s", diff)
			}
		})
	}
}
