package daemon

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// errorInfo returns the ErrorInfo of a status, nil if none.
func errorInfo(err error) *errdetails.ErrorInfo {
	for _, d := range status.Convert(err).Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			return i
		}
	}
	return nil
}

// watchErr opens a watch and returns how it ended (DEADLINE_EXCEEDED if
// it waits for more).
func (e *env) watchErr(t *testing.T, req *berthv1.WatchRequest) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	stream, err := e.watch.Watch(ctx, req, grpc.WaitForReady(true))
	for err == nil {
		_, err = stream.Recv()
	}
	return err
}

// Resuming from a revision beyond the end of the log (a watcher of an
// older data directory) fails instead of silently skipping what comes
// before it; so does naming another log's id.
func TestWatchAnotherLog(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	err := e.watchErr(t, &berthv1.WatchRequest{FromRevision: 100})
	info := errorInfo(err)
	if status.Code(err) != codes.OutOfRange || info.GetReason() != "REVISION_NOT_WRITTEN" || info.GetMetadata()["next_revision"] != "1" {
		t.Fatalf("watch from 100 on a fresh log: %v (%v), want OUT_OF_RANGE, REVISION_NOT_WRITTEN, next_revision 1", err, info)
	}
	id := info.GetMetadata()["log_id"]
	if id == "" || id != e.d.Log().ID() {
		t.Errorf("log_id %q in the error, the log's is %q", id, e.d.Log().ID())
	}
	w := e.startWatch(t, &berthv1.WatchRequest{FromRevision: 1, LogId: id})
	e.apply(t, nodeObj("n1", 4000), podObj(podWire("p", 100)))
	w.waitFor(t, "p bound", func(ds []*berthv1.Decision) bool { return binds(ds)["p"] != "" })

	err = e.watchErr(t, &berthv1.WatchRequest{FromRevision: 1, LogId: "0123456789abcdef0123456789abcdef"})
	if status.Code(err) != codes.FailedPrecondition || errorInfo(err).GetReason() != "LOG_ID_MISMATCH" {
		t.Errorf("watch naming another log: %v, want FAILED_PRECONDITION LOG_ID_MISMATCH", err)
	}
	// Every response carries the id.
	stream, err := e.watch.Watch(t.Context(), &berthv1.WatchRequest{FromRevision: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r, err := stream.Recv()
		if err != nil || r.GetLogId() != id {
			t.Fatalf("response %v, %v: want log_id %s", r, err, id)
		}
	}
}

// A watcher whose client accepts only 1 MiB messages receives every
// decision of a log of large Unschedulable decisions: responses stay
// under the bound, and each decision lists at most 100 nodes.
func TestWatchResponsesBounded(t *testing.T) {
	e := start(t, Config{DataDir: t.TempDir()})
	var nodes []*berthv1.Object
	for i := range 300 {
		nodes = append(nodes, nodeObj(fmt.Sprintf("node-with-a-rather-long-name-for-its-reasons-%05d", i), 4000))
	}
	e.apply(t, nodes...)
	const pods = 600
	var objs []*berthv1.Object
	for i := range pods {
		objs = append(objs, podObj(podWire(fmt.Sprintf("huge%03d", i), 1_000_000)))
	}
	e.apply(t, objs...)
	w := e.startWatch(t, &berthv1.WatchRequest{FromRevision: 1})
	w.waitFor(t, "every pod unschedulable", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) >= pods
	})

	stream, err := e.watch.Watch(t.Context(), &berthv1.WatchRequest{FromRevision: 1}, grpc.MaxCallRecvMsgSize(1<<20+4<<10))
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for got < pods {
		r, err := stream.Recv()
		if err != nil {
			t.Fatalf("watch with a 1 MiB receive limit, after %d decisions: %v", got, err)
		}
		for _, d := range r.GetDecisions() {
			u := d.GetUnschedulable()
			if u == nil {
				continue
			}
			got++
			if len(u.GetNodeReasons()) != 100 || u.GetOmittedNodes() != 200 {
				t.Fatalf("%d node reasons, %d omitted; want 100 and 200", len(u.GetNodeReasons()), u.GetOmittedNodes())
			}
			if !strings.HasPrefix(u.GetMessage(), "0/300 nodes are available") {
				t.Fatalf("message %q", u.GetMessage())
			}
		}
	}
}

// After a restart, before the orchestrator re-listed, nothing is
// scheduled: a low-priority pod sent early does not take the room a
// restored nomination keeps for the preemptor. The first RESYNC_END of
// pods lets scheduling start; without one, the timeout does.
func TestRestartWaitsForRelist(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 4000), podObj(podWire("l1", 3000, withPriority(0), withNode("n1"))))
	e.apply(t, podObj(podWire("h", 3000, withPriority(1000))))
	w.waitFor(t, "h nominated", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_NOMINATE) > 0
	})
	e.shutdown(t)

	// The orchestrator deleted the victim l1 meanwhile; it re-lists the
	// node and a low-priority pod first, then h.
	e = start(t, Config{DataDir: dir, InitialSyncTimeout: time.Minute})
	w = e.startWatch(t, &berthv1.WatchRequest{})
	_, send := e.syncStream(t)
	send(&berthv1.SyncRequest{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN,
		Mutations: upserts(nodeObj("n1", 4000), podObj(podWire("m", 2000, withPriority(0))))})
	w.quiet(t, 300*time.Millisecond, "a bind before the re-list ended", isBind)
	send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_END, Mutations: upserts(podObj(podWire("h", 3000, withPriority(1000))))})
	ds := w.waitFor(t, "h bound", func(ds []*berthv1.Decision) bool { return binds(ds)["h"] != "" })
	if b := binds(ds); b["m"] != "" {
		t.Errorf("m bound to %s: it took the room kept for h", b["m"])
	}

	// No re-list at all: scheduling starts after the timeout.
	// begin is taken before the daemon starts its timer, so a bind made
	// only after the timeout comes at least the timeout after it, however
	// slow the start (a lower bound, not a timing budget).
	e.shutdown(t)
	const timeout = 300 * time.Millisecond
	begin := time.Now()
	e = start(t, Config{DataDir: dir, InitialSyncTimeout: timeout})
	w = e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n2", 4000), podObj(podWire("late", 100)))
	w.waitFor(t, "late bound", func(ds []*berthv1.Decision) bool { return binds(ds)["late"] != "" })
	if waited := time.Since(begin); waited < timeout {
		t.Errorf("bound %v after the restart, before the initial sync timeout of %v", waited, timeout)
	}
}

// A restarted berthd does not repeat a pod's last Unschedulable decision.
func TestRestartDoesNotRepeatUnschedulable(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 1000), podObj(podWire("big", 2000)))
	w.waitFor(t, "big unschedulable", func(ds []*berthv1.Decision) bool {
		return countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) == 1
	})
	e.shutdown(t)

	e = start(t, Config{DataDir: dir})
	w = e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 1000), podObj(podWire("big", 2000)))
	w.quiet(t, 500*time.Millisecond, "the same Unschedulable again", func(d *berthv1.Decision) bool { return d.GetUnschedulable() != nil })
	if ex, err := e.d.Scheduler().View().Explain("default", "big"); err != nil || ex.Queue.Attempts == 0 {
		t.Fatalf("big was not tried after the restart: %+v, %v", ex, err)
	}
	// It is still scheduled when the cluster changes.
	e.apply(t, nodeObj("n2", 4000))
	w.waitFor(t, "big bound", func(ds []*berthv1.Decision) bool { return binds(ds)["big"] == "n2" })
}
