package daemon

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func isBind(d *berthv1.Decision) bool { return d.GetBind() != nil }

// A re-list that sends the nodes and a pending pod before the running pods
// must not place the pending pod on room the running pods (not re-sent
// yet) hold: nothing is scheduled while a resync is open.
func TestResyncHoldsScheduling(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	_, send := e.syncStream(t)
	ack := send(&berthv1.SyncRequest{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN,
		Mutations: upserts(nodeObj("n1", 4000), podObj(podWire("pending", 3000)))})
	if len(ack.GetErrors()) > 0 {
		t.Fatalf("begin: %v", ack)
	}
	w.quiet(t, 300*time.Millisecond, "a decision while the resync is open", func(*berthv1.Decision) bool { return true })
	ack = send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_END,
		Mutations: upserts(podObj(podWire("running", 3000, withNode("n1"))))})
	if len(ack.GetErrors()) > 0 || ack.GetResyncDeleted() != 0 {
		t.Fatalf("end: %v", ack)
	}
	ds := w.waitFor(t, "pending found unschedulable", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) > 0
	})
	if b := binds(ds); len(b) > 0 {
		t.Fatalf("bound %v onto room the running pod holds", b)
	}
	if msg := ds[0].GetUnschedulable().GetMessage(); !strings.Contains(msg, "Insufficient cpu") {
		t.Errorf("unschedulable message %q, want Insufficient cpu", msg)
	}

	// A stream that dies mid-resync releases its hold and deletes nothing.
	stream, send2 := e.syncStream(t)
	send2(&berthv1.SyncRequest{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(nodeObj("n2", 4000))})
	w.quiet(t, 200*time.Millisecond, "a bind while the second resync is open", isBind)
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	ds = w.waitFor(t, "pending bound to n2 once the abandoned resync's hold ends", func(ds []*berthv1.Decision) bool {
		return binds(ds)["pending"] != ""
	})
	if got := binds(ds)["pending"]; got != "n2" {
		t.Errorf("pending bound to %s, want n2", got)
	}
	if _, ok := e.d.Scheduler().View().Pod("uid-running"); !ok {
		t.Error("the abandoned resync deleted the running pod")
	}
}

// Objects another client upserts while a stream's resync is open are newer
// than the re-list: RESYNC_END keeps them.
func TestResyncKeepsOtherWriters(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n-old", 4000))
	_, send := e.syncStream(t)
	send(&berthv1.SyncRequest{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(nodeObj("n1", 4000))})
	e.apply(t, nodeObj("n-new", 4000), podObj(podWire("fresh", 100)))
	ack := send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_END})
	if ack.GetResyncDeleted() != 1 {
		t.Errorf("resync deleted %d objects, want 1 (n-old): %v", ack.GetResyncDeleted(), ack)
	}
	if _, err := e.d.Scheduler().View().Explain("default", "fresh"); err != nil {
		t.Errorf("fresh after RESYNC_END: %v", err)
	}
	nodes, err := e.d.Scheduler().View().Nodes()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes {
		names = append(names, n.Node.Name)
	}
	if len(names) != 2 || !strings.Contains(strings.Join(names, ","), "n-new") {
		t.Errorf("nodes %v, want n1 and n-new", names)
	}
	w.waitFor(t, "fresh bound", func(ds []*berthv1.Decision) bool { return binds(ds)["fresh"] != "" })
}

// Objects of a batch are scheduled only once the whole batch is applied:
// a pod sent before the node it fits on is bound to it, never reported
// unschedulable in between.
func TestBatchIsAtomic(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	_, send := e.syncStream(t)
	const rounds, perBatch = 5, 100
	for i := range rounds {
		var objs []*berthv1.Object
		for j := range perBatch {
			objs = append(objs, podObj(podWire(fmt.Sprintf("p%02d-%03d", i, j), 10)))
		}
		objs = append(objs, nodeObj(fmt.Sprintf("n%02d", i), 4000))
		if ack := send(&berthv1.SyncRequest{BatchId: uint64(i + 1), Mutations: upserts(objs...)}); len(ack.GetErrors()) > 0 {
			t.Fatalf("batch %d: %v", i, ack.GetErrors())
		}
		w.waitFor(t, "the batch's pods bound", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == perBatch*(i+1) })
		// The next batch starts from a cluster without nodes again.
		refs := []*berthv1.ObjectRef{{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: fmt.Sprintf("n%02d", i)}}
		for j := range perBatch {
			refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "default", Name: fmt.Sprintf("p%02d-%03d", i, j)})
		}
		if resp, err := e.state.Delete(t.Context(), &berthv1.DeleteRequest{Refs: refs}); err != nil || len(resp.GetErrors()) > 0 {
			t.Fatalf("delete round %d: %v %v", i, err, resp.GetErrors())
		}
	}
	ds := w.waitFor(t, "every pod bound", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == perBatch*rounds })
	if n := countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE); n > 0 {
		t.Errorf("%d Unschedulable decisions: a pod was tried before the node of its batch landed", n)
	}
	for pod, node := range binds(ds) {
		if pod[1:3] != node[1:3] {
			t.Errorf("%s bound to %s, want its batch's node", pod, node)
		}
	}
}

// In one batch, invalid objects are refused with the offending field
// named, and the rest lands and is scheduled.
func TestInvalidObjectsRefusedRestLands(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	badNode := nodeObj("bad", 4000)
	badNode.GetNode().Allocatable["cpu"] = -1
	huge := podWire("huge", 0)
	huge.Containers = []*berthv1.Container{
		{Name: "a", Requests: map[string]int64{"cpu": math.MaxInt64}},
		{Name: "b", Requests: map[string]int64{"cpu": math.MaxInt64 - 999_998}},
	}
	wraps := podWire("wraps", 0)
	wraps.Containers = []*berthv1.Container{
		{Name: "a", Requests: map[string]int64{"memory": 1 << 62}},
		{Name: "b", Requests: map[string]int64{"memory": 1 << 62}},
	}
	noUID := podWire("no-uid", 100)
	noUID.Uid = ""
	_, send := e.syncStream(t)
	ack := send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(
		nodeObj("n1", 4000), badNode, podObj(huge), podObj(podWire("ok", 100)), podObj(wraps), podObj(noUID),
	)})
	type refusal struct {
		index uint32
		code  berthv1.ErrorCode
		path  string
	}
	var got []refusal
	for _, oe := range ack.GetErrors() {
		got = append(got, refusal{oe.GetIndex(), oe.GetCode(), oe.GetFieldPath()})
	}
	inv := berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT
	want := []refusal{
		{1, inv, "node.allocatable[cpu]"},
		{2, inv, "pod.containers[0].requests[cpu]"},
		{4, inv, "pod.containers[1].requests[memory]"},
		{5, inv, "pod.uid"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || ack.GetApplied() != 2 {
		t.Fatalf("refusals %v (applied %d), want %v (applied 2)", got, ack.GetApplied(), want)
	}
	ds := w.waitFor(t, "ok bound", func(ds []*berthv1.Decision) bool { return binds(ds)["ok"] != "" })
	if b := binds(ds); len(b) != 1 || b["ok"] != "n1" {
		t.Errorf("binds %v, want only ok on n1", b)
	}
}

// A pod bound under a uid does not become pending again: the upsert
// clearing its node is refused on pod.node_name and no second Bind is
// made.
func TestBoundPodNotUnbound(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 4000), nodeObj("n2", 4000))
	e.apply(t, podObj(podWire("p", 1000)))
	node := w.waitFor(t, "p bound", func(ds []*berthv1.Decision) bool { return binds(ds)["p"] != "" })
	e.apply(t, podObj(podWire("p", 1000, withNode(binds(node)["p"])))) // confirmed
	resp, err := e.state.Apply(t.Context(), &berthv1.ApplyRequest{Objects: []*berthv1.Object{podObj(podWire("p", 1000))}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetErrors()) != 1 || resp.GetErrors()[0].GetCode() != berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION ||
		resp.GetErrors()[0].GetFieldPath() != "pod.node_name" {
		t.Fatalf("unbinding upsert: %v, want FAILED_PRECONDITION on pod.node_name", resp.GetErrors())
	}
	w.quiet(t, 300*time.Millisecond, "a second Bind of p", func(d *berthv1.Decision) bool {
		return d.GetBind() != nil && d.GetPod().GetName() == "p" && d.GetRevision() != node[0].GetRevision()
	})
	// Under a new uid it is a new pod, and is scheduled.
	again := podWire("p", 1000)
	again.Uid = "uid-p-2"
	e.apply(t, podObj(again))
	w.waitFor(t, "the new p bound", func(ds []*berthv1.Decision) bool {
		for _, d := range ds {
			if d.GetBind() != nil && d.GetPod().GetUid() == "uid-p-2" {
				return true
			}
		}
		return false
	})
}
