package replica

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/daemon"
	"github.com/berthsched/berth/store/etcdstore/etcdtest"
)

// node is one replica served on loopback, with its own etcd client (so
// that killing it stops its lease's keep-alives without revoking it).
type node struct {
	addr string
	http string // the HTTP API's address

	rep    *Replica
	cli    *clientv3.Client
	cancel context.CancelFunc
	done   chan error
	conn   *grpc.ClientConn
}

// group is replicas sharing one embedded etcd.
type group struct {
	t     *testing.T
	etcd  *etcdtest.Etcd
	ttl   time.Duration
	nodes []*node
}

func newGroup(t *testing.T, n int, ttl time.Duration) *group {
	e, _ := etcdtest.New(t)
	g := &group{t: t, etcd: e, ttl: ttl}
	for range n {
		g.nodes = append(g.nodes, g.start(""))
	}
	t.Cleanup(func() {
		for _, nd := range g.nodes {
			g.stop(nd)
		}
	})
	return g
}

// start starts a replica on addr (a free port when empty).
func (g *group) start(addr string) *node { return g.startAt(addr, g.etcd.Endpoint()) }

// startAt starts a replica on addr whose etcd client dials endpoint.
func (g *group) startAt(addr, endpoint string) *node {
	t := g.t
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var lis net.Listener
	var err error
	// The port of a killed replica may take a moment to be free again.
	for range 50 {
		if lis, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		DialKeepAliveTime: time.Second, DialKeepAliveTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	httpLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nd := &node{addr: lis.Addr().String(), http: httpLis.Addr().String(), cli: cli, done: make(chan error, 1)}
	nd.rep, err = New(Config{
		Daemon: daemon.Config{
			InitialSyncTimeout: 20 * time.Second,
			ShutdownTimeout:    100 * time.Millisecond,
			Version:            "test",
			Logger:             slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelInfo})).With("replica", lis.Addr().String()),
		},
		Client: cli, Endpoints: []string{endpoint}, Prefix: "/ha/", TTL: g.ttl, Address: nd.addr, HTTPAddress: nd.http,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	nd.cancel = cancel
	go func() { nd.done <- nd.rep.RunListeners(ctx, server.Listeners{GRPC: lis, HTTP: httpLis}) }()
	nd.conn, err = grpc.NewClient(nd.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	return nd
}

// stop stops a replica gracefully (it resigns); idempotent.
func (g *group) stop(nd *node) {
	if nd.cancel == nil {
		return
	}
	nd.cancel()
	nd.cancel = nil
	if err := <-nd.done; err != nil {
		g.t.Errorf("Run: %v", err)
	}
	nd.conn.Close()
	nd.cli.Close()
}

// kill stops a replica abruptly: its etcd client closes first, so its
// lease is neither kept alive nor revoked, and it cannot resign; the
// others take over once the lease expires. It returns at once; wait
// returns once the replica has stopped serving.
func (g *group) kill(nd *node) (wait func()) {
	nd.cli.Close()
	nd.cancel()
	nd.cancel = nil
	return func() {
		<-nd.done
		nd.conn.Close()
	}
}

// leader waits for a replica to lead and returns it.
func (g *group) leader() *node {
	g.t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, nd := range g.nodes {
			if nd.cancel != nil && nd.rep.Leading() {
				return nd
			}
		}
	}
	g.t.Fatal("no replica leads after a minute")
	return nil
}

// notLeader returns the leader named by a NOT_LEADER error, and whether err
// is one.
func notLeader(err error) (string, bool) {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.Unavailable {
		return "", false
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "NOT_LEADER" && info.GetDomain() == "berth.v1" {
			return info.GetMetadata()["leader"], true
		}
	}
	return "", false
}

// apply sends objects to a replica.
func apply(ctx context.Context, conn *grpc.ClientConn, objs ...*berthv1.Object) error {
	resp, err := berthv1.NewStateServiceClient(conn).Apply(ctx, &berthv1.ApplyRequest{Objects: objs})
	if err != nil {
		return err
	}
	if len(resp.GetErrors()) > 0 {
		return errors.New(resp.GetErrors()[0].String())
	}
	return nil
}

func nodeObj(name string, cpu int64) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: name, Labels: map[string]string{"kubernetes.io/hostname": name},
		Allocatable: map[string]int64{"cpu": cpu, "memory": 8 << 30, "pods": 110},
	}}}
}

func podObj(name string, cpu int64, node string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: "uid-" + name, Namespace: "default", Name: name, NodeName: node,
		Containers: []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": cpu}}},
	}}}
}

// testLog writes log lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(string(p))
	return len(p), nil
}
