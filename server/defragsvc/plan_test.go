package defragsvc

import (
	"errors"
	"strings"
	"testing"

	"github.com/berthsched/berth/core/deschedule/defrag"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// planFor applies the eviction API's budget rule to every move, charging
// a budget once per move of the plan, and refuses a plan whose pods moved
// on or are going already.
func TestPlanFor(t *testing.T) {
	web := func(allowed int32) []disruption.Budget {
		return []disruption.Budget{{PDB: &model.PodDisruptionBudget{Namespace: "default", Name: "web"}, Status: disruption.Status{Expected: 3, CurrentHealthy: 3, DisruptionsAllowed: allowed}}}
	}
	other := []disruption.Budget{{PDB: &model.PodDisruptionBudget{Namespace: "default", Name: "other"}, Status: disruption.Status{DisruptionsAllowed: 5}}}
	tests := []struct {
		name    string
		budgets map[string][]disruption.Budget
		change  func(live map[string]*model.Pod, evicted map[string]bool)
		wantErr string // "" for a plan
	}{
		{name: "no budgets"},
		{name: "budget allows both", budgets: map[string][]disruption.Budget{"a": web(2), "b": web(2)}},
		{name: "budget allows one of two", budgets: map[string][]disruption.Budget{"a": web(1), "b": web(1)},
			wantErr: "the disruption budget default/web allows no disruption of default/b now"},
		{name: "budget allows none", budgets: map[string][]disruption.Budget{"a": web(0)},
			wantErr: "the disruption budget default/web allows no disruption of default/a now"},
		{name: "two budgets", budgets: map[string][]disruption.Budget{"b": append(web(3), other...)},
			wantErr: "moved pod default/b is covered by more than one PodDisruptionBudget"},
		{name: "moved pod gone", change: func(live map[string]*model.Pod, _ map[string]bool) { delete(live, "u-a") },
			wantErr: "moved pod default/a is gone"},
		{name: "moved pod rebound", change: func(live map[string]*model.Pod, _ map[string]bool) { live["u-b"] = testPod("b", "n9", 1000) },
			wantErr: `moved pod default/b is on "n9" now, not n2`},
		{name: "moved pod evicted already", change: func(_ map[string]*model.Pod, ev map[string]bool) { ev["u-a"] = true },
			wantErr: "moved pod default/a is being evicted already"},
		{name: "waiting pod bound", change: func(live map[string]*model.Pod, _ map[string]bool) { live["u-w"] = testPod("w", "n3", 3000) },
			wantErr: "waiting pod default/w is gone or bound"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b, w := testPod("a", "n1", 1000), testPod("b", "n2", 1000), testPod("w", "", 3000)
			live := map[string]*model.Pod{a.UID: a, b.UID: b, w.UID: w}
			evicted := map[string]bool{}
			if tc.change != nil {
				tc.change(live, evicted)
			}
			found := &defrag.Plan{
				Moves:      []defrag.Move{{Pod: a, From: "n1", To: "n3", For: "default/w"}, {Pod: b, From: "n2", To: "n4", For: "default/w"}},
				Placements: map[string]string{"default/w": "n1"},
			}
			set := waitingSet{key: "pod default/w", pods: []*model.Pod{w}}
			plan, fl, err := planFor(set, found, func(uid string) (*model.Pod, bool) { p, ok := live[uid]; return p, ok },
				func(p *model.Pod) []disruption.Budget { return tc.budgets[p.Name] }, func(uid string) bool { return evicted[uid] })
			if tc.wantErr != "" {
				if !errors.Is(err, errRefused) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want refused: %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Items) != 3 || len(fl.moves) != 2 || len(fl.waiting) != 1 || fl.waiting[0].node != "n1" {
				t.Fatalf("plan %+v, in flight %+v", plan.Items, fl)
			}
			for i, to := range []string{"n3", "n4"} {
				ev := plan.Items[i].(*framework.Eviction)
				if ev.Cause != framework.EvictDefragment || ev.Message != "Defragmented for pod default/w (planned on n1): moved off n"+string(rune('1'+i))+"; Berth's scheduler re-places it on "+to {
					t.Errorf("evict %d: %+v", i, ev)
				}
			}
			if nom := plan.Items[2].(*framework.Nomination); nom.Pod != w || nom.Node != "n1" {
				t.Errorf("nomination %+v", nom)
			}
			for name, bs := range tc.budgets {
				if bs[0].Status.DisruptionsAllowed != 2 {
					t.Errorf("%s: the view's budget was changed to %d", name, bs[0].Status.DisruptionsAllowed)
				}
			}
		})
	}
}
