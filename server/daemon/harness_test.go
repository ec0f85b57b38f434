package daemon

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/decisionlog"
)

// env is a daemon served on loopback and a client connection to it.
type env struct {
	d      *Daemon
	conn   *grpc.ClientConn
	state  berthv1.StateServiceClient
	watch  berthv1.DecisionServiceClient
	stop   context.CancelFunc
	served chan error
}

// start opens a daemon on dir and serves it until the test ends (or
// env.shutdown).
func start(t testing.TB, cfg Config, dialOpts ...grpc.DialOption) *env {
	t.Helper()
	d, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{d: d, stop: cancel, served: make(chan error, 1)}
	go func() { e.served <- d.Serve(ctx, lis, nil) }()
	if len(dialOpts) == 0 {
		dialOpts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	e.conn, err = grpc.NewClient(lis.Addr().String(), dialOpts...)
	if err != nil {
		t.Fatal(err)
	}
	e.state = berthv1.NewStateServiceClient(e.conn)
	e.watch = berthv1.NewDecisionServiceClient(e.conn)
	t.Cleanup(func() { e.shutdown(t) })
	return e
}

// shutdown stops the daemon and waits for Serve; idempotent.
func (e *env) shutdown(t testing.TB) {
	t.Helper()
	if e.stop == nil {
		return
	}
	e.stop()
	e.stop = nil
	_ = e.conn.Close()
	if err := <-e.served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// watcher collects a Watch stream's decisions.
type watcher struct {
	mu        sync.Mutex
	decisions []*berthv1.Decision
	next      uint64
	err       error
	changed   chan struct{} // closed and replaced on every response
}

// startWatch opens a watch and waits until it is established.
func (e *env) startWatch(t *testing.T, req *berthv1.WatchRequest) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	stream, err := e.watch.Watch(ctx, req, grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	w := &watcher{changed: make(chan struct{})}
	first, err := stream.Recv()
	if err != nil {
		t.Fatalf("Watch: first response: %v", err)
	}
	w.next = first.GetNextRevision()
	w.decisions = first.GetDecisions()
	go func() {
		for {
			resp, err := stream.Recv()
			w.mu.Lock()
			if err != nil {
				w.err = err
			} else {
				w.decisions = append(w.decisions, resp.GetDecisions()...)
				w.next = resp.GetNextRevision()
			}
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return w
}

// waitFor waits until cond holds over the decisions received, failing
// the test after waitLimit (a bound on a hang, not a timing assertion).
func (w *watcher) waitFor(t *testing.T, what string, cond func([]*berthv1.Decision) bool) []*berthv1.Decision {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	return w.waitUntil(ctx, t, what, cond)
}

// waitLimit bounds every wait for a decision: far above what any needs,
// so that a decision that never comes fails its test instead of hanging
// the package until go test's timeout.
const waitLimit = time.Minute

// waitUntil is waitFor, failing the test when ctx ends first.
func (w *watcher) waitUntil(ctx context.Context, t *testing.T, what string, cond func([]*berthv1.Decision) bool) []*berthv1.Decision {
	t.Helper()
	for {
		w.mu.Lock()
		ds, err, ch := append([]*berthv1.Decision(nil), w.decisions...), w.err, w.changed
		w.mu.Unlock()
		if cond(ds) {
			return ds
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("stream ended")
			}
			t.Fatalf("waiting for %s: watch failed: %v", what, err)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v; got %d decisions", what, context.Cause(ctx), len(ds))
		}
	}
}

// binds returns the pods' latest Bind nodes, by pod name.
func binds(ds []*berthv1.Decision) map[string]string {
	out := map[string]string{}
	for _, d := range ds {
		if b := d.GetBind(); b != nil {
			out[d.GetPod().GetName()] = b.GetNode()
		}
	}
	return out
}

func countType(ds []*berthv1.Decision, typ berthv1.DecisionType) int {
	n := 0
	for _, d := range ds {
		if decisionlog.TypeOf(d) == typ {
			n++
		}
	}
	return n
}

// Wire object builders.

func nodeObj(name string, cpu int64) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: name, Labels: map[string]string{model.LabelHostname: name},
		Allocatable: map[string]int64{"cpu": cpu, "memory": 8 << 30, "pods": 110},
	}}}
}

type podOpt func(*berthv1.Pod)

func withNode(n string) podOpt    { return func(p *berthv1.Pod) { p.NodeName = n } }
func withPriority(v int32) podOpt { return func(p *berthv1.Pod) { p.Priority = proto.Int32(v) } }

func podWire(name string, cpu int64, opts ...podOpt) *berthv1.Pod {
	p := &berthv1.Pod{Uid: "uid-" + name, Namespace: "default", Name: name,
		Containers: []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": cpu}}}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func podObj(p *berthv1.Pod) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: p}}
}

// syncStream opens a Sync stream; the function sends one request and
// returns its acknowledgement.
func (e *env) syncStream(t *testing.T) (berthv1.StateService_SyncClient, func(*berthv1.SyncRequest) *berthv1.SyncResponse) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	stream, err := e.state.Sync(ctx, grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return stream, func(req *berthv1.SyncRequest) *berthv1.SyncResponse {
		t.Helper()
		if err := stream.Send(req); err != nil {
			t.Fatalf("Sync send: %v", err)
		}
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("Sync ack: %v", err)
		}
		return resp
	}
}

func upserts(objs ...*berthv1.Object) []*berthv1.Mutation {
	out := make([]*berthv1.Mutation, len(objs))
	for i, o := range objs {
		out[i] = &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}}
	}
	return out
}

// quiet fails the test if a decision matching cond arrives within d.
func (w *watcher) quiet(t *testing.T, d time.Duration, what string, cond func(*berthv1.Decision) bool) {
	t.Helper()
	deadline := time.After(d)
	seen := 0
	for {
		w.mu.Lock()
		ds, ch := w.decisions[seen:], w.changed
		seen = len(w.decisions)
		w.mu.Unlock()
		for _, dec := range ds {
			if cond(dec) {
				t.Fatalf("%s: %v", what, dec)
			}
		}
		select {
		case <-ch:
		case <-deadline:
			return
		}
	}
}

// admin is an AdminService client on the env's connection.
func (e *env) admin() berthv1.AdminServiceClient { return berthv1.NewAdminServiceClient(e.conn) }

// apply upserts objects and fails the test on any refusal.
func (e *env) apply(t *testing.T, objs ...*berthv1.Object) {
	t.Helper()
	resp, err := e.state.Apply(t.Context(), &berthv1.ApplyRequest{Objects: objs})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if len(resp.GetErrors()) > 0 {
		t.Fatalf("Apply refused: %v", resp.GetErrors())
	}
}
