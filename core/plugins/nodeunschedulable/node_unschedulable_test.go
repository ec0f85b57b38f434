package nodeunschedulable_test

import (
	"context"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/nodeunschedulable"
)

var tolerateCordon = model.Toleration{Key: model.TaintNodeUnschedulable, Operator: model.TolerationOpExists, Effect: model.TaintEffectNoSchedule}

func TestFilter(t *testing.T) {
	cordoned := mt.MakeNode("n").Unschedulable().Obj()
	open := mt.MakeNode("n").Obj()
	tests := []struct {
		name string
		pod  *model.Pod
		node *model.Node
		want *framework.Status
	}{
		{name: "open node", pod: mt.MakePod("p").Obj(), node: open},
		{name: "cordoned", pod: mt.MakePod("p").Obj(), node: cordoned,
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, nodeunschedulable.ErrReasonUnschedulable)},
		{name: "cordon tolerated", pod: mt.MakePod("p").Toleration(tolerateCordon).Obj(), node: cordoned},
		{name: "toleration of every taint", pod: mt.MakePod("p").Toleration(model.Toleration{Operator: model.TolerationOpExists}).Obj(), node: cordoned},
		{name: "NoExecute toleration does not do", node: cordoned,
			pod:  mt.MakePod("p").Toleration(model.Toleration{Key: model.TaintNodeUnschedulable, Operator: model.TolerationOpExists, Effect: model.TaintEffectNoExecute}).Obj(),
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, nodeunschedulable.ErrReasonUnschedulable)},
	}
	pl := &nodeunschedulable.NodeUnschedulable{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pl.Filter(context.Background(), framework.NewCycleState(), tc.pod, framework.NewNodeInfo(tc.node))
			if !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestQueueingHints(t *testing.T) {
	pod := mt.MakePod("p").Obj()
	cordoned := mt.MakeNode("n").Unschedulable().Obj()
	open := mt.MakeNode("n").Obj()
	nodeAdd := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd}
	uncordon := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeUnschedulable}
	relabel := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeLabel}
	tolerations := framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionUpdatePodToleration}
	tests := []struct {
		name           string
		event          framework.ClusterEvent
		oldObj, newObj any
		want           framework.QueueingHint
	}{
		{name: "schedulable node added", event: nodeAdd, newObj: open, want: framework.Queue},
		{name: "cordoned node added", event: nodeAdd, newObj: cordoned, want: framework.QueueSkip},
		{name: "node uncordoned", event: uncordon, oldObj: cordoned, newObj: open, want: framework.Queue},
		{name: "node cordoned", event: uncordon, oldObj: open, newObj: cordoned, want: framework.QueueSkip},
		{name: "labels are not registered", event: relabel, oldObj: cordoned, newObj: open, want: framework.QueueSkip},
		{name: "pod now tolerates the cordon", event: tolerations, oldObj: pod, newObj: mt.MakePod("p").Toleration(tolerateCordon).Obj(), want: framework.Queue},
		{name: "pod gains an unrelated toleration", event: tolerations, oldObj: pod,
			newObj: mt.MakePod("p").Toleration(model.Toleration{Key: "k", Operator: model.TolerationOpExists}).Obj(), want: framework.QueueSkip},
		{name: "another pod tolerates the cordon", event: tolerations, oldObj: mt.MakePod("q").Obj(), newObj: mt.MakePod("q").Toleration(tolerateCordon).Obj(), want: framework.QueueSkip},
	}
	pl := &nodeunschedulable.NodeUnschedulable{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := plugintest.Hint(t, pl, tc.event, pod, tc.oldObj, tc.newObj); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
