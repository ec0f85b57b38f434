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
		if got, ok := l.book.BindRevision(uid); !ok || got != rev {
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
			Victim: ref("victim"), Node: "n2", Preemptor: ref("big"), Reason: "preempted",
			Cause: berthv1.EvictCause_EVICT_CAUSE_PREEMPTION}}},
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

// Nominations and Unschedulable messages come back after a restart;
// cleared nominations, nominations a bind ended and forgotten pods' do not.
// (Restored by the book, server/podbook, as the daemon does.)
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
		{"nominate then delete", func() error { return l.Nominate(ctx, pod("gone"), "n4") }},
		{"delete nominated", func() error { return l.Book().Forget(ctx, "uid-gone") }},
		{"an eviction does not end a nomination", func() error { return l.Nominate(ctx, pod("victim"), "n6") }},
		{"evict", func() error { return l.Evict(ctx, pod("victim"), "n5", pod("kept"), "r") }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	l2, st2 := reopen(t, l, st, dir)
	got, err := l2.Book().Restore(ctx)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	want := []queue.Nomination{
		{PodUID: "uid-kept", PodKey: "ns/kept", NodeName: "n1"},
		{PodUID: "uid-victim", PodKey: "ns/victim", NodeName: "n6"},
	}
	if diff := cmp.Diff(want, got.Nominations, protocmp.Transform()); diff != "" {
		t.Errorf("restored nominations (-want +got):\n%s", diff)
	}
	if node, ok := l2.Book().Nomination("uid-kept"); !ok || node != "n1" {
		t.Errorf("Nomination(uid-kept) = %q, %v; want n1", node, ok)
	}
	if _, ok := l2.Book().NominationRevision("uid-kept"); ok {
		t.Error("a restored nomination has a revision")
	}
	// Forgetting a restored nominated pod removes its entry.
	if err := l2.Book().Forget(ctx, "uid-kept"); err != nil {
		t.Fatal(err)
	}
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]bool{"uid-victim": true}, keys(t, st2, store.Nominations)); diff != "" {
		t.Errorf("nominations left after forgetting a restored one (-want +got):\n%s", diff)
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
