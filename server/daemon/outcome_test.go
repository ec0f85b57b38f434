package daemon

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// Binds confirmed the moment the watch delivers them are all accepted,
// whether by ReportBindResult or by the pod sent back with its node, and
// none stays recorded as awaiting an outcome.
func TestConfirmOnReceipt(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 binds")
	}
	e := start(t, Config{DataDir: t.TempDir()})
	ctx := t.Context()
	var nodes []*berthv1.Object
	for i := range 100 {
		nodes = append(nodes, nodeObj(fmt.Sprintf("n%03d", i), 64000))
	}
	e.apply(t, nodes...)
	stream, err := e.watch.Watch(ctx, &berthv1.WatchRequest{}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	confirm, _ := e.syncStream(t) // acks are drained below
	var drained sync.WaitGroup
	drained.Go(func() {
		for {
			if _, err := confirm.Recv(); err != nil {
				return
			}
		}
	})

	const pods = 10_000
	go func() {
		for i := 0; i < pods; i += 1000 {
			var objs []*berthv1.Object
			for j := i; j < i+1000; j++ {
				objs = append(objs, podObj(podWire(fmt.Sprintf("p%05d", j), 10)))
			}
			if _, err := e.state.Apply(ctx, &berthv1.ApplyRequest{Objects: objs}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var (
		refused  atomic.Int64
		firstErr atomic.Value
		wg       sync.WaitGroup
		sendMu   sync.Mutex
	)
	sem := make(chan struct{}, 64)
	seen := 0
	for seen < pods {
		r, err := stream.Recv()
		if err != nil {
			t.Fatalf("watch after %d binds: %v", seen, err)
		}
		for _, d := range r.GetDecisions() {
			if d.GetBind() == nil {
				continue
			}
			seen++
			if seen%4 == 0 {
				// The orchestrator sends the pod back with its node.
				sendMu.Lock()
				err := confirm.Send(&berthv1.SyncRequest{BatchId: uint64(seen), Mutations: upserts(podObj(podWire(d.GetPod().GetName(), 10, withNode(d.GetBind().GetNode()))))})
				sendMu.Unlock()
				if err != nil {
					t.Fatal(err)
				}
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				_, err := e.state.ReportBindResult(ctx, &berthv1.ReportBindResultRequest{
					Pod: d.GetPod(), Node: d.GetBind().GetNode(), Revision: d.GetRevision(), Outcome: berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED,
				})
				if err != nil {
					refused.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}()
		}
	}
	wg.Wait()
	if n := refused.Load(); n > 0 {
		t.Errorf("%d of %d immediate reports refused; first: %v", n, pods*3/4, firstErr.Load())
	}
	// The confirmations by upsert are applied in order; one more request
	// on the stream, acknowledged, comes after them all.
	if err := confirm.CloseSend(); err != nil {
		t.Fatal(err)
	}
	drained.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := e.d.Scheduler().View().Stats()
		if st.BindsInFlight == 0 && st.Cache.AssumedPods == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("binds still in flight after every confirmation: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.shutdown(t) // flushes the settled binds
	if kvs, err := reopen(t, e.d.cfg.DataDir).store.List(store.Assumed); err != nil || len(kvs) != 0 {
		t.Errorf("%d binds recorded as awaiting an outcome after all were confirmed (err %v)", len(kvs), err)
	}
}

// reopen opens, without serving, the data directory of a daemon that was
// shut down.
func reopen(t *testing.T, dir string) *Daemon {
	t.Helper()
	d, err := Open(t.Context(), Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// Pods created and deleted at once leave no bind awaiting an outcome: not
// before a restart, and so none is restored after it.
func TestDeletedPodsLeaveNoBinds(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	var nodes []*berthv1.Object
	for i := range 50 {
		nodes = append(nodes, nodeObj(fmt.Sprintf("n%03d", i), 64000))
	}
	e.apply(t, nodes...)
	w := e.startWatch(t, &berthv1.WatchRequest{})
	const rounds, per = 20, 200
	for round := range rounds {
		var objs []*berthv1.Object
		var refs []*berthv1.ObjectRef
		for j := range per {
			name := fmt.Sprintf("p%02d-%03d", round, j)
			objs = append(objs, podObj(podWire(name, 10)))
			refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "default", Name: name})
		}
		e.apply(t, objs...)
		time.Sleep(time.Duration(round%5) * time.Millisecond)
		if resp, err := e.state.Delete(t.Context(), &berthv1.DeleteRequest{Refs: refs}); err != nil || len(resp.GetErrors()) > 0 {
			t.Fatalf("Delete: %v %v", err, resp.GetErrors())
		}
	}
	time.Sleep(200 * time.Millisecond) // binding cycles in flight end
	if st := e.d.Scheduler().View().Stats(); st.BindsInFlight != 0 || st.Cache.AssumedPods != 0 || st.Pods != 0 {
		t.Errorf("after deleting every pod: %+v", st)
	}
	w.mu.Lock()
	bound := len(binds(w.decisions))
	w.mu.Unlock()
	e.shutdown(t)

	e = start(t, Config{DataDir: dir})
	if got := restoredBinds(e); len(got) != 0 {
		t.Errorf("%d binds restored for pods deleted before the restart (%d binds were made)", len(got), bound)
	}
}

// Binds restored after a restart for pods the re-list does not bring back
// are dropped at its end; those re-listed stay held on their nodes.
func TestRelistDropsRestoredBindsOfGonePods(t *testing.T) {
	dir := t.TempDir()
	e := start(t, Config{DataDir: dir})
	w := e.startWatch(t, &berthv1.WatchRequest{})
	e.apply(t, nodeObj("n1", 4000))
	e.apply(t, podObj(podWire("kept", 1000)), podObj(podWire("gone", 1000)))
	w.waitFor(t, "two binds", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 2 })
	e.shutdown(t)

	e = start(t, Config{DataDir: dir, InitialSyncTimeout: time.Minute})
	if got := restoredBinds(e); len(got) != 2 {
		t.Fatalf("restored binds %v, want two", got)
	}
	_, send := e.syncStream(t)
	send(&berthv1.SyncRequest{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(nodeObj("n1", 4000), podObj(podWire("kept", 1000)))})
	send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_END})
	got := restoredBinds(e)
	if len(got) != 1 || got["uid-kept"] != "n1" {
		t.Errorf("restored binds after the re-list %v, want kept's only", got)
	}
	if ex, err := e.d.Scheduler().View().Explain("default", "kept"); err != nil || ex.Node != "n1" {
		t.Errorf("kept: %+v, %v; want held on n1", ex, err)
	}
}

// After a restart with a small retention, binds made before it are
// confirmed with their revisions: the record is still there even when the
// revision the search starts from was compacted, and a bind whose record
// is gone is identified by its pod and node.
func TestConfirmAfterRestartWithSmallRetention(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: dir, Bbolt: bboltstore.Options{Retention: store.Retention{MaxRecords: 5}, CompactInterval: -1}}
	e := start(t, cfg)
	w := e.startWatch(t, &berthv1.WatchRequest{})
	var nodes, pods []*berthv1.Object
	for i := range 20 {
		nodes = append(nodes, nodeObj(fmt.Sprintf("n%02d", i), 64000))
	}
	e.apply(t, nodes...)
	const n = 300
	for i := range n {
		pods = append(pods, podObj(podWire(fmt.Sprintf("p%03d", i), 10)))
	}
	e.apply(t, pods...)
	ds := w.waitFor(t, "every bind", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == n })
	if _, err := e.d.store.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.shutdown(t)

	e = start(t, cfg)
	e.apply(t, nodes...)
	e.apply(t, pods...) // re-listed without node_name: held on their binds' nodes
	first, _ := e.d.store.Revisions()
	var last *berthv1.Decision
	for _, d := range ds {
		if d.GetBind() == nil {
			continue
		}
		last = d
		rev, ok := e.d.Book().BindRevision(d.GetPod().GetUid())
		if d.GetRevision() >= first && (!ok || rev != d.GetRevision()) {
			t.Errorf("%s: restored revision %d, %v; its record %d is kept (oldest %d)", d.GetPod().GetName(), rev, ok, d.GetRevision(), first)
		}
	}
	// A revision that is not the (known) bind's is refused.
	if _, err := e.state.ReportBindResult(t.Context(), &berthv1.ReportBindResultRequest{
		Pod: last.GetPod(), Node: last.GetBind().GetNode(), Revision: last.GetRevision() + 1, Outcome: berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED,
	}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("a report with another revision: %v, want FAILED_PRECONDITION", err)
	}
	for _, d := range ds {
		if d.GetBind() == nil {
			continue
		}
		if _, err := e.state.ReportBindResult(t.Context(), &berthv1.ReportBindResultRequest{
			Pod: d.GetPod(), Node: d.GetBind().GetNode(), Revision: d.GetRevision(), Outcome: berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED,
		}); err != nil {
			t.Errorf("confirm %s (revision %d, oldest kept %d) after the restart: %v", d.GetPod().GetName(), d.GetRevision(), first, err)
		}
	}
}

// restoredBinds lists the binds made before the restart that still await
// an outcome: pod uid to node.
func restoredBinds(e *env) map[string]string {
	out := map[string]string{}
	for _, r := range e.d.Book().ListRestored(podbook.KindBind) {
		out[r.PodUID] = r.Node
	}
	return out
}
