package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// buildBerthd builds this package's binary into a temporary directory.
func buildBerthd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "berthd")
	out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// proc is a berthd subprocess.
type proc struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	exited chan struct{} // closed when the process has exited
}

func startBerthd(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), stderr: new(bytes.Buffer), exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("berthd stderr:\n%s", p.stderr)
		}
	})
	return p
}

// dial connects to a Unix socket, retrying quickly while berthd starts.
func dial(t *testing.T, sock string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+sock,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 5 * time.Millisecond, Multiplier: 1.6, MaxDelay: 50 * time.Millisecond},
			MinConnectTimeout: time.Second,
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// stream collects a watch's decisions.
type stream struct {
	mu      sync.Mutex
	got     []*berthv1.Decision
	err     error
	changed chan struct{}
}

func watchAll(t *testing.T, conn *grpc.ClientConn, from uint64) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	ws, err := berthv1.NewDecisionServiceClient(conn).Watch(ctx, &berthv1.WatchRequest{FromRevision: from}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	if _, err := ws.Recv(); err != nil { // established
		t.Fatalf("Watch: %v", err)
	}
	s := &stream{changed: make(chan struct{})}
	go func() {
		for {
			r, err := ws.Recv()
			s.mu.Lock()
			s.got = append(s.got, r.GetDecisions()...)
			s.err = err
			close(s.changed)
			s.changed = make(chan struct{})
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *stream) waitFor(t *testing.T, what string, cond func([]*berthv1.Decision) bool) []*berthv1.Decision {
	t.Helper()
	for {
		s.mu.Lock()
		got, err, ch := append([]*berthv1.Decision(nil), s.got...), s.err, s.changed
		s.mu.Unlock()
		if cond(got) {
			return got
		}
		if err != nil {
			t.Fatalf("waiting for %s: %v (after %d decisions)", what, err, len(got))
		}
		select {
		case <-ch:
		case <-t.Context().Done():
			t.Fatalf("waiting for %s: test ended after %d decisions", what, len(got))
		}
	}
}

func wireNode(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: name, Labels: map[string]string{model.LabelHostname: name},
		Allocatable: map[string]int64{"cpu": 4000, "memory": 8 << 30, "pods": 110},
	}}}
}

func wirePod(name, node string, priority int32) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: "uid-" + name, Namespace: "default", Name: name, NodeName: node, Priority: proto.Int32(priority),
		Containers: []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": 500}}},
	}}}
}

// syncAll sends objects through one Sync stream in batches and checks
// every ack.
func syncAll(t *testing.T, conn *grpc.ClientConn, objs []*berthv1.Object) {
	t.Helper()
	sendAll(t, conn, objs, false)
}

// resyncAll is syncAll bracketed by resync markers: a full re-list.
func resyncAll(t *testing.T, conn *grpc.ClientConn, objs []*berthv1.Object) {
	t.Helper()
	sendAll(t, conn, objs, true)
}

func sendAll(t *testing.T, conn *grpc.ClientConn, objs []*berthv1.Object, resync bool) {
	t.Helper()
	s, err := berthv1.NewStateServiceClient(conn).Sync(t.Context(), grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	var reqs []*berthv1.SyncRequest
	const batch = 16
	for i := 0; i < len(objs); i += batch {
		req := &berthv1.SyncRequest{}
		for _, o := range objs[i:min(i+batch, len(objs))] {
			req.Mutations = append(req.Mutations, &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}})
		}
		reqs = append(reqs, req)
	}
	if resync {
		reqs = append([]*berthv1.SyncRequest{{Resync: berthv1.Resync_RESYNC_BEGIN}}, reqs...)
		reqs = append(reqs, &berthv1.SyncRequest{Resync: berthv1.Resync_RESYNC_END})
	}
	for i, req := range reqs {
		req.BatchId = uint64(i + 1)
		if err := s.Send(req); err != nil {
			t.Fatalf("Sync send: %v", err)
		}
		ack, err := s.Recv()
		if err != nil {
			t.Fatalf("Sync ack: %v", err)
		}
		if len(ack.GetErrors()) > 0 {
			t.Fatalf("Sync refused: %v", ack.GetErrors())
		}
	}
	if err := s.CloseSend(); err != nil {
		t.Fatal(err)
	}
}

func bindsByPod(ds []*berthv1.Decision) map[string]*berthv1.Decision {
	out := map[string]*berthv1.Decision{}
	for _, d := range ds {
		if d.GetBind() != nil {
			out[d.GetPod().GetName()] = d
		}
	}
	return out
}

// kill -9 berthd mid-run and restart it on the same data directory: berthd
// verify finds it sound, every decision sent before comes back with the
// same revision and content, the nomination is restored, binds that
// awaited an outcome are not made again, and a second berthd on the
// directory is refused.
func TestCrashRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs berthd")
	}
	bin := buildBerthd(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "berthd.sock")
	dataDir := filepath.Join(dir, "data")
	args := []string{"--listen", "unix://" + sock, "--metrics-listen", "", "--data-dir", dataDir}

	first := startBerthd(t, bin, args...)
	conn := dial(t, sock)
	w := watchAll(t, conn, 0)

	// 4 nodes of 4000m and 32 pods of 500m fill the cluster.
	const pods = 32
	objs := []*berthv1.Object{wireNode("n1"), wireNode("n2"), wireNode("n3"), wireNode("n4")}
	for i := range pods {
		objs = append(objs, wirePod(fmt.Sprintf("p%02d", i), "", 0))
	}
	syncAll(t, conn, objs)
	ds := w.waitFor(t, "every pod bound", func(ds []*berthv1.Decision) bool { return len(bindsByPod(ds)) == pods })

	// Confirm half the binds; the other half await an outcome.
	bound := bindsByPod(ds)
	var confirm []*berthv1.Object
	for name, d := range bound {
		if name < "p16" {
			confirm = append(confirm, wirePod(name, d.GetBind().GetNode(), 0))
		}
	}
	syncAll(t, conn, confirm)

	// A pod of higher priority preempts: Evict, then Nominate. The victim
	// is not deleted, so the nomination stays.
	syncAll(t, conn, []*berthv1.Object{wirePod("vip", "", 1000)})
	ds = w.waitFor(t, "a nomination", func(ds []*berthv1.Decision) bool {
		for _, d := range ds {
			if d.GetNominate() != nil {
				return true
			}
		}
		return false
	})
	var nominated, victim string
	for _, d := range ds {
		if n := d.GetNominate(); n != nil {
			nominated = n.GetNode()
		}
		if e := d.GetEvict(); e != nil {
			victim = e.GetVictim().GetName()
		}
	}

	// A second berthd on the same directory is refused.
	second := exec.CommandContext(t.Context(), bin, "--listen", "unix://"+filepath.Join(dir, "other.sock"), "--metrics-listen", "", "--data-dir", dataDir)
	out, err := second.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another berthd is using the data dir") {
		t.Errorf("second berthd on the same dir: err=%v, output:\n%s", err, out)
	}

	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.exited
	sent := ds

	// berthd verify finds the directory a kill -9 left sound: the groups
	// bbolt lacks are in the write-ahead file, to replay.
	if out, err := exec.CommandContext(t.Context(), bin, "verify", "--data-dir", dataDir).CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "result:          ok") {
		t.Errorf("berthd verify after kill -9: %v\n%s", err, out)
	}

	startBerthd(t, bin, args...)
	conn2 := dial(t, sock)
	replay := watchAll(t, conn2, 1).waitFor(t, "the replay", func(got []*berthv1.Decision) bool { return len(got) >= len(sent) })
	for i, d := range sent {
		if !proto.Equal(d, replay[i]) {
			t.Fatalf("decision %d changed across the restart:\nbefore %v\nafter  %v", i, d, replay[i])
		}
	}

	// The orchestrator re-lists (a resync: scheduling waits for its end):
	// confirmed pods with node_name, the others still without, the victim
	// as terminating (it acted on the Evict).
	// Only vip is pending: no pod is placed twice.
	relist := []*berthv1.Object{wireNode("n1"), wireNode("n2"), wireNode("n3"), wireNode("n4")}
	for name, d := range bound {
		node := ""
		if name < "p16" || name == victim {
			node = d.GetBind().GetNode()
		}
		o := wirePod(name, node, 0)
		o.GetPod().Terminating = name == victim
		relist = append(relist, o)
	}
	relist = append(relist, wirePod("vip", "", 1000))
	resyncAll(t, conn2, relist)
	admin := berthv1.NewAdminServiceClient(conn2)
	pending, err := admin.ListPending(t.Context(), &berthv1.ListPendingRequest{})
	if err != nil {
		t.Fatalf("ListPending: %v", err)
	}
	// The pods re-listed without a node whose binds await their outcome
	// are listed binding on their bind's node, as before the restart.
	for _, p := range pending.GetPods() {
		name := p.GetPod().GetName()
		if p.GetState() == berthv1.QueueState_QUEUE_STATE_BINDING && name >= "p16" && p.GetNode() == bound[name].GetBind().GetNode() {
			continue
		}
		if name != "vip" {
			t.Errorf("%s is pending after the restart (state %v): its bind would be made twice", name, p.GetState())
		}
	}

	// vip has its nomination back: with its victim terminating there it
	// does not preempt again, it waits.
	noms, err := admin.ListNominations(t.Context(), &berthv1.ListNominationsRequest{})
	if err != nil {
		t.Fatalf("ListNominations: %v", err)
	}
	if len(noms.GetNominations()) != 1 || noms.GetNominations()[0].GetNode() != nominated || noms.GetNominations()[0].GetPod().GetName() != "vip" {
		t.Errorf("nominations after restart: %v, want vip on %s", noms.GetNominations(), nominated)
	}

	// A bind from before the crash is confirmed with its revision.
	late := bound["p20"]
	if _, err := berthv1.NewStateServiceClient(conn2).ReportBindResult(t.Context(), &berthv1.ReportBindResultRequest{
		Pod: late.GetPod(), Node: late.GetBind().GetNode(), Revision: late.GetRevision(),
		Outcome: berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED,
	}); err != nil {
		t.Errorf("confirm a bind made before the crash: %v", err)
	}

	// The victim goes; vip is bound where it was nominated, and nothing
	// else was bound since the restart.
	if _, err := berthv1.NewStateServiceClient(conn2).Delete(t.Context(), &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{{
		Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "default", Name: victim,
	}}}); err != nil {
		t.Fatalf("Delete victim: %v", err)
	}
	after := watchAll(t, conn2, uint64(len(sent))+1).waitFor(t, "vip bound", func(ds []*berthv1.Decision) bool {
		return bindsByPod(ds)["vip"] != nil
	})
	for name, d := range bindsByPod(after) {
		if name != "vip" || d.GetBind().GetNode() != nominated {
			t.Errorf("after the restart %s was bound to %s; want only vip, to %s", name, d.GetBind().GetNode(), nominated)
		}
	}
}
