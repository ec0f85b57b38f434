package tainttoleration_test

import (
	"context"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/tainttoleration"
)

func TestQueueingHints(t *testing.T) {
	pod := mt.MakePod("p").Toleration(model.Toleration{Key: "ok", Operator: model.TolerationOpExists}).Obj()
	tainted := mt.MakeNode("n").Taint("gpu", "true", model.TaintEffectNoSchedule).Obj()
	tolerated := mt.MakeNode("n").Taint("ok", "x", model.TaintEffectNoExecute).Obj()
	soft := mt.MakeNode("n").Taint("gpu", "true", model.TaintEffectPreferNoSchedule).Obj()
	nodeAdd := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd}
	taintChange := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeTaint}
	relabel := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeLabel}
	tolerations := framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionUpdatePodToleration}
	tests := []struct {
		name           string
		event          framework.ClusterEvent
		oldObj, newObj any
		want           framework.QueueingHint
	}{
		{name: "tolerated node added", event: nodeAdd, newObj: tolerated, want: framework.Queue},
		{name: "untolerated node added", event: nodeAdd, newObj: tainted, want: framework.QueueSkip},
		{name: "taint removed", event: taintChange, oldObj: tainted, newObj: soft, want: framework.Queue},
		{name: "taint added", event: taintChange, oldObj: soft, newObj: tainted, want: framework.QueueSkip},
		{name: "tolerated taints changed", event: taintChange, oldObj: soft, newObj: tolerated, want: framework.QueueSkip},
		{name: "labels are not registered", event: relabel, oldObj: tainted, newObj: soft, want: framework.QueueSkip},
		{name: "pod's own tolerations changed", event: tolerations, oldObj: pod, newObj: pod, want: framework.Queue},
		{name: "another pod's tolerations changed", event: tolerations, oldObj: mt.MakePod("q").Obj(), newObj: mt.MakePod("q").Obj(), want: framework.QueueSkip},
	}
	pl := &tainttoleration.TaintToleration{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := plugintest.Hint(t, pl, tc.event, pod, tc.oldObj, tc.newObj); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}

// benchNode has a realistic mix of taints: two the pod tolerates and two
// PreferNoSchedule ones, one of them tolerated.
func benchNode() *framework.NodeInfo {
	return framework.NewNodeInfo(mt.MakeNode("n").
		Taint("node-role.kubernetes.io/control-plane", "", model.TaintEffectNoSchedule).
		Taint("dedicated", "batch", model.TaintEffectNoExecute).
		Taint("spot", "true", model.TaintEffectPreferNoSchedule).
		Taint("old-kernel", "", model.TaintEffectPreferNoSchedule).Obj())
}

func benchPod() *model.Pod {
	return mt.MakePod("p").
		Toleration(model.Toleration{Key: "node-role.kubernetes.io/control-plane", Operator: model.TolerationOpExists, Effect: model.TaintEffectNoSchedule}).
		Toleration(model.Toleration{Key: "dedicated", Value: "batch"}).
		Toleration(model.Toleration{Key: "spot", Operator: model.TolerationOpExists, Effect: model.TaintEffectPreferNoSchedule}).
		Toleration(model.Toleration{Key: "node.kubernetes.io/not-ready", Operator: model.TolerationOpExists, Effect: model.TaintEffectNoExecute}).Obj()
}

func BenchmarkFilter(b *testing.B) {
	ctx, state, pl := context.Background(), framework.NewCycleState(), &tainttoleration.TaintToleration{}
	pod, ni := benchPod(), benchNode()
	b.ReportAllocs()
	for b.Loop() {
		if st := pl.Filter(ctx, state, pod, ni); !st.IsSuccess() {
			b.Fatal(st)
		}
	}
}

func BenchmarkScore(b *testing.B) {
	ctx, state, pl := context.Background(), framework.NewCycleState(), &tainttoleration.TaintToleration{}
	pod, ni := benchPod(), benchNode()
	if st := pl.PreScore(ctx, state, pod, []*framework.NodeInfo{ni}); !st.IsSuccess() {
		b.Fatal(st)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s, _ := pl.Score(ctx, state, pod, ni); s != 1 {
			b.Fatalf("score %d, want 1", s)
		}
	}
}
