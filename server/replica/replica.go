package replica

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/daemon"
	"github.com/berthsched/berth/server/errmap"
	"github.com/berthsched/berth/server/leader"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/etcdstore"
)

// Backoff between attempts to reach etcd.
const (
	retryMin = 100 * time.Millisecond
	retryMax = 10 * time.Second
)

// Config configures a Replica.
type Config struct {
	// Daemon is the leader's configuration, each term's; its Store and
	// Registry are set by the replica (each term has a registry of its
	// own, holding the replica's lasting metrics too).
	Daemon daemon.Config
	// Client is the etcd client; it stays the caller's.
	Client *clientv3.Client
	// Endpoints are the client's, named in errors.
	Endpoints []string
	// Prefix is the key prefix shared by the group; "" means
	// etcdstore.DefaultPrefix.
	Prefix string
	// TTL is the leader's lease; 0 means leader.DefaultTTL.
	TTL time.Duration
	// Address is this replica's advertised gRPC address. Required.
	Address string
	// HTTPAddress is this replica's advertised HTTP API address, named in
	// followers' NOT_LEADER beside Address; "" when it serves no HTTP API.
	HTTPAddress string
	// Retention is the decision log's compaction policy, applied by the
	// leader; the zero value keeps every decision. CompactInterval is how
	// often it runs; 0 means the store's default.
	Retention       store.Retention
	CompactInterval time.Duration
}

// Replica is one replica of the group. Run it once.
type Replica struct {
	cfg     Config
	logger  *slog.Logger
	elector *leader.Elector
	metrics *metrics
	leading atomic.Bool
	term    atomic.Uint64 // this replica's term while it leads
}

// New returns a Replica.
func New(cfg Config) (*Replica, error) {
	if cfg.Client == nil || cfg.Address == "" {
		return nil, errors.New("replica: Config.Client and Config.Address are required")
	}
	cfg.Prefix = cmp.Or(cfg.Prefix, etcdstore.DefaultPrefix)
	if cfg.Daemon.Logger == nil {
		cfg.Daemon.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Replica{cfg: cfg, logger: cfg.Daemon.Logger, metrics: newMetrics()}
	var err error
	r.elector, err = leader.New(leader.Options{
		Client: cfg.Client, Prefix: cfg.Prefix, TTL: cfg.TTL, Address: cfg.Address, HTTPAddress: cfg.HTTPAddress,
		OnChange: func(addr string, term uint64) {
			r.metrics.termChanges.Inc()
			r.logger.Info("leader changed", "leader", addr, "term", term)
		},
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Leading reports whether this replica leads now.
func (r *Replica) Leading() bool { return r.leading.Load() }

// Role is the replica's role, the leader's address and term
// (adminsvc.Replica).
func (r *Replica) Role() (berthv1.ReplicaRole, string, uint64) {
	if r.leading.Load() {
		return berthv1.ReplicaRole_REPLICA_ROLE_LEADER, r.cfg.Address, r.term.Load()
	}
	addr, term := r.elector.Leader()
	return berthv1.ReplicaRole_REPLICA_ROLE_FOLLOWER, addr, term
}

func (r *Replica) leaderAddress() string {
	addr, _ := r.elector.Leader()
	return addr
}

// notLeader is a follower's refusal, naming the leader's addresses as
// last observed.
func (r *Replica) notLeader() *errmap.NotLeaderError {
	addr, _ := r.elector.Leader()
	return &errmap.NotLeaderError{Leader: addr, LeaderHTTP: r.elector.LeaderHTTP()}
}

func (r *Replica) termRegistry() (*prometheus.Registry, error) { return r.metrics.registry() }

// Run serves on the listeners, as a follower or as the leader by turns,
// until ctx ends (nil) or a listener fails. It closes the listeners.
func (r *Replica) Run(ctx context.Context, grpcLis, metricsLis net.Listener) error {
	return r.RunListeners(ctx, server.Listeners{GRPC: grpcLis, Metrics: metricsLis})
}

// RunListeners is Run with the HTTP API's listener too (l.HTTP, if set):
// each role's server serves it, as it serves the others.
func (r *Replica) RunListeners(ctx context.Context, l server.Listeners) error {
	var ls listeners
	for _, p := range []struct {
		lis net.Listener
		to  **shared
	}{{l.GRPC, &ls.grpc}, {l.Metrics, &ls.metrics}, {l.HTTP, &ls.http}} {
		if p.lis != nil {
			*p.to = share(p.lis)
			defer (*p.to).Close()
		}
	}
	obsCtx, stopObserving := context.WithCancel(ctx)
	defer stopObserving()
	go r.elector.Observe(obsCtx)
	for ctx.Err() == nil {
		term, err := r.follow(ctx, ls)
		if err != nil || term == nil {
			return err
		}
		if err := r.lead(ctx, term, ls); err != nil {
			return err
		}
	}
	return nil
}

// listeners are the shared listeners; metrics and http may be nil.
type listeners struct{ grpc, metrics, http *shared }

// views returns a new server's listeners.
func (ls listeners) views() server.Listeners {
	out := server.Listeners{GRPC: ls.grpc.view()}
	if ls.metrics != nil {
		out.Metrics = ls.metrics.view()
	}
	if ls.http != nil {
		out.HTTP = ls.http.view()
	}
	return out
}

// openStore opens the shared store, retrying with backoff while etcd
// cannot be reached; nil once ctx ended.
func (r *Replica) openStore(ctx context.Context, fence *etcdstore.Fence, leading bool) (*etcdstore.Store, error) {
	opts := etcdstore.Options{
		Prefix: r.cfg.Prefix, Fence: fence, Logger: r.logger, Observe: r.metrics.observeEtcd,
		CompactInterval: -1,
	}
	if leading {
		opts.Retention, opts.CompactInterval = r.cfg.Retention, r.cfg.CompactInterval
	}
	delay := retryMin
	for {
		openCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		st, err := etcdstore.Open(openCtx, r.cfg.Client, opts)
		cancel()
		switch {
		case err == nil:
			return st, nil
		case ctx.Err() != nil:
			return nil, nil
		case errors.Is(err, store.ErrSchemaVersion), errors.Is(err, store.ErrCorrupt):
			return nil, err
		}
		r.logger.Error("cannot open the store on etcd; retrying", "endpoints", strings.Join(r.cfg.Endpoints, ","),
			"prefix", r.cfg.Prefix, "retry_in", delay, "err", err)
		if !sleep(ctx, delay) {
			return nil, nil
		}
		delay = min(2*delay, retryMax)
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// follow serves as a follower while campaigning; it returns the term once
// this replica wins, or nil once ctx ended.
func (r *Replica) follow(ctx context.Context, ls listeners) (*leader.Term, error) {
	r.setRole(false, 0)
	st, err := r.openStore(ctx, nil, false)
	if err != nil || st == nil {
		return nil, err
	}
	defer st.Close()
	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	srv, err := r.newFollowerServer(st, serveCtx)
	if err != nil {
		return nil, err
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeListeners(serveCtx, ls.views()) }()

	won := make(chan *leader.Term, 1)
	go func() { won <- r.campaign(serveCtx) }()
	select {
	case term := <-won:
		stopServing()
		serr := <-served
		if term == nil || serr != nil {
			return nil, errors.Join(serr, resign(term))
		}
		return term, nil
	case serr := <-served:
		stopServing()
		return nil, errors.Join(serr, resign(<-won))
	}
}

// campaign campaigns until this replica wins (its term) or ctx ends (nil),
// retrying with backoff while etcd cannot be reached.
func (r *Replica) campaign(ctx context.Context) *leader.Term {
	delay := retryMin
	for {
		term, err := r.elector.Campaign(ctx)
		if err == nil {
			return term
		}
		if ctx.Err() != nil {
			return nil
		}
		r.logger.Error("cannot campaign for the lead on etcd; retrying", "endpoints", strings.Join(r.cfg.Endpoints, ","),
			"retry_in", delay, "err", err)
		if !sleep(ctx, delay) {
			return nil
		}
		delay = min(2*delay, retryMax)
	}
}

// resign gives the lead up, so that another replica takes over without
// waiting for the lease to expire; a term whose session already ended
// has nothing to give up.
func resign(term *leader.Term) error {
	if term == nil {
		return nil
	}
	select {
	case <-term.Done():
		term.Abandon()
		return nil
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return term.Resign(ctx)
}

func (r *Replica) setRole(leading bool, term uint64) {
	if r.leading.Swap(leading) == leading && !leading {
		return
	}
	r.term.Store(term)
	if leading {
		r.metrics.leader.Set(1)
		r.logger.Info("this replica leads", "term", term, "address", r.cfg.Address)
	} else {
		r.metrics.leader.Set(0)
		r.logger.Info("this replica follows", "leader", r.leaderAddress())
	}
}

// lead runs the daemon for one term, until the term ends (the replica
// follows again: nil) or ctx does (it resigns).
func (r *Replica) lead(ctx context.Context, term *leader.Term, ls listeners) error {
	st, err := r.openStore(ctx, term.Fence(), true)
	if err != nil || st == nil {
		return errors.Join(err, resign(term))
	}
	reg, err := r.termRegistry()
	if err != nil {
		st.Close()
		return errors.Join(err, resign(term))
	}
	dcfg := r.cfg.Daemon
	dcfg.Store, dcfg.Registry, dcfg.Replica = st, reg, r
	d, err := daemon.Open(ctx, dcfg)
	if err != nil {
		// The term is given up; another replica, or this one again,
		// tries after a pause.
		r.logger.Error("could not start leading; resigning", "term", term.Number(), "err", err)
		_ = resign(term)
		sleep(ctx, retryMin)
		return nil
	}
	r.setRole(true, term.Number())
	termCtx, endTerm := context.WithCancel(ctx)
	defer endTerm()
	go func() {
		select {
		case <-term.Done():
			r.logger.Error("lost the lead: the lease ended; scheduling stops and this replica follows", "term", term.Number())
		case <-st.Fenced():
			r.logger.Error("lost the lead: a commit found another leader's term; scheduling stops and this replica follows", "term", term.Number())
		case <-termCtx.Done():
			return
		}
		// Stop scheduling before the server's graceful stop: the loop
		// would only make decisions the fence refuses.
		_, _ = d.Scheduler().Hold(termCtx)
		endTerm()
	}()
	serr := d.ServeListeners(termCtx, ls.views())
	r.setRole(false, 0)
	if ctx.Err() != nil {
		return errors.Join(serr, resign(term))
	}
	// The term ended on its own (or its store was fenced): resigning
	// gives up a lease etcd may still hold.
	_ = resign(term)
	return serr
}
