package noderesources_test

import (
	"context"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/noderesources"
)

// benchNode is a 32-cpu node running 20 pods, with an extended resource.
func benchNode() *framework.NodeInfo {
	ni := framework.NewNodeInfo(mt.MakeNode("n").Capacity(model.ResourceList{
		"cpu": 32000, "memory": 128 * mt.Gi, "ephemeral-storage": 500 * mt.Gi, "example.com/gpu": 8}).Obj())
	for i := range 20 {
		ni.AddPodInfo(framework.MustPodInfo(mt.MakePod("run-" + string(rune('a'+i))).Node("n").Req(mt.Res(500, 2*mt.Gi)).Obj()))
	}
	return ni
}

func benchPod() *model.Pod {
	return mt.MakePod("p").Req(model.ResourceList{"cpu": 1000, "memory": 4 * mt.Gi, "example.com/gpu": 1}).Obj()
}

func BenchmarkFitFilter(b *testing.B) {
	ctx, state := context.Background(), framework.NewCycleState()
	pl := plugintest.New[*noderesources.Fit](b, noderesources.NewFit, "", nil)
	pod, ni := benchPod(), benchNode()
	if _, st := pl.PreFilter(ctx, state, pod, nil); !st.IsSuccess() {
		b.Fatal(st)
	}
	b.ReportAllocs()
	for b.Loop() {
		if st := pl.Filter(ctx, state, pod, ni); !st.IsSuccess() {
			b.Fatal(st)
		}
	}
}

// BenchmarkFitFilterRejected measures the failure path, which builds a
// status.
func BenchmarkFitFilterRejected(b *testing.B) {
	ctx, state := context.Background(), framework.NewCycleState()
	pl := plugintest.New[*noderesources.Fit](b, noderesources.NewFit, "", nil)
	pod, ni := mt.MakePod("p").Req(mt.Res(30000, mt.Gi)).Obj(), benchNode()
	if _, st := pl.PreFilter(ctx, state, pod, nil); !st.IsSuccess() {
		b.Fatal(st)
	}
	b.ReportAllocs()
	for b.Loop() {
		if st := pl.Filter(ctx, state, pod, ni); st.IsSuccess() {
			b.Fatal("fits")
		}
	}
}

func BenchmarkFitScore(b *testing.B) {
	for _, bc := range []struct{ name, args string }{
		{"LeastAllocated", ""},
		{"MostAllocated", `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu"},{"name":"memory"},{"name":"example.com/gpu","weight":5}]}}`},
		{"RequestedToCapacityRatio", `{"scoringStrategy":{"type":"RequestedToCapacityRatio","resources":[{"name":"cpu"},{"name":"memory"}],
			"requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx, state := context.Background(), framework.NewCycleState()
			pl := plugintest.New[*noderesources.Fit](b, noderesources.NewFit, bc.args, nil)
			benchScore(b, ctx, state, pl, pl)
		})
	}
}

func BenchmarkBalancedAllocationScore(b *testing.B) {
	ctx, state := context.Background(), framework.NewCycleState()
	pl := plugintest.New[*noderesources.BalancedAllocation](b, noderesources.NewBalancedAllocation, "", nil)
	benchScore(b, ctx, state, pl, pl)
}

func benchScore(b *testing.B, ctx context.Context, state *framework.CycleState, pre framework.PreScorePlugin, pl framework.ScorePlugin) {
	pod, ni := benchPod(), benchNode()
	if st := pre.PreScore(ctx, state, pod, []*framework.NodeInfo{ni}); !st.IsSuccess() {
		b.Fatal(st)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, st := pl.Score(ctx, state, pod, ni); !st.IsSuccess() {
			b.Fatal(st)
		}
	}
}
