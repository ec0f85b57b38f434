package decisionlog

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// Concurrent binds each get a distinct revision, the revisions are
// consecutive, each record holds its own pod, and the store wrote them in
// fewer transactions than binds (callers do not serialize).
func TestConcurrentBindsGetDistinctRevisions(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	const workers, each = 32, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				n := name(w*each + i)
				if err := l.Bind(t.Context(), pod(n), "node-"+n); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Bind: %v", err)
	}

	got := readAll(t, st)
	if len(got) != workers*each {
		t.Fatalf("log holds %d decisions, want %d", len(got), workers*each)
	}
	seen := map[string]uint64{}
	for i, d := range got {
		if d.GetRevision() != uint64(i+1) {
			t.Fatalf("decision %d has revision %d", i, d.GetRevision())
		}
		if want := "node-" + d.GetPod().GetName(); d.GetBind().GetNode() != want {
			t.Errorf("revision %d binds %s to %s, want %s", d.GetRevision(), d.GetPod().GetName(), d.GetBind().GetNode(), want)
		}
		seen[d.GetPod().GetUid()] = d.GetRevision()
	}
	if len(seen) != workers*each {
		t.Errorf("%d distinct pods in the log, want %d", len(seen), workers*each)
	}
	for uid, rev := range seen {
		if got, ok := l.BindRevision(uid); !ok || got != rev {
			t.Errorf("BindRevision(%s) = %d, %v; want %d", uid, got, ok, rev)
		}
	}
	if s := st.Stats(); s.Transactions >= s.Batches {
		t.Errorf("%d transactions for %d batches: concurrent binds were not grouped", s.Transactions, s.Batches)
	}
}

// Each sink call becomes the decision the proto describes.
func TestDecisionContent(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	ctx := t.Context()
	victim, preemptor := pod("victim"), pod("big")
	preemptor.SchedulerName = "gpu-scheduler"
	d := framework.Diagnosis{NodeToStatus: framework.NewNodeToStatus()}
	d.NodeToStatus.Set("n2", framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	d.NodeToStatus.Set("n1", framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector"))
	fitErr := &framework.FitError{PodKey: "ns/big", NumAllNodes: 2, Diagnosis: d}

	steps := []func() error{
		func() error { return l.Evict(ctx, victim, "n2", preemptor, "preempted") },
		func() error { return l.Nominate(ctx, preemptor, "n2") },
		// The scheduler passes the pod with its nomination already gone:
		// the log remembers the node.
		func() error { return l.ClearNomination(ctx, preemptor, "lost") },
		func() error { return l.Unschedulable(ctx, preemptor, fitErr.Error(), fitErr) },
		func() error { return l.Bind(ctx, preemptor, "n1") },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	const gpu = "gpu-scheduler"
	want := []*berthv1.Decision{
		{Revision: 1, SchedulerName: gpu, Pod: ref("victim"), Action: &berthv1.Decision_Evict{Evict: &berthv1.Evict{
			Victim: ref("victim"), Node: "n2", Preemptor: ref("big"), Reason: "preempted"}}},
		{Revision: 2, SchedulerName: gpu, Pod: ref("big"), Action: &berthv1.Decision_Nominate{Nominate: &berthv1.Nominate{Node: "n2"}}},
		{Revision: 3, SchedulerName: gpu, Pod: ref("big"), Action: &berthv1.Decision_ClearNomination{ClearNomination: &berthv1.ClearNomination{
			PreviousNode: "n2", Reason: "lost"}}},
		{Revision: 4, SchedulerName: gpu, Pod: ref("big"), Action: &berthv1.Decision_Unschedulable{Unschedulable: &berthv1.Unschedulable{
			Message: fitErr.Error(),
			NodeReasons: []*berthv1.NodeReasons{
				{Node: "n1", Reasons: []string{"node(s) didn't match Pod's node affinity/selector"}, Unresolvable: true},
				{Node: "n2", Reasons: []string{"Insufficient cpu"}},
			}}}},
		{Revision: 5, SchedulerName: gpu, Pod: ref("big"), Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: "n1"}}},
	}
	got := readAll(t, st)
	if diff := diffDecisions(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	for _, d := range got {
		if d.GetTime() == nil || d.GetTime().AsTime().IsZero() {
			t.Errorf("revision %d has no time", d.GetRevision())
		}
	}
}

// Nominations and binds awaiting an outcome come back after a restart;
// settled binds, cleared nominations and forgotten pods do not.
func TestRecover(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	st, err := bboltstore.Open(ctx, dir, bboltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := New(st, Options{})
	steps := []struct {
		name string
		do   func() error
	}{
		{"nominate kept", func() error { return l.Nominate(ctx, pod("kept"), "n1") }},
		{"nominate cleared", func() error { return l.Nominate(ctx, pod("cleared"), "n1") }},
		{"clear", func() error { return l.ClearNomination(ctx, pod("cleared"), "x") }},
		{"nominate then bind", func() error { return l.Nominate(ctx, pod("bound"), "n2") }},
		{"bind ends the nomination", func() error { return l.Bind(ctx, pod("bound"), "n2") }},
		{"bind confirmed", func() error { return l.Bind(ctx, pod("confirmed"), "n3") }},
		{"confirm", func() error { return l.Settle(ctx, "uid-confirmed", false) }},
		{"bind then delete", func() error { return l.Bind(ctx, pod("deleted"), "n3") }},
		{"delete", func() error { return l.Forget(ctx, "uid-deleted") }},
		{"nominate then delete", func() error { return l.Nominate(ctx, pod("gone"), "n4") }},
		{"delete nominated", func() error { return l.Forget(ctx, "uid-gone") }},
		{"evict kept", func() error { return l.Evict(ctx, pod("victim"), "n5", pod("kept"), "r") }},
		{"evicted then nominated", func() error { return l.Evict(ctx, pod("victim2"), "n5", pod("kept"), "r") }},
		{"a nomination does not end an eviction", func() error { return l.Nominate(ctx, pod("victim2"), "n6") }},
		{"forget the nomination", func() error { return l.ClearNomination(ctx, pod("victim2"), "x") }},
		{"evict then delete", func() error { return l.Evict(ctx, pod("evicted-gone"), "n5", pod("kept"), "r") }},
		{"delete evicted", func() error { return l.Forget(ctx, "uid-evicted-gone") }},
		{"bound, evicted", func() error { return l.Bind(ctx, pod("bound-evicted"), "n7") }},
		{"evict a pod whose bind awaits an outcome", func() error { return l.Evict(ctx, pod("bound-evicted"), "n7", pod("kept"), "r") }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	boundRev, _ := l.BindRevision("uid-bound")
	// Close flushes the queued settles.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2 := openStore(t, dir, bboltstore.Options{})
	l2 := New(st2, Options{})
	defer l2.Close()
	got, err := l2.Recover(ctx)
	if err != nil {
		t.Fatalf("Recover: %v", err)
	}
	evictedBindRev, _ := l2.BindRevision("uid-bound-evicted")
	want := Recovered{
		Nominations: []queue.Nomination{{PodUID: "uid-kept", PodKey: "ns/kept", NodeName: "n1"}},
		Binds: []RestoredBind{
			{Pod: ref("bound"), Node: "n2", Revision: boundRev},
			{Pod: ref("bound-evicted"), Node: "n7", Revision: evictedBindRev},
		},
		Evicted: []string{"uid-bound-evicted", "uid-victim", "uid-victim2"},
	}
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("Recover (-want +got):\n%s", diff)
	}
	if node, restored, ok := l2.OutstandingBind("uid-bound"); !ok || !restored || node != "n2" {
		t.Errorf("OutstandingBind(uid-bound) = %q, %v, %v; want n2, restored", node, restored, ok)
	}
	if rev, ok := l2.BindRevision("uid-bound"); !ok || rev != boundRev {
		t.Errorf("BindRevision(uid-bound) = %d, %v; want %d", rev, ok, boundRev)
	}
	// Deleting a restored evicted pod removes its entry.
	if err := l2.Forget(ctx, "uid-victim"); err != nil {
		t.Fatal(err)
	}
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]bool{"uid-bound-evicted": true, "uid-victim2": true}, keys(t, st2, store.Evictions)); diff != "" {
		t.Errorf("evictions left after deleting a restored one (-want +got):\n%s", diff)
	}
}

// keys lists the keys of a keyspace.
func keys(t *testing.T, st store.Store, sp store.Space) map[string]bool {
	t.Helper()
	kvs, err := st.List(sp)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, kv := range kvs {
		out[string(kv.Key)] = true
	}
	return out
}

// A failed bind's settle is durable when Settle(wait) returns; a new bind
// of the same pod is never undone by an earlier queued settle.
func TestSettleThenRebind(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	ctx := t.Context()
	p := pod("a")
	for round := range 50 {
		if err := l.Bind(ctx, p, "n1"); err != nil {
			t.Fatal(err)
		}
		// Alternate between waiting and not, so that rebinds race settles
		// still queued or being written.
		if err := l.Settle(ctx, p.UID, round%2 == 0); err != nil {
			t.Fatal(err)
		}
		if round%2 == 0 {
			if _, ok, err := st.Get(store.Assumed, []byte(p.UID)); err != nil || ok {
				t.Fatalf("round %d: assumed entry after a waited settle: ok=%v err=%v", round, ok, err)
			}
		}
	}
	if err := l.Bind(ctx, p, "n2"); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil { // flushes the settles still queued
		t.Fatal(err)
	}
	v, ok, err := st.Get(store.Assumed, []byte(p.UID))
	if err != nil || !ok {
		t.Fatalf("the last bind's assumed entry is gone: ok=%v err=%v", ok, err)
	}
	if _, d, err := parseAssumed(v); err != nil || d.GetBind().GetNode() != "n2" {
		t.Errorf("assumed entry = %v, %v; want the bind to n2", d, err)
	}
}

// Calls after the store closed fail with store.ErrClosed.
func TestClosedStore(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	err := l.Bind(t.Context(), &model.Pod{UID: "u", Namespace: "ns", Name: "p"}, "n")
	if !errors.Is(err, store.ErrClosed) {
		t.Errorf("Bind after close: %v, want store.ErrClosed", err)
	}
}
