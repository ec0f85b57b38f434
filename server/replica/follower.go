package replica

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/decisionsvc"
	"github.com/berthsched/berth/server/errmap"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/server/watch"
	"github.com/berthsched/berth/store"
)

// errReadOnly is what a follower's store answers a write with: only the
// leader writes, through its fenced store. Nothing in the follower should
// reach it; it guards "never write unfenced".
var errReadOnly = errors.New("replica: a follower's store is read-only")

// readOnly is a follower's view of the shared store.
type readOnly struct{ store.Store }

func (readOnly) Commit(context.Context, *store.Batch) (store.CommitResult, error) {
	return store.CommitResult{}, errReadOnly
}

func (readOnly) Compact(context.Context) (int, error) { return 0, errReadOnly }

// catchUp bounds how long a follower's Watch waits for its store to reach
// the revision a client resumes from: a client that read revision N on the
// leader may resume here a moment before this replica's etcd watch
// brings N.
const catchUp = 2 * time.Second

// sharedLogID is the identity of the shared log as the follower last read
// it; empty until a leader has written it.
type sharedLogID struct {
	mu sync.Mutex
	id string
}

func (s *sharedLogID) get() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// read reads the identity from st, keeping it once found.
func (s *sharedLogID) read(st store.Store) error {
	id, found, err := decisionlog.ReadID(st)
	if err != nil || !found {
		return err
	}
	s.mu.Lock()
	s.id = id
	s.mu.Unlock()
	return nil
}

// followerWatcher serves Watch from the shared log, reading its identity
// again until a leader has written it.
type followerWatcher struct {
	feed  *watch.Feed
	id    *sharedLogID
	store store.Store
}

// newFollowerWatcher reads the shared log in st; it fails only if the
// log's identity cannot be read (it may not be written yet).
func newFollowerWatcher(st store.Store) (followerWatcher, error) {
	id := new(sharedLogID)
	if err := id.read(st); err != nil {
		return followerWatcher{}, fmt.Errorf("replica: read the log id: %w", err)
	}
	return followerWatcher{feed: watch.New(st, id.get, watch.Options{}), id: id, store: st}, nil
}

func (w followerWatcher) ID() string { return w.id.get() }

func (w followerWatcher) Watch(ctx context.Context, from uint64, logID string, f watch.Filter, send watch.Send) error {
	if _, last := w.store.Revisions(); from > last+1 {
		wctx, cancel := context.WithTimeout(ctx, catchUp)
		_ = w.store.Wait(wctx, from-2) // if it times out, Watch says how far the log is
		cancel()
	}
	if w.id.get() == "" {
		if err := w.id.read(w.store); err != nil {
			return fmt.Errorf("replica: read the log id: %w", err)
		}
	}
	return w.feed.Watch(ctx, from, logID, f, send)
}

// followerAdmin answers what a follower serves of AdminService
// (followerServes): ServerInfo, and ListNominations from the shared store.
type followerAdmin struct {
	berthv1.UnimplementedAdminServiceServer
	version string
	replica *Replica
	store   podbook.Lister
}

func (a followerAdmin) ServerInfo(context.Context, *berthv1.ServerInfoRequest) (*berthv1.ServerInfoResponse, error) {
	resp := &berthv1.ServerInfoResponse{Version: a.version}
	resp.Role, resp.Leader, resp.Term = a.replica.Role()
	return resp, nil
}

// ListNominations reads etcd at each call: a linearizable read, so it
// shows every nomination the leader has made durable, even ahead of this
// replica's watch.
func (a followerAdmin) ListNominations(_ context.Context, req *berthv1.ListNominationsRequest) (*berthv1.ListNominationsResponse, error) {
	return adminsvc.ListStoredNominations(req, func() ([]queue.Nomination, error) {
		return podbook.ReadNominations(a.store)
	})
}

// followerServes is the table of what a follower answers itself: its own
// role, and what the leader keeps whole in the shared store (the log, the
// nominations). Every other call writes, or reads what only the leader's
// memory holds (the nodes and pods the orchestrator sent, the queue and
// its attempts, claims not allocated, node stats), and is answered
// NOT_LEADER. Keep docs/high-availability.md and the proto comments
// (ReplicaRole, ListNominations) in step.
func followerServes(method string) bool {
	switch method {
	case berthv1.DecisionService_Watch_FullMethodName, // the log, in revision order
		berthv1.AdminService_ServerInfo_FullMethodName,      // the replica's own role
		berthv1.AdminService_ListNominations_FullMethodName: // store.Nominations
		return true
	}
	return strings.HasPrefix(method, "/grpc.health.") || strings.HasPrefix(method, "/grpc.reflection.")
}

// refuseWrites refuses the calls a follower does not serve with UNAVAILABLE
// and an ErrorInfo NOT_LEADER naming the leader.
func refuseWrites(notLeader func() *errmap.NotLeaderError) []grpc.ServerOption {
	refuse := func(method string) error {
		if followerServes(method) {
			return nil
		}
		return errmap.Status(notLeader())
	}
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := refuse(info.FullMethod); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := refuse(info.FullMethod); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}
}

// newFollowerServer builds a follower's gRPC server over the shared store:
// the calls of followerServes served, the others refused, health
// reporting SERVING overall and NOT_SERVING for the leader's services.
func (r *Replica) newFollowerServer(st store.Store, stopping context.Context) (*server.Server, error) {
	cfg := r.cfg.Daemon
	watcher, err := newFollowerWatcher(readOnly{st})
	if err != nil {
		return nil, err
	}
	reg, err := r.termRegistry()
	if err != nil {
		return nil, err
	}
	srv, err := server.New(server.Config{
		Logger:          cfg.Logger,
		Registry:        reg,
		ShutdownTimeout: cfg.ShutdownTimeout,
		Edge:            cfg.Edge,
		GRPCOptions:     append(append([]grpc.ServerOption(nil), cfg.GRPCOptions...), refuseWrites(r.notLeader)...),
		Creds:           cfg.Creds,
		HTTPTLS:         cfg.HTTPTLS,
		Services: server.Services{
			Decision: decisionsvc.New(watcher, decisionsvc.Options{Stopping: stopping}),
			Admin:    followerAdmin{version: cfg.Version, replica: r, store: st},
		},
		MetricsTokens: cfg.MetricsTokens(),
	})
	if err != nil {
		return nil, err
	}
	srv.SetLeader(false)
	return srv, nil
}
