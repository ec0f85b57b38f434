package podtopologyspread_test

import (
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
)

func TestQueueingHints(t *testing.T) {
	pl := newPlugin(t, plugintest.NewListerHandle(nil, nil), "")
	podEvent := func(a framework.ActionType) framework.ClusterEvent {
		return framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: a}
	}
	nodeEvent := func(a framework.ActionType) framework.ClusterEvent {
		return framework.ClusterEvent{Resource: framework.EventNode, ActionType: a}
	}
	honorTaints := spread(zone, 1, model.DoNotSchedule)
	honorTaints.NodeTaintsPolicy = policy(model.NodeInclusionPolicyHonor)
	target := mt.MakePod("p").Label("app", "web").Spread(spread(zone, 1, model.DoNotSchedule)).Obj()
	tolerant := mt.MakePod("p").Label("app", "web").Spread(honorTaints).Obj()
	web := mt.MakePod("web").Label("app", "web").Node("n1").Obj()
	batch := mt.MakePod("batch").Label("app", "batch").Node("n1").Obj()
	withLabels := func(p *model.Pod, kv ...string) *model.Pod {
		c := *p
		c.Labels = map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			c.Labels[kv[i]] = kv[i+1]
		}
		return &c
	}
	withToleration := func(p *model.Pod) *model.Pod {
		c := *p
		c.Tolerations = []model.Toleration{{Key: "k", Operator: model.TolerationOpExists}}
		return &c
	}
	zoned := mt.MakeNode("n1").Zone("z1").Obj()
	tainted := mt.MakeNode("n1").Zone("z1").Taint("k", "v", model.TaintEffectNoSchedule).Obj()
	tests := []struct {
		name     string
		ev       framework.ClusterEvent
		pod      *model.Pod
		old, new any
		want     framework.QueueingHint
	}{
		{name: "selected pod added", ev: podEvent(framework.ActionAdd), pod: target, new: web, want: framework.Queue},
		{name: "unselected pod added", ev: podEvent(framework.ActionAdd), pod: target, new: batch, want: framework.QueueSkip},
		{name: "pod of another namespace added", ev: podEvent(framework.ActionAdd), pod: target,
			new: mt.MakePod("web").Namespace("team").Label("app", "web").Node("n1").Obj(), want: framework.QueueSkip},
		{name: "unassigned pod added", ev: framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionAdd},
			pod: target, new: mtPod("web", "web"), want: framework.QueueSkip},
		{name: "selected pod deleted", ev: podEvent(framework.ActionDelete), pod: target, old: web, want: framework.Queue},
		{name: "unselected pod deleted", ev: podEvent(framework.ActionDelete), pod: target, old: batch, want: framework.QueueSkip},
		{name: "pod relabelled into the selector", ev: podEvent(framework.ActionUpdatePodLabel), pod: target, old: batch, new: withLabels(batch, "app", "web"), want: framework.Queue},
		{name: "pod relabelled, still selected", ev: podEvent(framework.ActionUpdatePodLabel), pod: target, old: web, new: withLabels(web, "app", "web", "x", "y"), want: framework.QueueSkip},
		{name: "pod updated without label change", ev: podEvent(framework.ActionUpdatePodOther), pod: target, old: web, new: withToleration(web), want: framework.QueueSkip},
		{name: "own new toleration with taints honored", ev: framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionUpdatePodToleration},
			pod: tolerant, old: tolerant, new: withToleration(tolerant), want: framework.Queue},
		{name: "own new toleration with taints ignored", ev: framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionUpdatePodToleration},
			pod: target, old: target, new: withToleration(target), want: framework.QueueSkip},

		{name: "node with the keys added", ev: nodeEvent(framework.ActionAdd), pod: target, new: zoned, want: framework.Queue},
		{name: "node without the keys added", ev: nodeEvent(framework.ActionAdd), pod: target, new: mt.MakeNode("n1").Obj(), want: framework.QueueSkip},
		{name: "node with the keys deleted", ev: nodeEvent(framework.ActionDelete), pod: target, old: zoned, want: framework.Queue},
		{name: "node gains the key", ev: nodeEvent(framework.ActionUpdateNodeLabel), pod: target, old: mt.MakeNode("n1").Obj(), new: zoned, want: framework.Queue},
		{name: "node changes zone", ev: nodeEvent(framework.ActionUpdateNodeLabel), pod: target, old: zoned, new: mt.MakeNode("n1").Zone("z2").Obj(), want: framework.Queue},
		{name: "node relabelled elsewhere", ev: nodeEvent(framework.ActionUpdateNodeLabel), pod: target, old: zoned, new: mt.MakeNode("n1").Zone("z1").Label("x", "y").Obj(), want: framework.QueueSkip},
		{name: "node tainted", ev: nodeEvent(framework.ActionUpdateNodeTaint), pod: target, old: zoned, new: tainted, want: framework.Queue},
		{name: "node cordoned", ev: nodeEvent(framework.ActionUpdateNodeUnschedulable), pod: target, old: zoned, new: zoned, want: framework.QueueSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := plugintest.Hint(t, pl, tc.ev, tc.pod, tc.old, tc.new); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
