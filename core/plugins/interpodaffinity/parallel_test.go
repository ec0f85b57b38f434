package interpodaffinity_test

import (
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// TestParallelMatchesSequential checks that counting in parallel chunks
// gives what one sequential pass gives, on a cluster large enough for
// many chunks.
func TestParallelMatchesSequential(t *testing.T) {
	nodes := benchCluster(700, true)
	pod := mt.MakePod("p").Label("app", "bench").Label("group", "g0").PodAntiAffinity(0, groupTerm(host, "g0")).
		PodAffinity(0, groupTerm(zone, "g3")).PodAffinity(50, groupTerm(zone, "g1")).PodAntiAffinity(20, groupTerm(host, "g2")).Obj()
	outcome := func(parallelism int) (filter map[string]result, scores map[string]int64) {
		h := plugintest.NewListerHandle(nodes, nil)
		h.Par = framework.NewParallelizer(parallelism)
		pl := newPlugin(t, h, "")
		state := framework.NewCycleState()
		if _, st := pl.PreFilter(t.Context(), state, pod, nodes); !st.IsSuccess() {
			t.Fatalf("PreFilter = %v", st)
		}
		filter, scores = map[string]result{}, map[string]int64{}
		for _, ni := range nodes {
			filter[ni.Name()] = resultOf(pl.Filter(t.Context(), state, pod, ni))
		}
		if st := pl.PreScore(t.Context(), state, pod, nodes); !st.IsSuccess() {
			t.Fatalf("PreScore = %v", st)
		}
		for _, ni := range nodes {
			s, _ := pl.Score(t.Context(), state, pod, ni)
			scores[ni.Name()] = s
		}
		return filter, scores
	}
	wantFilter, wantScores := outcome(1)
	gotFilter, gotScores := outcome(framework.DefaultParallelism)
	if diff := cmp.Diff(wantFilter, gotFilter); diff != "" {
		t.Errorf("Filter, parallel vs sequential (-sequential +parallel):\n%s", diff)
	}
	if diff := cmp.Diff(wantScores, gotScores); diff != "" {
		t.Errorf("Score, parallel vs sequential (-sequential +parallel):\n%s", diff)
	}
	passed := 0
	for _, r := range gotFilter {
		if r.Code == framework.Success {
			passed++
		}
	}
	if passed == 0 || passed == len(nodes) {
		t.Errorf("%d of %d nodes pass: the case tests nothing", passed, len(nodes))
	}
}

func TestInvalidSelector(t *testing.T) {
	nodes := cluster(standardLayout())
	pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), "")
	bad := model.PodAffinityTerm{TopologyKey: zone, LabelSelector: &model.LabelSelector{
		MatchExpressions: []model.LabelSelectorRequirement{{Key: "app", Operator: model.LabelSelectorOpIn}}}}
	pod := mt.MakePod("p").PodAffinity(0, bad).Obj()
	_, st := pl.PreFilter(t.Context(), framework.NewCycleState(), pod, nodes)
	if st.Code() != framework.UnschedulableAndUnresolvable {
		t.Errorf("PreFilter = %v, want UnschedulableAndUnresolvable", st)
	}
	pod = mt.MakePod("p").PodAffinity(10, bad).Obj()
	if st := pl.PreScore(t.Context(), framework.NewCycleState(), pod, nodes); st.Code() != framework.Error {
		t.Errorf("PreScore = %v, want Error", st)
	}
}
