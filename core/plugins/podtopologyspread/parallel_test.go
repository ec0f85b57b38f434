package podtopologyspread_test

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
// many chunks, with a skew that rejects some zones.
func TestParallelMatchesSequential(t *testing.T) {
	nodes := benchCluster(700)
	for i := 0; i < 100; i += 10 { // 10 more matching pods in zone-0
		ni := nodes[i]
		ni.AddPodInfo(framework.MustPodInfo(mt.MakePod("extra-"+ni.Name()).Label("app", "spread").Node(ni.Name()).Obj()))
	}
	pod := mt.MakePod("p").Label("app", "spread").Spread(spreadOn(zone, 3, model.DoNotSchedule)).
		Spread(spreadOn(zone, 1, model.ScheduleAnyway)).Spread(spreadOn(host, 1, model.ScheduleAnyway)).Obj()
	outcome := func(parallelism int) (filter map[string]result, scores map[string]int64) {
		h := plugintest.NewListerHandle(nodes, nil)
		h.Par = framework.NewParallelizer(parallelism)
		pl := newPlugin(t, h, "")
		state := newState()
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
	nodes := cluster(zones())
	pl := newPlugin(t, plugintest.NewListerHandle(nodes, nil), "")
	c := spread(zone, 1, model.DoNotSchedule)
	c.LabelSelector = &model.LabelSelector{MatchExpressions: []model.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
	pod := mt.MakePod("p").Spread(c).Obj()
	if _, st := pl.PreFilter(t.Context(), newState(), pod, nodes); st.Code() != framework.Error {
		t.Errorf("PreFilter = %v, want Error", st)
	}
}
