package podtopologyspread_test

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// benchCluster has n nodes in 10 zones, each running 10 pods, half of
// them app=spread.
func benchCluster(n int) []*framework.NodeInfo {
	nodes := make([]*framework.NodeInfo, n)
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		ni := framework.NewNodeInfo(mt.MakeNode(name).Zone(fmt.Sprintf("zone-%d", i%10)).
			Capacity(model.ResourceList{"cpu": 32000, "memory": 128 * mt.Gi}).Obj())
		for j := range 10 {
			app := "spread"
			if j%2 == 1 {
				app = "other"
			}
			ni.AddPodInfo(framework.MustPodInfo(mt.MakePod(fmt.Sprintf("run-%d-%d", i, j)).Label("app", app).Node(name).Req(mt.Res(100, 256*mt.Mi)).Obj()))
		}
		nodes[i] = ni
	}
	return nodes
}

func spreadOn(key string, maxSkew int32, when model.UnsatisfiableConstraintAction) model.TopologySpreadConstraint {
	return model.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
		LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": "spread"}}}
}

// BenchmarkCycle measures one pod's pass through the plugin: PreFilter
// over all nodes, Filter on each node, then PreScore, Score and
// NormalizeScore over the feasible nodes, sequentially (the runtime
// filters and scores nodes in parallel). "zone" is the oracle's spread
// workload (zone, maxSkew 1, DoNotSchedule); "zone+host" adds a
// ScheduleAnyway hostname constraint; "basic" has no constraint.
func BenchmarkCycle(b *testing.B) {
	pods := map[string]*model.Pod{
		"basic":     mt.MakePod("p").Label("app", "spread").Obj(),
		"zone":      mt.MakePod("p").Label("app", "spread").Spread(spreadOn(zone, 1, model.DoNotSchedule)).Obj(),
		"zone+host": mt.MakePod("p").Label("app", "spread").Spread(spreadOn(zone, 1, model.DoNotSchedule)).Spread(spreadOn(host, 1, model.ScheduleAnyway)).Obj(),
	}
	for _, n := range []int{500, 5000} {
		for _, name := range []string{"basic", "zone", "zone+host"} {
			b.Run(fmt.Sprintf("%s/nodes=%d", name, n), func(b *testing.B) {
				nodes := benchCluster(n)
				pl := newPlugin(b, plugintest.NewListerHandle(nodes, nil), "")
				pod := pods[name]
				b.ReportAllocs()
				for b.Loop() {
					runCycle(b, pl, pod, nodes)
				}
			})
		}
	}
}

func runCycle(b *testing.B, pl interface {
	framework.PreFilterPlugin
	framework.FilterPlugin
	framework.PreScorePlugin
	framework.ScorePlugin
}, pod *model.Pod, nodes []*framework.NodeInfo) {
	ctx, state := b.Context(), framework.NewCycleState()
	feasible := nodes
	_, st := pl.PreFilter(ctx, state, pod, nodes)
	if !st.IsSkip() {
		if !st.IsSuccess() {
			b.Fatal(st)
		}
		feasible = make([]*framework.NodeInfo, 0, len(nodes))
		for _, ni := range nodes {
			if pl.Filter(ctx, state, pod, ni).IsSuccess() {
				feasible = append(feasible, ni)
			}
		}
	}
	if len(feasible) == 0 {
		b.Fatal("no feasible node")
	}
	if st := pl.PreScore(ctx, state, pod, feasible); st.IsSkip() {
		return
	} else if !st.IsSuccess() {
		b.Fatal(st)
	}
	scores := make(framework.NodeScoreList, len(feasible))
	for i, ni := range feasible {
		s, st := pl.Score(ctx, state, pod, ni)
		if !st.IsSuccess() {
			b.Fatal(st)
		}
		scores[i] = framework.NodeScore{Name: ni.Name(), Score: s}
	}
	if st := pl.ScoreExtensions().NormalizeScore(ctx, state, pod, scores); !st.IsSuccess() {
		b.Fatal(st)
	}
}
