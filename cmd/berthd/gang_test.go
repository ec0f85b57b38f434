package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func wireGroup(name string, min int32) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_PodGroup{PodGroup: &berthv1.PodGroup{Namespace: "default", Name: name, MinCount: min}}}
}

// wireMember is a 2000m pod of group g, bound to node when node is set.
func wireMember(g string, i int, node string) *berthv1.Object {
	o := wirePod(fmt.Sprintf("%s-%d", g, i), node, 0)
	o.GetPod().SchedulingGroup = g
	o.GetPod().Containers[0].Requests["cpu"] = 2000
	return o
}

// groupBinds returns the Binds of group g's members, in log order.
func groupBinds(ds []*berthv1.Decision, g string) []*berthv1.Decision {
	var out []*berthv1.Decision
	for _, d := range ds {
		if d.GetBind().GetGroup() == g {
			out = append(out, d)
		}
	}
	return out
}

// Two groups of 4 on a cluster that fits one (2 nodes of 4000m, members
// of 2000m): exactly one is bound, in one commit (consecutive revisions),
// the other waits holding nothing; once the first group's pods are deleted
// the second is bound. With kill, berthd is killed (SIGKILL) and restarted
// on its data directory between the two.
func TestGangTwoGroupsLive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs berthd")
	}
	bin := buildBerthd(t)
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprintf("kill=%v", kill), func(t *testing.T) { gangTwoGroups(t, bin, kill) })
	}
}

func gangTwoGroups(t *testing.T, bin string, kill bool) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "berthd.sock")
	args := []string{"--listen", "unix://" + sock, "--metrics-listen", "", "--data-dir", filepath.Join(dir, "data")}
	p := startBerthd(t, bin, args...)
	conn := dial(t, sock)
	w := watchAll(t, conn, 0)

	nodes := []*berthv1.Object{wireNode("n1"), wireNode("n2")}
	objs := append(slices.Clone(nodes), wireGroup("a", 4), wireGroup("b", 4))
	for i := range 4 {
		objs = append(objs, wireMember("a", i, ""), wireMember("b", i, ""))
	}
	syncAll(t, conn, objs)
	unschedulable := func(g string) func([]*berthv1.Decision) bool {
		return func(ds []*berthv1.Decision) bool {
			n := 0
			for _, d := range ds {
				if d.GetUnschedulable() != nil && d.GetPod().GetName()[:1] == g {
					n++
				}
			}
			return n >= 4
		}
	}
	// a's members are older by name order only; whichever group goes
	// first, the other must get no bind and report unschedulable.
	ds := w.waitFor(t, "one group bound", func(ds []*berthv1.Decision) bool {
		return len(groupBinds(ds, "a")) == 4 || len(groupBinds(ds, "b")) == 4
	})
	first, second := "a", "b"
	if len(groupBinds(ds, "b")) == 4 {
		first, second = "b", "a"
	}
	ds = w.waitFor(t, "the other group unschedulable", unschedulable(second))
	checkOneCommit(t, groupBinds(ds, first))
	if n := len(groupBinds(ds, second)); n != 0 {
		t.Fatalf("group %s got %d binds on a cluster with room for one group", second, n)
	}

	// The orchestrator runs the first group: its pods come back bound.
	bound := slices.Clone(nodes)
	bound = append(bound, wireGroup("a", 4), wireGroup("b", 4))
	for _, d := range groupBinds(ds, first) {
		o := wireMember(first, 0, d.GetBind().GetNode())
		o.GetPod().Name, o.GetPod().Uid = d.GetPod().GetName(), d.GetPod().GetUid()
		bound = append(bound, o)
	}
	for i := range 4 {
		bound = append(bound, wireMember(second, i, ""))
	}
	syncAll(t, conn, bound)

	if kill {
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-p.exited
		startBerthd(t, bin, args...)
		conn = dial(t, sock)
		w = watchAll(t, conn, 0)
		resyncAll(t, conn, bound) // the re-list after the restart
		waitTried(t, conn, second)
		if n := len(groupBinds(w.waitFor(t, "nothing", func([]*berthv1.Decision) bool { return true }), second)); n != 0 {
			t.Fatalf("after the restart group %s got %d binds while the first group runs", second, n)
		}
	}
	// The first group's job ends: its pods are deleted.
	var dels []*berthv1.Mutation
	for _, d := range groupBinds(ds, first) {
		dels = append(dels, &berthv1.Mutation{Op: &berthv1.Mutation_Delete{Delete: &berthv1.ObjectRef{
			Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "default", Name: d.GetPod().GetName()}}})
	}
	s, err := berthv1.NewStateServiceClient(conn).Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(&berthv1.SyncRequest{BatchId: 1, Mutations: dels}); err != nil {
		t.Fatal(err)
	}
	if ack, err := s.Recv(); err != nil || len(ack.GetErrors()) > 0 {
		t.Fatalf("deleting group %s: %v %v", first, err, ack.GetErrors())
	}
	ds = w.waitFor(t, "the second group bound", func(ds []*berthv1.Decision) bool { return len(groupBinds(ds, second)) == 4 })
	checkOneCommit(t, groupBinds(ds, second))
}

// waitTried waits until every member of group g pending has been tried
// since berthd started (and failed: it is still pending).
func waitTried(t *testing.T, conn *grpc.ClientConn, g string) {
	t.Helper()
	admin := berthv1.NewAdminServiceClient(conn)
	for {
		resp, err := admin.ListPending(t.Context(), &berthv1.ListPendingRequest{})
		if err != nil {
			t.Fatalf("ListPending: %v", err)
		}
		tried := 0
		for _, p := range resp.GetPods() {
			if strings.HasPrefix(p.GetPod().GetName(), g+"-") && p.GetAttempts() > 0 {
				tried++
			}
		}
		if tried == 4 {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("group %s was not tried after the restart: %v", g, resp.GetPods())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// checkOneCommit: a group's binds have consecutive revisions and one
// commit time.
func checkOneCommit(t *testing.T, binds []*berthv1.Decision) {
	t.Helper()
	for i, d := range binds[1:] {
		prev := binds[i]
		if d.GetRevision() != prev.GetRevision()+1 || !d.GetTime().AsTime().Equal(prev.GetTime().AsTime()) {
			t.Errorf("binds of one group in separate commits: %v then %v", prev, d)
		}
	}
}
