package interpodaffinity_test

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth/core/plugins/helper/plugintest"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// benchCluster has n nodes in 10 zones, each running 10 pods of groups
// g0..g19 (10 of them per node) with app=bench; withAnti gives every running pod the required
// anti-affinity of the oracle's "affinity" workload (hostname, own group).
func benchCluster(n int, withAnti bool) []*framework.NodeInfo {
	nodes := make([]*framework.NodeInfo, n)
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		ni := framework.NewNodeInfo(mt.MakeNode(name).Zone(fmt.Sprintf("zone-%d", i%10)).
			Capacity(model.ResourceList{"cpu": 32000, "memory": 128 * mt.Gi}).Obj())
		for j := range 10 {
			group := fmt.Sprintf("g%d", (i+j)%20)
			b := mt.MakePod(fmt.Sprintf("run-%d-%d", i, j)).Label("app", "bench").Label("group", group).Node(name).Req(mt.Res(100, 256*mt.Mi))
			if withAnti {
				b = b.PodAntiAffinity(0, groupTerm(host, group))
			}
			ni.AddPodInfo(framework.MustPodInfo(b.Obj()))
		}
		nodes[i] = ni
	}
	return nodes
}

func groupTerm(key, group string) model.PodAffinityTerm {
	return model.PodAffinityTerm{TopologyKey: key, LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"group": group}}}
}

// BenchmarkCycle measures one pod's pass through the plugin: PreFilter
// over all nodes, Filter on each node, then PreScore, Score and
// NormalizeScore over the feasible nodes, sequentially (the runtime
// filters and scores nodes in parallel). "anti" is the oracle's affinity
// workload (required anti-affinity by hostname against the pod's own
// group, which every running pod also has); "preferred" adds preferred
// affinity by zone and anti-affinity by hostname, which score against
// every running pod; "basic" is a pod without affinity.
func BenchmarkCycle(b *testing.B) {
	pods := map[string]*model.Pod{
		"basic": mt.MakePod("p").Label("app", "bench").Label("group", "g0").Obj(),
		"anti":  mt.MakePod("p").Label("app", "bench").Label("group", "g0").PodAntiAffinity(0, groupTerm(host, "g0")).Obj(),
		"preferred": mt.MakePod("p").Label("app", "bench").Label("group", "g0").PodAntiAffinity(0, groupTerm(host, "g0")).
			PodAffinity(50, groupTerm(zone, "g1")).PodAntiAffinity(20, groupTerm(host, "g2")).Obj(),
	}
	for _, n := range []int{500, 5000} {
		for _, name := range []string{"basic", "anti", "preferred"} {
			b.Run(fmt.Sprintf("%s/nodes=%d", name, n), func(b *testing.B) {
				nodes := benchCluster(n, name != "basic")
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

// BenchmarkExtensionPoints measures each point alone for the "preferred"
// pod at 5000 nodes running 10 pods each: PreFilter and PreScore once,
// Filter and Score over every node.
func BenchmarkExtensionPoints(b *testing.B) {
	nodes := benchCluster(5000, true)
	pl := newPlugin(b, plugintest.NewListerHandle(nodes, nil), "")
	pod := mt.MakePod("p").Label("app", "bench").Label("group", "g0").PodAntiAffinity(0, groupTerm(host, "g0")).
		PodAffinity(50, groupTerm(zone, "g1")).PodAntiAffinity(20, groupTerm(host, "g2")).Obj()
	ctx := b.Context()
	b.Run("PreFilter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			pl.PreFilter(ctx, framework.NewCycleState(), pod, nodes)
		}
	})
	state := framework.NewCycleState()
	pl.PreFilter(ctx, state, pod, nodes)
	b.Run("Filter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, ni := range nodes {
				pl.Filter(ctx, state, pod, ni)
			}
		}
	})
	b.Run("PreScore", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			pl.PreScore(ctx, framework.NewCycleState(), pod, nodes)
		}
	})
	pl.PreScore(ctx, state, pod, nodes)
	b.Run("Score", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, ni := range nodes {
				pl.Score(ctx, state, pod, ni)
			}
		}
	})
}
