package interpodaffinity_test

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
	target := mt.MakePod("p").Label("app", "web").PodAffinity(0, term(zone, "db")).PodAntiAffinity(0, term(host, "web")).Obj()
	db := mt.MakePod("db").Label("app", "db").Node("n1").Obj()
	web := mt.MakePod("web").Label("app", "web").Node("n1").Obj()
	hater := mt.MakePod("hater").PodAntiAffinity(0, term(host, "web")).Node("n1").Obj()
	relabel := func(p *model.Pod, app string) *model.Pod {
		c := *p
		c.Labels = map[string]string{"app": app}
		return &c
	}
	zoned := mt.MakeNode("n1").Zone("z1").Obj()
	unzoned := mt.MakeNode("n1").Obj()
	otherZone := mt.MakeNode("n1").Zone("z2").Obj()
	noHost := &model.Node{Name: "n1", Labels: map[string]string{model.LabelZone: "z1"}}
	tests := []struct {
		name     string
		ev       framework.ClusterEvent
		pod      *model.Pod
		old, new any
		want     framework.QueueingHint
	}{
		{name: "matching pod added", ev: podEvent(framework.ActionAdd), pod: target, new: db, want: framework.Queue},
		{name: "unrelated pod added", ev: podEvent(framework.ActionAdd), pod: target, new: web, want: framework.QueueSkip},
		{name: "unassigned pod added", ev: framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionAdd},
			pod: target, new: mt.MakePod("db").Label("app", "db").Obj(), want: framework.QueueSkip},
		{name: "pod relabelled to match affinity", ev: podEvent(framework.ActionUpdatePodLabel), pod: target, old: relabel(db, "x"), new: db, want: framework.Queue},
		{name: "pod relabelled away from anti-affinity", ev: podEvent(framework.ActionUpdatePodLabel), pod: target, old: web, new: relabel(web, "x"), want: framework.Queue},
		{name: "pod relabelled without effect", ev: podEvent(framework.ActionUpdatePodLabel), pod: target, old: db, new: relabel(db, "db"), want: framework.QueueSkip},
		{name: "own labels changed", ev: framework.ClusterEvent{Resource: framework.EventUnscheduledPod, ActionType: framework.ActionUpdatePodLabel},
			pod: target, old: target, new: relabel(target, "x"), want: framework.Queue},
		{name: "pod it repels deleted", ev: podEvent(framework.ActionDelete), pod: target, old: web, want: framework.Queue},
		{name: "pod repelling it deleted", ev: podEvent(framework.ActionDelete), pod: target, old: hater, want: framework.Queue},
		{name: "unrelated pod deleted", ev: podEvent(framework.ActionDelete), pod: target, old: db, want: framework.QueueSkip},
		{name: "pod scaled down", ev: podEvent(framework.ActionUpdatePodScaleDown), pod: target, old: db, new: db, want: framework.QueueSkip},

		{name: "node with the affinity key added", ev: nodeEvent(framework.ActionAdd), pod: target, new: zoned, want: framework.Queue},
		{name: "node added: anti-affinity may pass there", ev: nodeEvent(framework.ActionAdd),
			pod: mt.MakePod("p").PodAntiAffinity(0, term(host, "web")).Obj(), new: unzoned, want: framework.Queue},
		{name: "node without the affinity key added", ev: nodeEvent(framework.ActionAdd),
			pod: mt.MakePod("p").PodAffinity(0, term(zone, "db")).Obj(), new: unzoned, want: framework.QueueSkip},
		{name: "node gains the affinity key", ev: nodeEvent(framework.ActionUpdateNodeLabel), pod: target, old: unzoned, new: zoned, want: framework.Queue},
		{name: "node changes the affinity key's value", ev: nodeEvent(framework.ActionUpdateNodeLabel), pod: target, old: zoned, new: otherZone, want: framework.Queue},
		{name: "node loses the anti-affinity key", ev: nodeEvent(framework.ActionUpdateNodeLabel), pod: target, old: zoned, new: noHost, want: framework.Queue},
		{name: "node relabelled without effect", ev: nodeEvent(framework.ActionUpdateNodeLabel), pod: target, old: zoned, new: mt.MakeNode("n1").Zone("z1").Label("x", "y").Obj(), want: framework.QueueSkip},
		{name: "node taint changed", ev: nodeEvent(framework.ActionUpdateNodeTaint), pod: target, old: unzoned, new: zoned, want: framework.QueueSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := plugintest.Hint(t, pl, tc.ev, tc.pod, tc.old, tc.new); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
