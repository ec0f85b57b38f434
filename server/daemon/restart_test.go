package daemon

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// Binds awaiting an outcome survive a restart: re-listed without
// node_name the pods stay on their nodes (nothing is placed twice); a
// FAILED report makes the pod pending and it is bound anew; CONFIRMED
// settles with the revision from before the restart.
func TestRestartKeepsBinds(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 1000), nodeObj("n2", 1000))
	e.apply(t, podObj(podWire("a", 1000)), podObj(podWire("b", 1000)))
	before := w.waitFor(t, "two binds", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 2 })
	e.shutdown(t)

	e = start(t, Config{DataDir: dir})
	replay := e.startWatch(t, &berthv1.WatchRequest{FromRevision: 1}).waitFor(t, "the replay", func(ds []*berthv1.Decision) bool {
		return len(ds) >= len(before)
	})
	for i := range before {
		if !proto.Equal(before[i], replay[i]) {
			t.Fatalf("decision %d differs after the restart:\n%v\n%v", i, before[i], replay[i])
		}
	}
	w = e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 1000), nodeObj("n2", 1000), podObj(podWire("a", 1000)), podObj(podWire("b", 1000)))
	if pending := e.d.Scheduler().View().Pending(); len(pending) != 0 {
		t.Fatalf("%d pods pending after the re-list, want none: their binds are outstanding", len(pending))
	}

	byName := map[string]*berthv1.Decision{}
	for _, d := range before {
		byName[d.GetPod().GetName()] = d
	}
	report := func(name string, outcome berthv1.BindOutcome) error {
		d := byName[name]
		_, err := e.state.ReportBindResult(t.Context(), &berthv1.ReportBindResultRequest{
			Pod: d.GetPod(), Node: d.GetBind().GetNode(), Revision: d.GetRevision(), Outcome: outcome, Reason: "test",
		})
		return err
	}
	if err := report("b", berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED); err != nil {
		t.Errorf("confirm b: %v", err)
	}
	if err := report("a", berthv1.BindOutcome_BIND_OUTCOME_FAILED); err != nil {
		t.Fatalf("fail a: %v", err)
	}
	ds := w.waitFor(t, "a bound anew", func(ds []*berthv1.Decision) bool { return binds(ds)["a"] != "" })
	if got, want := binds(ds)["a"], byName["a"].GetBind().GetNode(); got != want {
		t.Errorf("a bound to %s, want %s (the only node with room)", got, want)
	}
	if _, ok, err := e.d.store.Get(store.Assumed, []byte("uid-b")); err != nil || ok {
		t.Errorf("b's bind still recorded as outstanding after CONFIRMED (err %v)", err)
	}
}

// Watching from a compacted revision ends with OUT_OF_RANGE and the
// ErrorInfo decision_service.proto documents.
func TestWatchCompacted(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir(), Bbolt: bboltstore.Options{Retention: store.Retention{MaxRecords: 2}, CompactInterval: -1}})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 4000))
	for _, n := range []string{"a", "b", "c", "d"} {
		e.apply(t, podObj(podWire(n, 100)))
	}
	w.waitFor(t, "four binds", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 4 })
	if _, err := e.d.store.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	first, _ := e.d.store.Revisions()
	stream, err := e.watch.Watch(t.Context(), &berthv1.WatchRequest{FromRevision: 1}, grpc.WaitForReady(true))
	if err == nil {
		for err == nil {
			_, err = stream.Recv()
		}
	}
	st := status.Convert(err)
	if st.Code() != codes.OutOfRange {
		t.Fatalf("Watch from 1: %v, want OUT_OF_RANGE", err)
	}
	var info *errdetails.ErrorInfo
	for _, d := range st.Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			info = i
		}
	}
	if info.GetReason() != "REVISION_COMPACTED" || info.GetDomain() != "berth.v1" ||
		info.GetMetadata()["oldest_revision"] != strconv.FormatUint(first, 10) {
		t.Errorf("ErrorInfo = %v, want REVISION_COMPACTED in berth.v1 with oldest_revision %d", info, first)
	}
}

// An eviction not carried out yet survives a restart: the victim, re-listed
// as running, is still terminating by preemption, so its preemptor waits
// for it instead of evicting again; its deletion clears the record. An
// evicted pod deleted while berthd was down is dropped when a re-list ends
// without it.
func TestRestartKeepsPendingEvictions(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	e := start(t, Config{DataDir: dir, Deterministic: true})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	n1 := []*berthv1.Object{
		nodeObj("n1", 1000),
		podObj(podWire("low1", 1000, withNode("n1"), withPriority(0))),
		podObj(podWire("hi1", 1000, withPriority(100))),
	}
	// Everything on n2 is deleted while berthd is down.
	n2 := []*berthv1.Object{
		nodeObj("n2", 1000),
		podObj(podWire("low2", 1000, withNode("n2"), withPriority(0))),
		podObj(podWire("hi2", 1000, withPriority(100))),
	}
	e.apply(t, n1[:2]...)
	e.apply(t, n2[:2]...)
	nominated := func(n int) func(ds []*berthv1.Decision) bool {
		return func(ds []*berthv1.Decision) bool {
			return countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT) == n && countType(ds, berthv1.DecisionType_DECISION_TYPE_NOMINATE) == n
		}
	}
	e.apply(t, n1[2])
	w.waitFor(t, "hi1 nominated", nominated(1))
	e.apply(t, n2[2])
	w.waitFor(t, "hi2 nominated", nominated(2))
	e.shutdown(t)

	e = start(t, Config{DataDir: dir, Deterministic: true})
	if diff := cmp.Diff([]string{"uid-low1", "uid-low2"}, e.d.Scheduler().View().Evicted()); diff != "" {
		t.Errorf("evictions restored (-want +got):\n%s", diff)
	}
	w = e.startWatch(t, &berthv1.WatchRequest{})
	// The orchestrator re-lists n1 and its pods, low1 still running (it
	// has not acted on the Evict yet).
	stream, err := e.state.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var muts []*berthv1.Mutation
	for _, o := range n1 {
		muts = append(muts, &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}})
	}
	for _, req := range []*berthv1.SyncRequest{
		{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: muts},
		{BatchId: 2, Resync: berthv1.Resync_RESYNC_END},
	} {
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
		if resp, err := stream.Recv(); err != nil || len(resp.GetErrors()) > 0 {
			t.Fatalf("batch %d: %v %v", req.GetBatchId(), err, resp.GetErrors())
		}
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"uid-low1"}, e.d.Scheduler().View().Evicted()); diff != "" {
		t.Errorf("evictions after the re-list (-want +got):\n%s", diff)
	}
	if low1, _ := e.d.Scheduler().View().Pod("uid-low1"); !low1.TerminatingByPreemption() {
		t.Errorf("low1 re-listed as running is not terminating by preemption: %+v", low1)
	}
	// hi1, nominated to n1 again, waits for low1.
	ds := w.waitFor(t, "hi1 waiting (or an Evict)", func(ds []*berthv1.Decision) bool {
		for _, d := range ds {
			if d.GetEvict() != nil || strings.Contains(d.GetUnschedulable().GetMessage(), "preemption: not eligible due to a terminating pod on the nominated node") {
				return true
			}
		}
		return false
	})
	if n := countType(ds, berthv1.DecisionType_DECISION_TYPE_EVICT); n != 0 {
		t.Errorf("%d Evict decisions after the restart, want none: %v", n, ds)
	}
	// The records of deleted pods go in the background.
	eventually(t, "low2's record gone", func() string {
		return cmp.Diff([]string{"uid-low1"}, storeKeys(t, e.d.store, store.Evictions))
	})

	// low1 goes: its record goes, hi1 binds to n1.
	if _, err := e.state.Delete(ctx, &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "default", Name: "low1"}}}); err != nil {
		t.Fatal(err)
	}
	ds = w.waitFor(t, "hi1 bound", func(ds []*berthv1.Decision) bool { return binds(ds)["hi1"] != "" })
	if got := binds(ds)["hi1"]; got != "n1" {
		t.Errorf("hi1 bound to %s, want n1", got)
	}
	if got := e.d.Scheduler().View().Evicted(); len(got) != 0 {
		t.Errorf("evictions after low1 was deleted: %v", got)
	}
	eventually(t, "low1's record gone", func() string {
		return cmp.Diff([]string{}, storeKeys(t, e.d.store, store.Evictions))
	})
}

// eventually polls diff until it is empty, failing the test after 10s.
func eventually(t *testing.T, what string, diff func() string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		d := diff()
		if d == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: timed out (-want +got):\n%s", what, d)
		}
	}
}

// storeKeys lists the keys of a keyspace, in order.
func storeKeys(t *testing.T, st store.Store, sp store.Space) []string {
	t.Helper()
	kvs, err := st.List(sp)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, kv := range kvs {
		out = append(out, string(kv.Key))
	}
	return out
}

// A pod re-listed pending after a restart while its bind is outstanding is
// admitted as the bound pod it is held as: its class gone meanwhile does
// not refuse it (the object store's admission asks the book), so it keeps
// its node and no other pod is placed on the room it holds.
func TestRestartAdmitsHeldPodWhoseClassIsGone(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	class := &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{Name: "c", Value: 10}}}
	named := func(p *berthv1.Pod) { p.PriorityClassName = "c" }
	e.apply(t, class, nodeObj("n1", 1000))
	e.apply(t, podObj(podWire("a", 1000, named)))
	w.waitFor(t, "a's bind", func(ds []*berthv1.Decision) bool { return binds(ds)["a"] == "n1" })
	e.shutdown(t)

	e = start(t, Config{DataDir: dir})
	// The class is not re-listed: a new pod naming it, which no bind
	// holds, is refused.
	resp, err := e.state.Apply(t.Context(), &berthv1.ApplyRequest{Objects: []*berthv1.Object{
		nodeObj("n1", 1000), podObj(podWire("a", 1000, named)), podObj(podWire("b", 1000, named)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if errs := resp.GetErrors(); len(errs) != 1 || !strings.Contains(errs[0].GetMessage(), "no PriorityClass with name c") {
		t.Fatalf("Apply's errors %v, want b's unknown class only", errs)
	}
	if p, ok := e.d.Scheduler().View().Pod("uid-a"); !ok || p.NodeName != "n1" || p.Priority != 0 {
		t.Fatalf("a held as %+v, want on n1 at priority 0", p)
	}
	e.apply(t, podObj(podWire("c", 1000)))
	if pending := e.d.Scheduler().View().Pending(); len(pending) != 1 || pending[0].Pod.Name != "c" {
		t.Errorf("pending %v, want c only: a holds n1", pending)
	}
}
