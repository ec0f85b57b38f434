package daemon

import (
	"strconv"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
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
	if pending := e.d.Scheduler().Pending(); len(pending) != 0 {
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
	e := start(t, Config{DataDir: t.TempDir(), Retention: store.Retention{MaxRecords: 2}, CompactInterval: -1})
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
