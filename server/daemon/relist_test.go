package daemon

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// killChildEnv makes TestKillChild serve a daemon: it is set only for the
// subprocess crashDaemon starts.
const killChildEnv = "BERTH_DAEMON_KILL_DIR"

// TestKillChild is the subprocess of crashDaemon: a daemon served on a
// Unix socket in the data directory until the parent kills it.
func TestKillChild(t *testing.T) {
	dir := os.Getenv(killChildEnv)
	if dir == "" {
		t.Skip("runs only as the subprocess of the kill -9 tests")
	}
	d, err := Open(context.Background(), Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "berthd.sock")
	_ = os.Remove(sock) // left by an earlier kill
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready\n")
	_ = d.Serve(context.Background(), lis, nil) // until killed
}

// crashDaemon runs a daemon on dir in a subprocess, gives run a client
// connection to it, and kills it (SIGKILL: nothing is flushed or closed).
func crashDaemon(t *testing.T, dir string, run func(conn *grpc.ClientConn)) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("the daemon subprocess did not start: %q, %v", line, err)
	}
	conn, err := grpc.NewClient("unix://"+filepath.Join(dir, "berthd.sock"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	run(conn)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true
}

// A bind awaiting its outcome stays awaiting it after a restart when the
// orchestrator's re-list sends the pod without a node (kube confirms a
// bind only when the pod is seen with spec.nodeName): explain says
// binding, the node keeps counting it, and CONFIRMED and FAILED both still
// settle it. Whether berthd stopped gracefully or was killed mid-flight.
func TestRelistWithoutNodeKeepsBindAwaiting(t *testing.T) {
	for _, tc := range []struct {
		name string
		// first runs the daemon before the restart on dir and returns
		// once p1 and p2 are bound (their Bind decisions durable).
		first func(t *testing.T, dir string)
	}{
		{name: "graceful stop", first: func(t *testing.T, dir string) {
			e := start(t, Config{DataDir: dir})
			w := e.startWatch(t, &berthv1.WatchRequest{})
			e.apply(t, nodeObj("n1", 1000), podObj(podWire("p1", 400)), podObj(podWire("p2", 400)))
			w.waitFor(t, "two binds", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 2 })
			e.shutdown(t)
		}},
		{name: "kill -9", first: func(t *testing.T, dir string) {
			crashDaemon(t, dir, func(conn *grpc.ClientConn) {
				e := &env{conn: conn, state: berthv1.NewStateServiceClient(conn), watch: berthv1.NewDecisionServiceClient(conn)}
				w := e.startWatch(t, &berthv1.WatchRequest{})
				e.apply(t, nodeObj("n1", 1000), podObj(podWire("p1", 400)), podObj(podWire("p2", 400)))
				w.waitFor(t, "two binds", func(ds []*berthv1.Decision) bool { return len(binds(ds)) == 2 })
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.first(t, dir)

			e := start(t, Config{DataDir: dir})
			w := e.startWatch(t, &berthv1.WatchRequest{})
			_, send := e.syncStream(t)
			ack := send(&berthv1.SyncRequest{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN,
				Mutations: upserts(nodeObj("n1", 1000), podObj(podWire("p1", 400)), podObj(podWire("p2", 400)))})
			ack2 := send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_END})
			if len(ack.GetErrors())+len(ack2.GetErrors()) > 0 || ack2.GetResyncDeleted() != 0 {
				t.Fatalf("re-list: %v %v", ack, ack2)
			}

			explain := func(name string) *berthv1.ExplainResponse {
				t.Helper()
				ex, err := e.admin().Explain(t.Context(), &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: name}})
				if err != nil {
					t.Fatalf("Explain %s: %v", name, err)
				}
				return ex
			}
			for _, name := range []string{"p1", "p2"} {
				if ex := explain(name); ex.GetState() != berthv1.QueueState_QUEUE_STATE_BINDING || ex.GetNode() != "n1" {
					t.Errorf("%s after the re-list without a node: state %v on %q, want BINDING on n1", name, ex.GetState(), ex.GetNode())
				}
			}
			stats, err := e.admin().QueueStats(t.Context(), &berthv1.QueueStatsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if stats.GetBinding() != 2 || stats.GetBound() != 0 {
				t.Errorf("QueueStats: %d binding, %d bound; want 2 and 0", stats.GetBinding(), stats.GetBound())
			}
			// The node still counts both: a third pod that needs their room
			// does not fit.
			e.apply(t, podObj(podWire("p3", 400)))
			w.waitFor(t, "p3 unschedulable", func(ds []*berthv1.Decision) bool {
				return countType(ds, berthv1.DecisionType_DECISION_TYPE_UNSCHEDULABLE) > 0
			})

			report := func(name string, outcome berthv1.BindOutcome) {
				t.Helper()
				ex := explain(name)
				rev := ex.GetBindRevision()
				if rev == 0 {
					rev = 1
				}
				if _, err := e.state.ReportBindResult(t.Context(), &berthv1.ReportBindResultRequest{
					Pod: ex.GetPod(), Node: "n1", Revision: rev, Outcome: outcome, Reason: "test",
				}); err != nil {
					t.Fatalf("report %s %v: %v", name, outcome, err)
				}
			}
			report("p1", berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED)
			if ex := explain("p1"); ex.GetState() != berthv1.QueueState_QUEUE_STATE_BOUND {
				t.Errorf("p1 after CONFIRMED: %v, want BOUND", ex.GetState())
			}
			report("p2", berthv1.BindOutcome_BIND_OUTCOME_FAILED)
			// p2's room is free: p3 or p2 is bound there anew.
			w.waitFor(t, "a bind after p2's failure", func(ds []*berthv1.Decision) bool { return len(binds(ds)) > 0 })
			if ex := explain("p2"); ex.GetState() == berthv1.QueueState_QUEUE_STATE_BOUND {
				t.Errorf("p2 after FAILED: BOUND, want it pending or bound anew (binding)")
			}
		})
	}
}
