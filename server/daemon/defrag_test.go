package daemon

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// fragmentedCluster: five nodes of 4000m, each 2500m used by a 1500m and a
// 1000m pod owned by a ReplicaSet (1500m free on each, 7500m in all), and
// a pod group of two 3000m members (minCount 2) that fits nowhere. All
// pods have priority 0, so preemption finds no victims.
func fragmentedCluster() []*berthv1.Object {
	owned := func(name, node string, cpu int64) *berthv1.Object {
		p := podWire(name, cpu, withNode(node))
		p.Runtime = &berthv1.PodRuntime{Owners: []*berthv1.OwnerReference{{Kind: "ReplicaSet", Name: "rs-" + name, Uid: "rs-" + name}}}
		return podObj(p)
	}
	var objs []*berthv1.Object
	for i := 1; i <= 5; i++ {
		n := fmt.Sprintf("n%d", i)
		objs = append(objs, nodeObj(n, 4000), owned(fmt.Sprintf("big-%d", i), n, 1500), owned(fmt.Sprintf("small-%d", i), n, 1000))
	}
	objs = append(objs, &berthv1.Object{Kind: &berthv1.Object_PodGroup{PodGroup: &berthv1.PodGroup{Namespace: "default", Name: "train", MinCount: 2}}})
	for i := range 2 {
		p := podWire(fmt.Sprintf("train-%d", i), 3000)
		p.SchedulingGroup = "train"
		objs = append(objs, podObj(p))
	}
	return objs
}

// With --defragment, a gang that fits nowhere and cannot preempt gets room:
// berthd evicts the planned moves with cause DEFRAGMENT naming the group
// and the node each moved pod is expected on, nominates each member to its
// node, and, once the orchestrator has deleted the moved pods and sent
// their replacements, binds the gang where planned and the replacements
// elsewhere.
func TestDefragmentGang(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := start(t, Config{DataDir: t.TempDir(), Registry: reg, Defragment: &Defragment{Interval: 50 * time.Millisecond, Timeout: 10 * time.Second}})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, fragmentedCluster()...)

	evicts := func(ds []*berthv1.Decision) []*berthv1.Decision {
		var out []*berthv1.Decision
		for _, d := range ds {
			if d.GetEvict() != nil {
				out = append(out, d)
			}
		}
		return out
	}
	nominated := func(ds []*berthv1.Decision) map[string]string {
		out := map[string]string{}
		for _, d := range ds {
			if n := d.GetNominate(); n != nil {
				out[d.GetPod().GetName()] = n.GetNode()
			}
		}
		return out
	}
	ds := w.waitFor(t, "the defragmentation's Evicts and Nominations", func(ds []*berthv1.Decision) bool {
		return len(evicts(ds)) == 2 && len(nominated(ds)) == 2
	})
	noms := nominated(ds)
	var moved []*berthv1.Decision
	for _, d := range evicts(ds) {
		ev := d.GetEvict()
		if ev.GetCause() != berthv1.EvictCause_EVICT_CAUSE_DEFRAGMENT || !strings.HasPrefix(ev.GetVictim().GetName(), "big-") ||
			!strings.Contains(ev.GetReason(), "pod group default/train") || !strings.Contains(ev.GetReason(), "re-places it on n") {
			t.Errorf("Evict %v: want a big pod, cause DEFRAGMENT, the group and the target named", ev)
		}
		moved = append(moved, d)
	}
	from := map[string]bool{}
	for _, d := range moved {
		from[d.GetEvict().GetNode()] = true
	}
	for member, node := range noms {
		if !from[node] {
			t.Errorf("%s nominated to %s, which no move frees (moves off %v)", member, node, from)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// The orchestrator: the evicted pods are deleted, their ReplicaSets
	// create replacements (new pods, pending).
	var refs []*berthv1.ObjectRef
	var replacements []*berthv1.Object
	for _, d := range moved {
		name := d.GetEvict().GetVictim().GetName()
		refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "default", Name: name})
		p := podWire(name+"-new", 1500)
		p.Runtime = &berthv1.PodRuntime{Owners: []*berthv1.OwnerReference{{Kind: "ReplicaSet", Name: "rs-" + name, Uid: "rs-" + name}}}
		replacements = append(replacements, podObj(p))
	}
	if resp, err := e.state.Delete(t.Context(), &berthv1.DeleteRequest{Refs: refs}); err != nil || len(resp.GetErrors()) > 0 {
		t.Fatalf("Delete: %v %v", err, resp.GetErrors())
	}
	e.apply(t, replacements...)

	ds = w.waitFor(t, "the gang and the replacements bound", func(ds []*berthv1.Decision) bool {
		b := binds(ds)
		return b["train-0"] != "" && b["train-1"] != "" && b[replacements[0].GetPod().GetName()] != "" && b[replacements[1].GetPod().GetName()] != ""
	})
	// The group's cycle places the members on the room made, in its own
	// order: the nodes bound are the nodes nominated.
	b := binds(ds)
	var want, got []string
	for member, node := range noms {
		want, got = append(want, node), append(got, b[member])
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the gang bound to %v, nominated to %v", got, want)
	}
	for _, r := range replacements {
		if from[b[r.GetPod().GetName()]] {
			t.Errorf("replacement %s bound to %s, the room made for the gang", r.GetPod().GetName(), b[r.GetPod().GetName()])
		}
	}
	if n := countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT); n != 2 {
		t.Errorf("%d Evicts, want the plan's 2", n)
	}
	// The defragmenter sees the plan through: completed, not abandoned.
	deadline := time.Now().Add(waitLimit)
	for plansCounted(t, reg, "completed") != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("plans completed %v, abandoned %v: want 1 completed", plansCounted(t, reg, "completed"), plansCounted(t, reg, "abandoned"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := plansCounted(t, reg, "abandoned"); n != 0 {
		t.Errorf("%v plans abandoned", n)
	}
}

// plansCounted is berth_defragment_plans_total{result}.
func plansCounted(t *testing.T, reg *prometheus.Registry, result string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "berth_defragment_plans_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// Without --defragment the same gang waits: nothing is evicted.
func TestDefragmentOff(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, fragmentedCluster()...)
	w.waitFor(t, "the gang unschedulable", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) >= 2
	})
	w.quiet(t, 500*time.Millisecond, "an Evict without --defragment", func(d *berthv1.Decision) bool { return d.GetEvict() != nil })
}
