package daemon

import (
	"fmt"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

const (
	nodeCPU = 4000
	podCPU  = 1000
)

// A fleet is bound with no node overcommitted; a failed bind is requeued
// and bound again; a pod of higher priority preempts, is nominated, and is
// bound once its victims are deleted. Two watchers from different
// revisions see the same log.
func TestEndToEnd(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})

	nodes := []string{"n1", "n2", "n3"}
	for _, n := range nodes {
		e.apply(t, nodeObj(n, nodeCPU))
	}
	const fleet = 12 // fills the three nodes exactly
	for i := range fleet {
		e.apply(t, podObj(podWire(fmt.Sprintf("p%02d", i), podCPU)))
	}
	ds := w.waitFor(t, "the fleet bound", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == fleet })
	perNode := map[string]int64{}
	revs := map[string]uint64{}
	for _, d := range ds {
		if b := d.GetBind(); b != nil {
			perNode[b.GetNode()] += podCPU
			revs[d.GetPod().GetName()] = d.GetRevision()
		}
	}
	for n, used := range perNode {
		if used > nodeCPU {
			t.Errorf("node %s holds %dm cpu of %dm", n, used, nodeCPU)
		}
	}

	// A failed bind: the pod is forgotten and requeued, then bound again.
	failed := ds[0]
	if _, err := e.state.ReportBindResult(t.Context(), &berthv1.ReportBindResultRequest{
		Pod: failed.GetPod(), Node: failed.GetBind().GetNode(), Revision: failed.GetRevision(),
		Outcome: berthv1.BindOutcome_BIND_OUTCOME_FAILED, Reason: "image pull failed",
	}); err != nil {
		t.Fatalf("ReportBindResult FAILED: %v", err)
	}
	ds = w.waitFor(t, "the failed pod bound again", func(ds []*berthv1.Decision) bool {
		for _, d := range ds {
			if d.GetBind() != nil && d.GetPod().GetName() == failed.GetPod().GetName() && d.GetRevision() > failed.GetRevision() {
				return true
			}
		}
		return false
	})
	bound := binds(ds)

	// Confirm every bind by upserting the pods with node_name.
	for name, node := range bound {
		e.apply(t, podObj(podWire(name, podCPU, withNode(node))))
	}

	// A pod of higher priority finds no room: preemption evicts one pod and
	// nominates the node.
	e.apply(t, podObj(podWire("vip", podCPU, withPriority(1000))))
	ds = w.waitFor(t, "an eviction and a nomination", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_NOMINATE) > 0
	})
	var victims []*berthv1.Evict
	var nominated string
	for _, d := range ds {
		if ev := d.GetEvict(); ev != nil {
			victims = append(victims, ev)
			if ev.GetPreemptor().GetName() != "vip" {
				t.Errorf("evict preemptor %v, want vip", ev.GetPreemptor())
			}
		}
		if nm := d.GetNominate(); nm != nil {
			nominated = nm.GetNode()
		}
	}
	if len(victims) != 1 {
		t.Fatalf("%d evictions, want 1", len(victims))
	}
	if victims[0].GetNode() != nominated {
		t.Errorf("evicted on %s, nominated %s", victims[0].GetNode(), nominated)
	}
	// The orchestrator deletes the victim; the preemptor is bound there.
	v := victims[0].GetVictim()
	if _, err := e.state.Delete(t.Context(), &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{
		Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: v.GetNamespace(), Name: v.GetName(), Uid: v.GetUid(),
	}}}); err != nil {
		t.Fatalf("Delete victim: %v", err)
	}
	ds = w.waitFor(t, "the preemptor bound", func(ds []*berthv1.Decision) bool { return binds(ds)["vip"] != "" })
	if got := binds(ds)["vip"]; got != nominated {
		t.Errorf("vip bound to %s, nominated %s", got, nominated)
	}

	// A second watcher from the middle of the log sees the same decisions
	// from there on.
	mid := ds[len(ds)/2].GetRevision()
	w2 := e.startWatch(t, &berthv1.WatchRequest{FromRevision: mid})
	last := ds[len(ds)-1].GetRevision()
	ds2 := w2.waitFor(t, "the replay", func(got []*berthv1.Decision) bool {
		return len(got) > 0 && got[len(got)-1].GetRevision() >= last
	})
	var want []uint64
	for _, d := range ds {
		if d.GetRevision() >= mid {
			want = append(want, d.GetRevision())
		}
	}
	if len(ds2) != len(want) || ds2[0].GetRevision() != want[0] {
		t.Errorf("second watcher got %d decisions from %d, want %d from %d", len(ds2), ds2[0].GetRevision(), len(want), want[0])
	}
}

// Watch refuses unknown types, and a compacted revision answers
// OUT_OF_RANGE with its ErrorInfo.
func TestWatchErrors(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	stream, err := e.watch.Watch(t.Context(), &berthv1.WatchRequest{Types: []berthv1.DecisionType{0}}, grpc.WaitForReady(true))
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("Watch with an unspecified type: %v, want INVALID_ARGUMENT", err)
	}
}
