package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// TestDisruptionsAllowed checks a budget's allowance as the disruption
// controller computes it: healthy covered pods minus the desired count.
func TestDisruptionsAllowed(t *testing.T) {
	count := func(v int32) *model.IntOrPercent { return &model.IntOrPercent{Value: v} }
	percent := func(v int32) *model.IntOrPercent { return &model.IntOrPercent{Value: v, IsPercent: true} }
	web := &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	// healthy is a running, ready pod the web selector covers.
	healthy := func(name string) *mt.PodBuilder { return mt.MakePod(name).Node("n1").Label("app", "web").Ready() }
	three := []*model.Pod{healthy("w1").Obj(), healthy("w2").Obj(), healthy("w3").Obj()}
	five := int32(5)
	tests := []struct {
		name string
		pdb  model.PodDisruptionBudget
		pods []*model.Pod
		want int32
	}{
		{name: "minAvailable count", pdb: model.PodDisruptionBudget{MinAvailable: count(2)}, pods: three, want: 1},
		{name: "minAvailable above the healthy pods: none, not negative", pdb: model.PodDisruptionBudget{MinAvailable: count(5)}, pods: three, want: 0},
		{name: "minAvailable percent rounds up", pdb: model.PodDisruptionBudget{MinAvailable: percent(50)}, pods: three, want: 1},
		{name: "minAvailable 0%", pdb: model.PodDisruptionBudget{MinAvailable: percent(0)}, pods: three, want: 3},
		{name: "maxUnavailable count", pdb: model.PodDisruptionBudget{MaxUnavailable: count(1)}, pods: three, want: 1},
		{name: "maxUnavailable percent rounds up", pdb: model.PodDisruptionBudget{MaxUnavailable: percent(34)}, pods: three, want: 2},
		{name: "maxUnavailable 100%", pdb: model.PodDisruptionBudget{MaxUnavailable: percent(100)}, pods: three, want: 3},
		{name: "maxUnavailable above the covered pods", pdb: model.PodDisruptionBudget{MaxUnavailable: count(7)}, pods: three, want: 3},
		{
			name: "a pod that is not ready is not healthy",
			pdb:  model.PodDisruptionBudget{MinAvailable: count(2)},
			pods: []*model.Pod{healthy("w1").Obj(), healthy("w2").Obj(), mt.MakePod("w3").Node("n1").Label("app", "web").Obj()},
			want: 0,
		},
		{
			name: "an unbound pod is expected but not healthy",
			pdb:  model.PodDisruptionBudget{MaxUnavailable: percent(50)},
			// expected 4: at most 2 unavailable, 2 must stay; 3 healthy
			pods: append([]*model.Pod{mt.MakePod("pending").Label("app", "web").Ready().Obj()}, three...),
			want: 1,
		},
		{
			name: "a terminating pod is not healthy",
			pdb:  model.PodDisruptionBudget{MinAvailable: count(2)},
			pods: []*model.Pod{healthy("w1").Obj(), healthy("w2").Obj(), healthy("w3").Terminating().Obj()},
			want: 0,
		},
		{
			name: "a pod the budget lists as disrupted is not healthy",
			pdb:  model.PodDisruptionBudget{MinAvailable: count(2), DisruptedPods: map[string]time.Time{"w3": {}}},
			pods: three,
			want: 0,
		},
		{
			name: "pods of other namespaces or labels are not covered",
			pdb:  model.PodDisruptionBudget{MinAvailable: percent(50)},
			pods: append([]*model.Pod{healthy("other-ns").Namespace("other").Obj(), mt.MakePod("db").Node("n1").Label("app", "db").Ready().Obj()}, three...),
			want: 1,
		},
		{name: "no covered pod: none", pdb: model.PodDisruptionBudget{MaxUnavailable: count(1)}, pods: nil, want: 0},
		{name: "the caller's figure wins", pdb: model.PodDisruptionBudget{MinAvailable: count(2), DisruptionsAllowed: &five}, pods: three, want: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pdb := tc.pdb
			pdb.Namespace, pdb.Name, pdb.Selector = "default", "web", web
			if got := disruptionsAllowed(&pdb, web.MustCompile(), tc.pods); got != tc.want {
				t.Errorf("disruptionsAllowed = %d, want %d", got, tc.want)
			}
		})
	}
	t.Run("selectors", func(t *testing.T) {
		pdb := model.PodDisruptionBudget{Namespace: "default", Name: "all", MinAvailable: count(1)}
		got := map[string]int32{}
		for name, sel := range map[string]*model.LabelSelector{"nil": nil, "empty": {}} {
			compiled, err := sel.Compile()
			if err != nil {
				t.Fatal(err)
			}
			pdb.Selector = sel
			got[name] = disruptionsAllowed(&pdb, compiled, three)
		}
		// An empty selector covers the namespace when counting, a missing
		// one nothing.
		if diff := cmp.Diff(map[string]int32{"nil": 0, "empty": 2}, got); diff != "" {
			t.Errorf("allowance by selector (-want +got):\n%s", diff)
		}
	})
}

// TestDisruptionsAllowedAfterEvict: a pod the scheduler evicted stops
// counting as healthy at once, whatever upserts of it say, until it is
// deleted.
func TestDisruptionsAllowedAfterEvict(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, &testPlugins{}, nil)
	e.addNodes(mt.MakeNode("n1").Obj())
	web := func(name string) *model.Pod { return mt.MakePod(name).Node("n1").Label("app", "web").Ready().Obj() }
	e.addPods(web("w1"), web("w2"), web("w3"))
	one := model.IntOrPercent{Value: 1}
	if err := e.s.setPDB(ctx, &model.PodDisruptionBudget{Namespace: "default", Name: "web",
		Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, MinAvailable: &one}); err != nil {
		t.Fatal(err)
	}
	allowed := func() int32 { return e.s.state.pdbs.List()[0].DisruptionsAllowed }
	var got []int32
	got = append(got, allowed())
	if _, err := framework.SubmitOne(ctx, e.s.decisions, &framework.Eviction{Victim: web("w1"), Node: "n1", Preemptor: mt.MakePod("p").Obj(), Message: "test"}); err != nil {
		t.Fatal(err)
	}
	got = append(got, allowed())
	e.addPods(web("w1")) // re-sent as running and ready
	got = append(got, allowed())
	if err := e.s.DeletePod(ctx, web("w1")); err != nil {
		t.Fatal(err)
	}
	got = append(got, allowed())
	// 3 healthy, then w1 evicted: 2, still after its upsert, and 2 of 2
	// once it is gone.
	if diff := cmp.Diff([]int32{2, 1, 1, 1}, got); diff != "" {
		t.Errorf("allowance along the way (-want +got):\n%s", diff)
	}
}
