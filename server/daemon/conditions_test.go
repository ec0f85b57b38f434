package daemon

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/podbook"
)

func notReady(name string) *berthv1.Object {
	n := nodeObj(name, 4000)
	n.GetNode().Conditions = []*berthv1.NodeCondition{{
		Type: berthv1.NodeConditionType_NODE_CONDITION_TYPE_READY, Status: berthv1.ConditionStatus_CONDITION_STATUS_FALSE,
	}}
	return n
}

// A node reported not ready gets the node lifecycle controller's taints:
// its running pod that does not tolerate them is evicted (cause TAINT), no
// pending pod is placed there, and ListNodes shows the taints as derived.
func TestNodeConditionsTaint(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 4000), podObj(podWire("running", 100, withNode("n1"))))
	e.apply(t, notReady("n1"), podObj(podWire("pending", 100)))
	ds := w.waitFor(t, "the Evict and the Unschedulable", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT) == 1 && countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) == 1
	})
	for _, d := range ds {
		if ev := d.GetEvict(); ev != nil && (ev.GetVictim().GetName() != "running" || ev.GetCause() != berthv1.EvictCause_EVICT_CAUSE_TAINT) {
			t.Errorf("Evict %v", ev)
		}
		if b := d.GetBind(); b != nil {
			t.Errorf("bound on a not-ready node: %v", d)
		}
	}
	nodes, err := e.admin().ListNodes(t.Context(), &berthv1.ListNodesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	n := nodes.GetNodes()[0]
	want := []*berthv1.Taint{
		{Key: "node.kubernetes.io/not-ready", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE},
		{Key: "node.kubernetes.io/not-ready", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE},
	}
	if diff := cmp.Diff(want, n.GetDerivedTaints(), protocmp.Transform()); diff != "" || len(n.GetTaints()) != 0 || len(n.GetConditions()) != 1 {
		t.Errorf("ListNodes: sent %v, conditions %v, derived (-want +got):\n%s", n.GetTaints(), n.GetConditions(), diff)
	}
}

// With taintNodesByCondition off, conditions derive nothing.
func TestNodeConditionsIgnored(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir(), IgnoreNodeConditions: true})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, notReady("n1"), podObj(podWire("pending", 100)))
	w.waitFor(t, "the pod bound", func(ds []*berthv1.Decision) bool { return binds(ds)["pending"] == "n1" })
}

// The taint-eviction controller works from its subscription to the object
// store, after the Sync is acknowledged: once the store's subscribers are
// drained (Objects().Wait, no sleep), the Evict of the pod that does not
// tolerate the derived NoExecute taint is recorded, and a pod tolerating
// it is left alone.
func TestTaintEvictionFollowsTheStore(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	tolerates := func(p *berthv1.Pod) {
		p.Tolerations = []*berthv1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS}}
	}
	e.apply(t, nodeObj("n1", 4000), podObj(podWire("running", 100, withNode("n1"))), podObj(podWire("tolerant", 100, withNode("n1"), tolerates)))
	e.apply(t, notReady("n1"))
	if err := e.d.Objects().Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.d.Book().Get(podbook.KindEvict, "uid-running"); !ok {
		t.Error("running: no Evict once the subscribers are drained")
	}
	if _, ok := e.d.Book().Get(podbook.KindEvict, "uid-tolerant"); ok {
		t.Error("tolerant: evicted, though it tolerates the taint")
	}
}
