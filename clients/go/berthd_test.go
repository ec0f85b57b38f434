package berth

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// berthd is a real berthd process on a unix socket.
type berthd struct {
	t       *testing.T
	bin     string
	dataDir string
	sock    string
	cmd     *exec.Cmd
	stderr  bytes.Buffer
}

func buildBerthd(t *testing.T) *berthd {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "berthd")
	// berthd is in the repository's root module, two levels up.
	build := exec.Command("go", "build", "-o", bin, "./cmd/berthd")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("build berthd: %v\n%s", err, out)
	}
	return &berthd{t: t, bin: bin, dataDir: filepath.Join(dir, "data"), sock: filepath.Join(dir, "b.sock")}
}

func (b *berthd) start() {
	b.t.Helper()
	_ = os.Remove(b.sock) // left behind by a killed berthd
	b.stderr.Reset()
	b.cmd = exec.Command(b.bin, "--data-dir", b.dataDir, "--listen", "unix://"+b.sock, "--metrics-listen", "")
	b.cmd.Stderr = &b.stderr
	if err := b.cmd.Start(); err != nil {
		b.t.Fatalf("start berthd: %v", err)
	}
	b.t.Cleanup(func() { b.kill() })
}

// kill ends berthd with SIGKILL: no shutdown, no flush.
func (b *berthd) kill() {
	if b.cmd == nil || b.cmd.Process == nil || b.cmd.ProcessState != nil {
		return
	}
	_ = b.cmd.Process.Signal(syscall.SIGKILL)
	_ = b.cmd.Wait()
}

// fleet is a tiny orchestrator: the objects it holds, re-listed by its
// session, and what its watcher saw.
type fleet struct {
	mu        sync.Mutex
	objects   map[string]*berthv1.Object // pods by name, nodes by "node/"+name
	revisions []uint64
	binds     map[string][]string // pod name -> nodes it was bound to
	bound     chan string
}

func (f *fleet) list(context.Context) ([]*berthv1.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*berthv1.Object, 0, len(f.objects))
	for _, o := range f.objects {
		out = append(out, proto.Clone(o).(*berthv1.Object))
	}
	return out, nil
}

func (f *fleet) addPod(name string) *berthv1.Object {
	o := &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Namespace: "e2e", Name: name, Uid: "uid-" + name,
		Containers: []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": 100, "memory": 1 << 20}}},
	}}}
	f.mu.Lock()
	f.objects[name] = o
	f.mu.Unlock()
	return o
}

func TestWatchResumesAcrossBerthdKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs berthd")
	}
	d := buildBerthd(t)
	d.start()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	c, err := Dial(ctx, "unix://"+d.sock, WithBackoff(Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Factor: 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	f := &fleet{objects: map[string]*berthv1.Object{}, binds: map[string][]string{}, bound: make(chan string, 100)}
	f.objects["node/n1"] = &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: "n1", Allocatable: map[string]int64{"cpu": 64000, "memory": 64 << 30, "pods": 110},
	}}}
	session := c.NewSession(f.list)
	watcher := c.NewWatcher(FileCheckpoint{Path: filepath.Join(t.TempDir(), "rev")}, func(ctx context.Context, dec *berthv1.Decision) error {
		f.mu.Lock()
		f.revisions = append(f.revisions, dec.GetRevision())
		b := dec.GetBind()
		var pod *berthv1.Object
		if b != nil {
			name := dec.GetPod().GetName()
			f.binds[name] = append(f.binds[name], b.GetNode())
			if o := f.objects[name]; o != nil {
				o.GetPod().NodeName = b.GetNode()
				pod = proto.Clone(o).(*berthv1.Object)
			}
		}
		f.mu.Unlock()
		if pod == nil {
			return nil
		}
		// Confirm by re-upserting the pod with node_name set.
		if err := session.Upsert(ctx, pod); err != nil {
			return err
		}
		f.bound <- dec.GetPod().GetName()
		return nil
	}, StartAt(1))
	var wg sync.WaitGroup
	wg.Add(2)
	errs := make(chan error, 2)
	go func() { defer wg.Done(); errs <- session.Run(ctx) }()
	go func() { defer wg.Done(); errs <- watcher.Run(ctx) }()

	submit := func(names ...string) {
		objs := make([]*berthv1.Object, len(names))
		for i, n := range names {
			objs[i] = f.addPod(n)
		}
		if err := session.Upsert(ctx, objs...); err != nil {
			t.Fatalf("Upsert(%v) = %v", names, err)
		}
	}
	awaitBound := func(n int) {
		for range n {
			select {
			case <-f.bound:
			case <-ctx.Done():
				t.Fatalf("waiting for binds: %v\nberthd stderr:\n%s", ctx.Err(), d.stderr.String())
			}
		}
	}

	submit("p1", "p2", "p3")
	awaitBound(3)
	submit("p4", "p5", "p6", "p7", "p8")
	awaitBound(1)
	d.kill() // mid-watch, with binds possibly still being decided
	d.start()
	submit("p9", "p10")
	for {
		f.mu.Lock()
		n := len(f.binds)
		f.mu.Unlock()
		if n == 10 {
			break
		}
		awaitBound(1)
	}
	cancel()
	wg.Wait()

	f.mu.Lock()
	defer f.mu.Unlock()
	for name, nodes := range f.binds {
		if len(nodes) != 1 {
			t.Errorf("pod %s bound %d times (%v), want once", name, len(nodes), nodes)
		}
	}
	want := make([]uint64, 0, len(f.revisions))
	for r := uint64(1); r <= slices.Max(f.revisions); r++ {
		want = append(want, r)
	}
	if !slices.Equal(f.revisions, want) {
		t.Errorf("revisions handled = %v, want each of 1..%d once, in order", f.revisions, slices.Max(f.revisions))
	}
	t.Logf("revisions handled: %v", f.revisions)
	if t.Failed() {
		t.Logf("berthd stderr:\n%s", strings.TrimSpace(d.stderr.String()))
	}
}

// TestWatchRefusesAnotherLog restarts berthd on an empty data directory
// under the watcher: the revisions it resumes from belong to the lost log,
// so the watch must end with LOG_ID_MISMATCH instead of silently skipping
// (or replaying unrelated decisions under the same numbers).
func TestWatchRefusesAnotherLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs berthd")
	}
	d := buildBerthd(t)
	d.start()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, err := Dial(ctx, "unix://"+d.sock, WithBackoff(Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Factor: 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	node := &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{Name: "n1", Allocatable: map[string]int64{"cpu": 4000, "memory": 1 << 30, "pods": 10}}}}
	pod := &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: "u1", Namespace: "default", Name: "p1",
		Containers: []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": 100}}},
	}}}
	if _, err := c.State.Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{node, pod}}, grpc.WaitForReady(true)); err != nil {
		t.Fatal(err)
	}
	seen := make(chan struct{}, 1)
	watcher := c.NewWatcher(FileCheckpoint{Path: filepath.Join(t.TempDir(), "rev")}, func(context.Context, *berthv1.Decision) error {
		select {
		case seen <- struct{}{}:
		default:
		}
		return nil
	}, StartAt(1))
	done := make(chan error, 1)
	go func() { done <- watcher.Run(ctx) }()
	select {
	case <-seen:
	case <-ctx.Done():
		t.Fatalf("no decision: %v\n%s", ctx.Err(), d.stderr.String())
	}
	d.kill()
	if err := os.RemoveAll(d.dataDir); err != nil {
		t.Fatal(err)
	}
	d.start()
	select {
	case err := <-done:
		var info *errdetails.ErrorInfo
		if status.Code(err) != codes.FailedPrecondition || !hasReason(err, "LOG_ID_MISMATCH", &info) {
			t.Fatalf("watcher.Run = %v, want FAILED_PRECONDITION with reason LOG_ID_MISMATCH", err)
		}
	case <-ctx.Done():
		t.Fatalf("the watcher resumed against a new log without noticing\n%s", d.stderr.String())
	}
}

// hasReason reports whether err's status carries an ErrorInfo with reason.
func hasReason(err error, reason string, info **errdetails.ErrorInfo) bool {
	st, ok := status.FromError(err)
	if !ok {
		var se interface{ GRPCStatus() *status.Status }
		if !errors.As(err, &se) {
			return false
		}
		st = se.GRPCStatus()
	}
	for _, d := range st.Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok && i.GetReason() == reason {
			*info = i
			return true
		}
	}
	return false
}
