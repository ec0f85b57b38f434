package podbook_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/server/watch"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// Binds awaiting an outcome and evictions of pods not deleted come back
// after a restart, with their revisions; settled binds and forgotten pods'
// records do not, and a nomination does not end an eviction.
func TestRestore(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	e := open(t, dir, bboltstore.Options{})
	for _, p := range []string{"victim", "victim2", "evicted-gone", "bound-evicted"} {
		e.sched.add(pod(p))
	}
	steps := []struct {
		name string
		do   func() error
	}{
		{"bind", func() error { e.bind(t, pod("bound"), "n2"); return nil }},
		{"bind confirmed", func() error { e.bind(t, pod("confirmed"), "n3"); return nil }},
		{"confirm", func() error { return e.outcomes.ReportBindResult(ctx, "uid-confirmed", "n3", true, "") }},
		{"bind then delete", func() error { e.bind(t, pod("deleted"), "n3"); return nil }},
		{"delete", func() error { return e.outcomes.DeletePod(ctx, pod("deleted")) }},
		{"evict kept", func() error {
			return e.submit(ctx, &framework.Eviction{Victim: pod("victim"), Node: "n5", Preemptor: pod("kept"), Message: "r"})
		}},
		{"evicted then nominated", func() error {
			return e.submit(ctx, &framework.Eviction{Victim: pod("victim2"), Node: "n5", Preemptor: pod("kept"), Message: "r"})
		}},
		{"a nomination does not end an eviction", func() error { return e.submit(ctx, &framework.Nomination{Pod: pod("victim2"), Node: "n6"}) }},
		{"clear the nomination", func() error { return e.submit(ctx, &framework.ClearNomination{Pod: pod("victim2"), Reason: "x"}) }},
		{"evict then delete", func() error {
			return e.submit(ctx, &framework.Eviction{Victim: pod("evicted-gone"), Node: "n5", Preemptor: pod("kept"), Message: "r"})
		}},
		{"delete evicted", func() error { return e.outcomes.DeletePod(ctx, pod("evicted-gone")) }},
		{"bound, evicted", func() error { e.bind(t, pod("bound-evicted"), "n7"); return nil }},
		{"evict a pod whose bind awaits an outcome", func() error {
			return e.submit(ctx, &framework.Eviction{Victim: pod("bound-evicted"), Node: "n7", Preemptor: pod("kept"), Message: "r"})
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	boundRev, _ := e.book.BindRevision("uid-bound")
	evictedBindRev, _ := e.book.BindRevision("uid-bound-evicted")
	evictOf := func(l *podbook.Book, uid string) string {
		ev, ok := l.Eviction(uid)
		if !ok {
			return "none"
		}
		return ev.GetVictim().GetName() + " on " + ev.GetNode() + " for " + ev.GetPreemptor().GetName() + ": " + ev.GetReason()
	}
	if got, want := evictOf(e.book, "uid-victim"), "victim on n5 for kept: r"; got != want {
		t.Errorf("Eviction(uid-victim) = %q, want %q", got, want)
	}
	e.close(t)

	e2 := open(t, dir, bboltstore.Options{})
	want := podbook.Facts{
		Binds: []podbook.Record{
			{Kind: podbook.KindBind, PodUID: "uid-bound", Node: "n2", Revision: boundRev, Restored: true},
			{Kind: podbook.KindBind, PodUID: "uid-bound-evicted", Node: "n7", Revision: evictedBindRev, Restored: true},
		},
		Evictions: []podbook.Record{
			{Kind: podbook.KindEvict, PodUID: "uid-bound-evicted", Node: "n7", Restored: true},
			{Kind: podbook.KindEvict, PodUID: "uid-victim", Node: "n5", Restored: true},
			{Kind: podbook.KindEvict, PodUID: "uid-victim2", Node: "n5", Restored: true},
		},
	}
	if diff := cmp.Diff(want, e2.restored, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Restore (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"uid-bound-evicted", "uid-victim", "uid-victim2"}, e2.sched.evictedUIDs()); diff != "" {
		t.Errorf("evictions handed to the scheduler (-want +got):\n%s", diff)
	}
	if r, ok := e2.book.Outstanding(podbook.KindBind, "uid-bound"); !ok || !r.Restored || r.Node != "n2" {
		t.Errorf("Outstanding(bind, uid-bound) = %+v, %v; want restored on n2", r, ok)
	}
	for uid, want := range map[string]string{"uid-victim": "victim on n5 for kept: r", "uid-evicted-gone": "none", "uid-bound": "none"} {
		if got := evictOf(e2.book, uid); got != want {
			t.Errorf("Eviction(%s) after the restart = %q, want %q", uid, got, want)
		}
	}
	if rev, ok := e2.book.BindRevision("uid-bound"); !ok || rev != boundRev {
		t.Errorf("BindRevision(uid-bound) = %d, %v; want %d", rev, ok, boundRev)
	}
	// Deleting a restored evicted pod removes its record.
	if err := e2.outcomes.DeletePod(ctx, pod("victim")); err != nil {
		t.Fatal(err)
	}
	e2.close(t)
	st := openStore(t, dir)
	if diff := cmp.Diff([]string{"uid-bound-evicted", "uid-victim2"}, keys(t, st, store.Evictions)); diff != "" {
		t.Errorf("evictions left after deleting a restored one (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"uid-bound", "uid-bound-evicted"}, keys(t, st, store.Assumed)); diff != "" {
		t.Errorf("binds left (-want +got):\n%s", diff)
	}
}

func openStore(t *testing.T, dir string) *bboltstore.Store {
	t.Helper()
	st, err := bboltstore.Open(t.Context(), dir, bboltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// A watcher that settles each bind the moment it sees it finds the bind
// recorded, with the revision it saw, and leaves no record behind: the
// decision is durable, and so visible, before Commit returns to the
// binder.
func TestSettleOnSight(t *testing.T) {
	e := open(t, t.TempDir(), bboltstore.Options{})
	const n = 2000
	var (
		mu       sync.Mutex
		problems []string
		settled  int
		next     uint64
		moved    = make(chan struct{}, n+1)
	)
	go func() {
		_ = watch.New(e.st, e.log.ID, watch.Options{}).Watch(t.Context(), 1, "", watch.Filter{}, func(r *berthv1.WatchResponse) error {
			for _, d := range r.GetDecisions() {
				uid := d.GetPod().GetUid()
				rev, ok, err := e.book.WaitBindRevision(t.Context(), uid)
				if err == nil && (!ok || rev != d.GetRevision()) {
					err = fmt.Errorf("revision %d, %v; want %d", rev, ok, d.GetRevision())
				}
				if err == nil {
					err = e.outcomes.ReportBindResult(t.Context(), uid, "n1", true, "")
				}
				mu.Lock()
				settled++
				if err != nil {
					problems = append(problems, uid+": "+err.Error())
				}
				mu.Unlock()
			}
			mu.Lock()
			next = r.GetNextRevision()
			mu.Unlock()
			moved <- struct{}{}
			return nil
		})
	}()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { e.bind(t, pod(name(i)), "n1") })
	}
	wg.Wait()
	for {
		mu.Lock()
		at := next
		mu.Unlock()
		if at > n {
			break
		}
		select {
		case <-moved:
		case <-t.Context().Done():
			t.Fatal("the watch stopped")
		}
	}
	st := e.st
	if err := e.closeLog(); err != nil { // flushes the settles
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if settled != n || len(problems) > 0 {
		t.Errorf("%d binds settled, %d problems, first: %v", settled, len(problems), problems[:min(3, len(problems))])
	}
	if got := keys(t, st, store.Assumed); len(got) != 0 {
		t.Errorf("%d bind records left after every bind was settled", len(got))
	}
}

// A pod deleted while its bind is being written leaves no record; a bind
// the scheduler no longer wants is refused and writes nothing.
func TestForgetDuringBind(t *testing.T) {
	e := open(t, t.TempDir(), bboltstore.Options{})
	ctx := t.Context()
	const n = 500
	var wg sync.WaitGroup
	for i := range n {
		p := pod(name(i))
		e.sched.add(p)
		wg.Go(func() {
			err := e.submit(ctx, &framework.Bind{Pod: p, Node: "n1"})
			if err != nil && !errors.Is(err, decisionlog.ErrBindAbandoned) {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if err := e.outcomes.DeletePod(ctx, p); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// A pod replaced under the same uid: the old binding's Bind is refused.
	old, cur := pod("reused"), pod("reused")
	e.sched.add(cur)
	if err := e.submit(ctx, &framework.Bind{Pod: old, Node: "n1"}); !errors.Is(err, decisionlog.ErrBindAbandoned) {
		t.Errorf("a stale binding's Bind: %v, want ErrBindAbandoned", err)
	}
	st := e.st
	if err := e.closeLog(); err != nil {
		t.Fatal(err)
	}
	if got := keys(t, st, store.Assumed); len(got) != 0 {
		t.Errorf("%d bind records of deleted pods left", len(got))
	}
	recs, err := st.Read(ctx, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		var d berthv1.Decision
		if err := proto.Unmarshal(r.Payload, &d); err != nil {
			t.Fatal(err)
		}
		if d.GetPod().GetName() == "reused" {
			t.Errorf("a refused bind was written: %v", &d)
		}
	}
}

// With a small retention the revision a bind record's hint points the
// search at may be compacted while the bind itself is kept: Restore finds
// it from the oldest revision kept.
func TestRestoreFindsBindPastCompactedHint(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	opts := bboltstore.Options{Retention: store.Retention{MaxRecords: 3}, CompactInterval: -1}
	e := open(t, dir, opts)
	unsched := func(from, to int) {
		for i := from; i < to; i++ {
			if err := e.submit(ctx, &framework.UnschedulableReport{Pod: pod(name(i)), Message: "none fits"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	unsched(0, 3)
	// The bind at revision 4, its record pointing at revision 1: as when
	// concurrent commits landed between reading the newest revision and
	// the bind's own commit.
	payload, err := proto.MarshalOptions{Deterministic: true}.Marshal(&berthv1.Decision{
		SchedulerName: model.DefaultSchedulerName, Pod: &berthv1.PodRef{Namespace: "ns", Name: "late", Uid: "uid-late"},
		Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: "n7"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var b store.Batch
	b.Append(payload)
	b.Put(podbook.KindBind.Space(), []byte("uid-late"), podbook.BindValue(1, payload))
	if _, err := e.st.Commit(ctx, &b); err != nil {
		t.Fatal(err)
	}
	unsched(3, 5)
	if _, err := e.st.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if first, _ := e.st.Revisions(); first != 4 {
		t.Fatalf("oldest revision %d after compaction, want 4", first)
	}
	e.close(t)

	e2 := open(t, dir, bboltstore.Options{})
	if len(e2.restored.Binds) != 1 || e2.restored.Binds[0].Revision != 4 {
		t.Fatalf("restored binds %v, want the bind of late at revision 4", e2.restored.Binds)
	}
	if rev, ok := e2.book.BindRevision("uid-late"); !ok || rev != 4 {
		t.Errorf("BindRevision(uid-late) = %d, %v; want 4", rev, ok)
	}
}

// A failed bind's record is removed durably before the scheduler hears of
// the failure (and requeues the pod); a new bind of the same pod is never
// undone by an earlier removal still queued.
func TestFailureDurableBeforeRequeue(t *testing.T) {
	e := open(t, t.TempDir(), bboltstore.Options{})
	ctx := t.Context()
	p := pod("a")
	var durable []bool
	e.sched.onReport = func(uid string) {
		_, ok, err := e.st.Get(store.Assumed, []byte(uid))
		durable = append(durable, err == nil && !ok)
	}
	for round := range 50 {
		e.bind(t, p, "n1")
		// Alternate failures (durable first) and confirmations (in the
		// background), so that rebinds race removals still queued or
		// being written.
		failed := round%2 == 0
		if err := e.outcomes.ReportBindResult(ctx, p.UID, "n1", !failed, "lost"); err != nil {
			t.Fatal(err)
		}
		if failed && !durable[len(durable)-1] {
			t.Fatalf("round %d: the scheduler heard of the failure before its record was removed", round)
		}
	}
	e.bind(t, p, "n2")
	st := e.st
	if err := e.closeLog(); err != nil { // flushes the removals still queued
		t.Fatal(err)
	}
	v, ok, err := st.Get(store.Assumed, []byte(p.UID))
	if err != nil || !ok {
		t.Fatalf("the last bind's record is gone: ok=%v err=%v", ok, err)
	}
	if d, err := podbook.ParseBind(v); err != nil || d.GetBind().GetNode() != "n2" {
		t.Errorf("bind record = %v, %v; want the bind to n2", d, err)
	}
}

// After a restart a pod re-listed pending is held on its restored bind's
// node until the bind is settled: a report naming another node is refused,
// a failure is durable before the pod is unbound, and the end of a re-list
// forgets the records of pods it did not bring back.
func TestRestoredBindRules(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	e := open(t, dir, bboltstore.Options{})
	for _, n := range []string{"held", "failed", "gone"} {
		e.bind(t, pod(n), "n1")
	}
	e.sched.add(pod("victim-gone"))
	if err := e.submit(ctx, &framework.Eviction{Victim: pod("victim-gone"), Node: "n2", Preemptor: pod("held"), Message: "r"}); err != nil {
		t.Fatal(err)
	}
	e.close(t)

	e2 := open(t, dir, bboltstore.Options{})
	e2.sched.onReport = func(uid string) {
		if _, ok, err := e2.st.Get(store.Assumed, []byte(uid)); err != nil || ok {
			t.Errorf("%s unbound before its failed bind's record was removed (err %v)", uid, err)
		}
	}
	if e2.book.HeldOnNode("uid-victim-gone") {
		t.Error("a pod with no bind is held on a node")
	}
	for _, n := range []string{"held", "failed"} {
		// The pods' admission asks, before AddPod holds the pod.
		if !e2.book.HeldOnNode(pod(n).UID) {
			t.Errorf("%s: not held on its restored bind's node", n)
		}
		if err := e2.outcomes.AddPod(ctx, pod(n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e2.outcomes.ReportBindResult(ctx, "uid-held", "n9", true, ""); !errors.Is(err, scheduler.ErrNoBindInFlight) {
		t.Errorf("a report naming another node: %v, want ErrNoBindInFlight", err)
	}
	if err := e2.outcomes.ReportBindResult(ctx, "uid-failed", "n1", false, "lost"); err != nil {
		t.Fatal(err)
	}
	e2.resynced(ctx)
	want := []string{"add held on n1", "add failed on n1", "unbind uid-failed"}
	if diff := cmp.Diff(want, e2.sched.calls); diff != "" {
		t.Errorf("scheduler calls (-want +got):\n%s", diff)
	}
	if got := restoredUIDs(e2.book); !cmp.Equal(got, []string{"uid-held"}) {
		t.Errorf("restored binds after the re-list %v, want uid-held's only", got)
	}
	e2.close(t)
	st := openStore(t, dir)
	if diff := cmp.Diff([]string{"uid-held"}, keys(t, st, store.Assumed)); diff != "" {
		t.Errorf("bind records left (-want +got):\n%s", diff)
	}
	if got := keys(t, st, store.Evictions); len(got) != 0 {
		t.Errorf("evictions of pods not re-listed left: %v", got)
	}
}

func restoredUIDs(l *podbook.Book) []string {
	var out []string
	for _, r := range l.ListRestored(podbook.KindBind) {
		out = append(out, r.PodUID)
	}
	return out
}

// A nominated pod the orchestrator sends bound (it placed the pod itself)
// loses its nomination and last Unschedulable message in the store too,
// as a Bind would end them, so that the store lists what the scheduler
// holds.
func TestBoundElsewhereEndsNomination(t *testing.T) {
	e := open(t, t.TempDir(), bboltstore.Options{})
	ctx := t.Context()
	p := pod("nominee")
	e.sched.add(p)
	if err := e.submit(ctx, &framework.UnschedulableReport{Pod: p, Message: "0/1 nodes are available"}); err != nil {
		t.Fatal(err)
	}
	if err := e.submit(ctx, &framework.Nomination{Pod: p, Node: "n1"}); err != nil {
		t.Fatal(err)
	}
	bound := *p
	bound.NodeName = "n2"
	if err := e.outcomes.AddPod(ctx, &bound); err != nil {
		t.Fatal(err)
	}
	if node, ok := e.book.Nomination(p.UID); ok {
		t.Errorf("the log still holds the nomination to %s", node)
	}
	e.close(t) // flushes the removals
	reopened := open(t, e.dir, bboltstore.Options{})
	for _, sp := range []store.Space{store.Nominations, store.Unschedulable} {
		if got := keys(t, reopened.st, sp); len(got) != 0 {
			t.Errorf("%s holds %v after the pod arrived bound", sp, got)
		}
	}
}
