package decisionlog

import (
	"fmt"
	"strings"
	"testing"

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
