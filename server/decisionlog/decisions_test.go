package decisionlog

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/store/bboltstore"
)

// An Unschedulable decision repeating the pod's last message is not
// written, across restarts; a bind or the pod's deletion resets it.
func TestUnschedulableOnce(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	st, err := bboltstore.Open(ctx, dir, bboltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := New(st, Options{})
	a, b := pod("a"), pod("b")
	for _, step := range []func() error{
		func() error { return l.Unschedulable(ctx, a, "0/1 nodes: cpu", nil) }, // 1
		func() error { return l.Unschedulable(ctx, a, "0/1 nodes: cpu", nil) }, // repeat: nothing
		func() error { return l.Unschedulable(ctx, b, "0/1 nodes: cpu", nil) }, // 2
		func() error { return l.Unschedulable(ctx, b, "0/2 nodes: cpu", nil) }, // 3
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	l2, st2 := reopen(t, l, st, dir)
	if _, err := l2.Book().Restore(ctx); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error { return l2.Unschedulable(ctx, a, "0/1 nodes: cpu", nil) }, // the restarted scheduler repeats: nothing
		func() error { return l2.Unschedulable(ctx, b, "0/2 nodes: cpu", nil) }, // nothing
		func() error { return l2.Bind(ctx, a, "n1") },                           // 4
		func() error { return l2.Unschedulable(ctx, a, "0/1 nodes: cpu", nil) }, // 5: after a bind
		func() error { return l2.Book().Forget(ctx, b.UID) },
		func() error { return l2.Unschedulable(ctx, b, "0/2 nodes: cpu", nil) }, // 6: a new pod of that uid
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, d := range readAll(t, st2) {
		got = append(got, fmt.Sprintf("%d %s %s", d.GetRevision(), d.GetPod().GetName(), TypeOf(d)))
	}
	want := []string{
		"1 a DECISION_TYPE_UNSCHEDULABLE", "2 b DECISION_TYPE_UNSCHEDULABLE", "3 b DECISION_TYPE_UNSCHEDULABLE",
		"4 a DECISION_TYPE_BIND", "5 a DECISION_TYPE_UNSCHEDULABLE", "6 b DECISION_TYPE_UNSCHEDULABLE",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("decisions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Watch responses stay under the byte bound, a decision larger than it
// goes alone, and nothing is lost or reordered.
func TestWatchResponseSize(t *testing.T) {
	l, _ := newLog(t, bboltstore.Options{})
	l.opts.MaxResponseBytes = 4 << 10
	ctx := t.Context()
	const n = 60
	for i := range n {
		size := 300
		if i == 40 {
			size = 10 << 10 // larger than a response may be
		}
		if err := l.Unschedulable(ctx, pod(name(i)), strings.Repeat("x", size), nil); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu    sync.Mutex
		sizes []int
		lens  []int
		revs  []uint64
		nexts []uint64
	)
	c := newCollector()
	watch(t, l, 1, Filter{}, func(r *berthv1.WatchResponse) error {
		mu.Lock()
		sizes, lens, nexts = append(sizes, proto.Size(r)), append(lens, len(r.GetDecisions())), append(nexts, r.GetNextRevision())
		for _, d := range r.GetDecisions() {
			revs = append(revs, d.GetRevision())
		}
		mu.Unlock()
		return c.send(r)
	})
	c.waitNext(t, n+1)
	mu.Lock()
	defer mu.Unlock()
	for i := range revs {
		if revs[i] != uint64(i+1) {
			t.Fatalf("revisions %v, want 1..%d in order", revs, n)
		}
	}
	if len(revs) != n {
		t.Fatalf("%d decisions, want %d", len(revs), n)
	}
	for i, s := range sizes {
		if s > l.opts.MaxResponseBytes && lens[i] != 1 {
			t.Errorf("response %d: %d bytes with %d decisions, over the bound of %d", i, s, lens[i], l.opts.MaxResponseBytes)
		}
		if i > 0 && nexts[i] <= nexts[i-1] {
			t.Errorf("next_revision went from %d to %d", nexts[i-1], nexts[i])
		}
	}
	if len(sizes) < 5 {
		t.Errorf("%d responses for %d decisions of 300 bytes under a 4 KiB bound", len(sizes), n)
	}
}

// An Unschedulable decision lists at most MaxNodeReasons nodes, one of
// each rejection first, rarest first, and counts the others.
func TestNodeReasonsCapped(t *testing.T) {
	d := framework.Diagnosis{NodeToStatus: framework.NewNodeToStatus()}
	for i := range 300 {
		d.NodeToStatus.Set(fmt.Sprintf("n%03d", i), framework.NewStatus(framework.Unschedulable, "Insufficient cpu"))
	}
	d.NodeToStatus.Set("tainted-1", framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had untolerated taint {a: b}"))
	d.NodeToStatus.Set("tainted-2", framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had untolerated taint {a: b}"))
	d.NodeToStatus.Set("zz-both", framework.NewStatus(framework.Unschedulable, "Insufficient cpu", "Insufficient memory"))
	fitErr := &framework.FitError{PodKey: "ns/p", NumAllNodes: 303, Diagnosis: d}

	u := unschedulableDecision(pod("p"), fitErr.Error(), fitErr, 10).GetUnschedulable()
	var got []string
	for _, nr := range u.GetNodeReasons() {
		got = append(got, nr.GetNode())
	}
	want := []string{"n000", "n001", "n002", "n003", "n004", "n005", "n006", "tainted-1", "tainted-2", "zz-both"}
	if strings.Join(got, " ") != strings.Join(want, " ") || u.GetOmittedNodes() != 293 {
		t.Errorf("nodes %v, omitted %d; want %v, omitted 293", got, u.GetOmittedNodes(), want)
	}
	if all := unschedulableDecision(pod("p"), "", fitErr, 1000).GetUnschedulable(); len(all.GetNodeReasons()) != 303 || all.GetOmittedNodes() != 0 {
		t.Errorf("under the bound: %d nodes, %d omitted; want all 303", len(all.GetNodeReasons()), all.GetOmittedNodes())
	}
}
