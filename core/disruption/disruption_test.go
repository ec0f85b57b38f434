package disruption

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
)

func ip(v int32) *model.IntOrPercent  { return &model.IntOrPercent{Value: v} }
func pct(v int32) *model.IntOrPercent { return &model.IntOrPercent{Value: v, IsPercent: true} }

// pods returns n pods labelled app=web: the first ready ones bound and
// ready, the rest bound and not ready.
func pods(n, ready int) []*model.Pod {
	out := make([]*model.Pod, n)
	for i := range out {
		out[i] = &model.Pod{Namespace: "ns", Name: fmt.Sprintf("web-%d", i), UID: fmt.Sprint(i),
			Labels: map[string]string{"app": "web"}, NodeName: "n1", Ready: i < ready}
	}
	return out
}

func budget(min, maxU *model.IntOrPercent) *model.PodDisruptionBudget {
	return &model.PodDisruptionBudget{Namespace: "ns", Name: "web", MinAvailable: min, MaxUnavailable: maxU,
		Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
}

func TestCompute(t *testing.T) {
	tests := []struct {
		name string
		pdb  *model.PodDisruptionBudget
		pods []*model.Pod
		want Status
	}{
		{"minAvailable 2 of 3", budget(ip(2), nil), pods(3, 3), Status{3, 3, 2, 1}},
		{"minAvailable 3 of 3", budget(ip(3), nil), pods(3, 3), Status{3, 3, 3, 0}},
		{"minAvailable 50% of 3 rounds up to 2", budget(pct(50), nil), pods(3, 3), Status{3, 3, 2, 1}},
		{"maxUnavailable 1 of 3", budget(nil, ip(1)), pods(3, 3), Status{3, 3, 2, 1}},
		{"maxUnavailable 50% of 3 rounds up to 2", budget(nil, pct(50)), pods(3, 3), Status{3, 3, 1, 2}},
		{"maxUnavailable 1, one not ready", budget(nil, ip(1)), pods(3, 2), Status{3, 2, 2, 0}},
		{"minAvailable 0 with no pods", budget(ip(0), nil), nil, Status{}},
		{"maxUnavailable 0%", budget(nil, pct(0)), pods(4, 4), Status{4, 4, 4, 0}},
		{"minAvailable 100%", budget(pct(100), nil), pods(4, 4), Status{4, 4, 4, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := tt.pdb.Selector.Compile()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, Compute(tt.pdb, sel, tt.pods)); diff != "" {
				t.Errorf("Compute (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComputeTerminatingAndDisrupted(t *testing.T) {
	ps := pods(4, 4)
	ps[0].Terminating = true
	pdb := budget(ip(2), nil)
	pdb.DisruptedPods = map[string]time.Time{"web-1": {}}
	sel, _ := pdb.Selector.Compile()
	if diff := cmp.Diff(Status{4, 2, 2, 0}, Compute(pdb, sel, ps)); diff != "" {
		t.Errorf("Compute (-want +got):\n%s", diff)
	}
}

func TestCheck(t *testing.T) {
	ready := &model.Pod{Namespace: "ns", Name: "p", NodeName: "n1", Ready: true, Labels: map[string]string{"app": "web"}}
	unready := &model.Pod{Namespace: "ns", Name: "p", NodeName: "n1", Labels: map[string]string{"app": "web"}}
	pending := &model.Pod{Namespace: "ns", Name: "p", Labels: map[string]string{"app": "web"}}
	terminating := &model.Pod{Namespace: "ns", Name: "p", NodeName: "n1", Ready: true, Terminating: true}
	inPhase := func(phase model.PodPhase) *model.Pod {
		p := *ready
		p.Runtime = &model.PodRuntime{Phase: phase}
		return &p
	}
	b := func(st Status, pol model.UnhealthyPodEvictionPolicy) Budget {
		pdb := budget(ip(2), nil)
		pdb.UnhealthyPodEvictionPolicy = pol
		return Budget{PDB: pdb, Status: st}
	}
	allows := b(Status{3, 3, 2, 1}, "")
	exhausted := b(Status{3, 2, 2, 0}, "")
	tests := []struct {
		name    string
		pod     *model.Pod
		budgets []Budget
		want    Verdict
	}{
		{"no budget", ready, nil, Allow},
		{"one budget allowing", ready, []Budget{allows}, AllowCharged},
		{"one budget exhausted", ready, []Budget{exhausted}, RefuseBudget},
		{"two budgets", ready, []Budget{allows, allows}, RefuseMultiple},
		{"pending ignores budgets", pending, []Budget{exhausted}, Allow},
		{"terminating ignores budgets", terminating, []Budget{exhausted, exhausted}, Allow},
		{"bound, phase Pending (not started) ignores budgets", inPhase(model.PodPending), []Budget{exhausted}, Allow},
		{"phase Succeeded ignores budgets", inPhase(model.PodSucceeded), []Budget{exhausted, exhausted}, Allow},
		{"phase Failed ignores budgets", inPhase(model.PodFailed), []Budget{exhausted}, Allow},
		{"phase Running asks its budget", inPhase(model.PodRunning), []Budget{exhausted}, RefuseBudget},
		{"phase Unknown asks its budget", inPhase(model.PodUnknown), []Budget{exhausted}, RefuseBudget},
		{"unready, healthy budget (IfHealthyBudget)", unready, []Budget{b(Status{3, 2, 2, 0}, "")}, Allow},
		{"unready, unhealthy budget (IfHealthyBudget)", unready, []Budget{b(Status{3, 1, 2, 0}, model.UnhealthyPodEvictionIfHealthyBudget)}, RefuseBudget},
		{"unready, desired 0 counts as a healthy pod", unready, []Budget{b(Status{3, 0, 0, 0}, "")}, RefuseBudget},
		{"unready, AlwaysAllow", unready, []Budget{b(Status{3, 1, 2, 0}, model.UnhealthyPodEvictionAlwaysAllow)}, Allow},
		{"unready, unhealthy budget with allowance", unready, []Budget{b(Status{3, 1, 0, 1}, "")}, AllowCharged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Check(tt.pod, tt.budgets); got != tt.want {
				t.Errorf("Check = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	pdb := budget(ip(1), nil)
	sel, _ := pdb.Selector.Compile()
	empty := &model.PodDisruptionBudget{Namespace: "ns", Name: "all", Selector: &model.LabelSelector{}}
	esel, _ := empty.Selector.Compile()
	none := &model.PodDisruptionBudget{Namespace: "ns", Name: "none"}
	web := &model.Pod{Namespace: "ns", Labels: map[string]string{"app": "web"}}
	other := &model.Pod{Namespace: "other", Labels: map[string]string{"app": "web"}}
	bare := &model.Pod{Namespace: "ns"}
	for _, tc := range []struct {
		name string
		pdb  *model.PodDisruptionBudget
		sel  model.Selector
		pod  *model.Pod
		want bool
	}{
		{"matching", pdb, sel, web, true},
		{"other namespace", pdb, sel, other, false},
		{"no labels", empty, esel, bare, false},
		{"empty selector", empty, esel, web, true},
		{"nil selector", none, model.Selector{}, web, false},
	} {
		if got := Covers(tc.pdb, tc.sel, tc.pod); got != tc.want {
			t.Errorf("%s: Covers = %v, want %v", tc.name, got, tc.want)
		}
	}
}
