package daemon

import (
	"slices"
	"strings"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/queuesvc"
)

// placementQueue is one ClusterQueue with quota for four cpus, with or
// without Berth's placement-aware admission, and its LocalQueue.
func placementQueue(placement bool) []*berthv1.Object {
	cq := &quota.ClusterQueue{
		Name: "cq", NamespaceSelector: &model.LabelSelector{}, AdmissionPlacement: placement,
		ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []quota.FlavorQuotas{{
			Name: "default", Resources: []quota.ResourceEntry{{Name: "cpu", ResourceQuota: quota.ResourceQuota{Nominal: 4000}}},
		}}}},
	}
	quota.DefaultClusterQueue(cq)
	var out []*berthv1.Object
	for _, o := range []any{&quota.ResourceFlavor{Name: "default"}, cq, &quota.LocalQueue{Namespace: "team", Name: "lq", ClusterQueue: "cq"}} {
		out = append(out, convert.QueueObjectToProto(o))
	}
	return out
}

// Placement-aware admission live: two one-cpu workloads fit the quota,
// only one fits the node (1.5 cpus). With the ClusterQueue's placement
// on, only one is admitted, nominated to the node in the same commit as
// its Admit, and bound; the other waits gated, its status naming the
// placement. With it off (Kueue's behaviour) both are admitted and one is
// unschedulable.
func TestPlacementAwareAdmissionLive(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[on], func(t *testing.T) {
			e := start(t, Config{DataDir: t.TempDir(), Deterministic: true})
			w := e.startWatch(t, &berthv1.WatchRequest{})
			e.apply(t, nodeObj("n1", 1500))
			e.apply(t, placementQueue(on)...)
			p1, p2 := queuedPod("team", "p1", 1000), queuedPod("team", "p2", 1000)
			e.apply(t, podObj(p1), podObj(p2))
			if !on {
				ds := w.waitFor(t, "both admitted, one bound, one unschedulable", func(ds []*berthv1.Decision) bool {
					return len(admitted(ds)) == 2 && len(binds(ds)) == 1 && countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) >= 1
				})
				if n := countType(ds, berthv1.DecisionType_DECISION_TYPE_NOMINATE); n != 0 {
					t.Errorf("%d nominations without placement-aware admission, want none", n)
				}
				return
			}
			w.waitFor(t, "one admitted and bound", func(ds []*berthv1.Decision) bool {
				return len(admitted(ds)) == 1 && len(binds(ds)) == 1
			})
			e.settle(t)
			ds := w.waitFor(t, "", func([]*berthv1.Decision) bool { return true })
			if got := admitted(ds); len(got) != 1 {
				t.Fatalf("admitted %v, want one workload", got)
			}
			winner, loser := p1, p2
			if admitted(ds)[0] == workloadOf(p2) {
				winner, loser = p2, p1
			}
			if node := binds(ds)[winner.GetName()]; node != "n1" {
				t.Errorf("%s bound to %q, want n1", winner.GetName(), node)
			}
			// The Admit and the Nomination are one commit, the Admit first.
			var admitRev, nominateRev uint64
			for _, d := range ds {
				if d.GetAdmit() != nil {
					admitRev = d.GetRevision()
				}
				if n := d.GetNominate(); n != nil && d.GetPod().GetName() == winner.GetName() && n.GetNode() == "n1" && nominateRev == 0 {
					nominateRev = d.GetRevision()
				}
			}
			if admitRev == 0 || nominateRev != admitRev+1 {
				t.Errorf("Admit at revision %d, nomination of %s to n1 at %d: want it right after the Admit", admitRev, winner.GetName(), nominateRev)
			}
			if n := countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE); n != 0 {
				t.Errorf("%d unschedulable reports: an admitted workload is never unplaceable", n)
			}
			st := workloadStatus(t, e.d.Queues().Status(), workloadOf(loser))
			const why = "couldn't place the workload on the nodes: pod 1 of 1: 0/1 nodes are available: 1 Insufficient cpu."
			if st.State != queuesvc.StateInadmissible || !strings.HasPrefix(st.Message, why) {
				t.Errorf("%s's status %+v: want inadmissible with %q", loser.GetName(), st, why)
			}
			if ws := (queueStatus{e.d.Queues()}).PodWorkload("team", loser.GetName()); ws.GetMessage() != st.Message {
				t.Errorf("%s's workload as explain serves it: %v, want the placement message", loser.GetName(), ws)
			}
			held, _ := e.d.Scheduler().View().Pod(loser.GetUid())
			if held == nil || !slices.Contains(held.SchedulingGates, admission.AdmissionGate) {
				t.Errorf("%s as the scheduler holds it: %+v, want it gated", loser.GetName(), held)
			}

			// Room freed (the bound pod deleted): the waiting workload is
			// admitted and placed without any other event.
			if _, err := e.state.Delete(t.Context(), &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "team", Name: winner.GetName()}}}); err != nil {
				t.Fatal(err)
			}
			w.waitFor(t, "the other admitted and bound once the room is free", func(ds []*berthv1.Decision) bool {
				return slices.Contains(admitted(ds), workloadOf(loser)) && binds(ds)[loser.GetName()] == "n1"
			})
		})
	}
}
