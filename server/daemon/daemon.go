package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/decisionsvc"
	"github.com/berthsched/berth/server/metrics"
	"github.com/berthsched/berth/server/statesvc"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// Config configures a Daemon.
type Config struct {
	// DataDir holds the store (created if missing). Required.
	DataDir string
	// Scheduler is the scheduler configuration; nil means config.Default().
	Scheduler *config.Config
	// Retention is the decision log's compaction policy; the zero value
	// keeps every decision.
	Retention store.Retention
	// CompactInterval is how often the policy runs; 0 means the store's
	// default.
	CompactInterval time.Duration
	// LockTimeout bounds the wait for the data directory's lock; 0 means
	// the store's default.
	LockTimeout time.Duration
	// MaxMutations bounds the mutations of one state request; 0: none.
	MaxMutations int
	// Logger defaults to discarding.
	Logger *slog.Logger
	// Registry receives every metric and is served on /metrics; nil makes
	// a new one.
	Registry *prometheus.Registry
	// ShutdownTimeout bounds the graceful stop of RPCs; 0 means the
	// server's default.
	ShutdownTimeout time.Duration
	// GRPCOptions are added to the gRPC server's (TLS, auth interceptors).
	GRPCOptions []grpc.ServerOption
	// Clock is the scheduler's clock; nil means real time.
	Clock func() time.Time
	// Deterministic makes the scheduler break score ties by the smallest
	// node name and run plugins one at a time, so that its decisions are
	// those of berthctl simulate on the same input (benchmarks, tests).
	Deterministic bool
	// InitialSyncTimeout is how long, after a restart, scheduling waits
	// for the orchestrator's first re-list (the first RESYNC_END covering
	// pods, on any stream) before it starts anyway, as kube-scheduler
	// waits for its caches to sync: until the running pods are back, the
	// nodes look emptier than they are and restored nominations reserve
	// nothing. It applies only when the data directory holds an earlier
	// run's decisions; 0 does not wait.
	InitialSyncTimeout time.Duration
	// AcceptTruncatedLog opens a data directory whose write-ahead file
	// lost acknowledged decisions, serving the shortened history, instead
	// of failing with a *store.LogTruncatedError.
	AcceptTruncatedLog bool
	// StoreFS is the store's file layer; nil means the operating system's
	// (tests inject faults through it).
	StoreFS bboltstore.FS
}

// Daemon is berthd assembled. Serve it once.
type Daemon struct {
	cfg    Config
	logger *slog.Logger
	store  *bboltstore.Store
	log    *decisionlog.Log
	sched  *scheduler.Scheduler
	srv    *server.Server

	// stopping ends when Serve's context does; watches end with it.
	stopping context.Context
	stop     context.CancelFunc

	// initialSync ends the hold on scheduling taken at Open until the
	// first re-list after a restart; nil when none was taken. Idempotent.
	initialSync func()
}

// Open opens the store in cfg.DataDir (failing with an error wrapping
// store.ErrLocked when another berthd holds it), restores the nominations
// and the binds awaiting an outcome, and builds the scheduler and the
// services. On failure nothing stays open.
func Open(ctx context.Context, cfg Config) (_ *Daemon, err error) {
	if cfg.DataDir == "" {
		return nil, errors.New("daemon: Config.DataDir is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.Scheduler == nil {
		cfg.Scheduler = config.Default()
	}
	d := &Daemon{cfg: cfg, logger: cfg.Logger}
	d.stopping, d.stop = context.WithCancel(context.Background())

	d.store, err = bboltstore.Open(ctx, cfg.DataDir, bboltstore.Options{
		LockTimeout:     cfg.LockTimeout,
		Retention:       cfg.Retention,
		CompactInterval: cfg.CompactInterval,
		Logger:          cfg.Logger,

		AcceptTruncatedLog: cfg.AcceptTruncatedLog,
		FS:                 cfg.StoreFS,
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, d.closeStore())
		}
	}()

	m, err := metrics.New(cfg.Registry)
	if err != nil {
		return nil, fmt.Errorf("daemon: register metrics: %w", err)
	}
	d.log = decisionlog.New(d.store, decisionlog.Options{
		Logger: cfg.Logger, Metrics: m,
		// d.sched is set below, before anything is scheduled.
		BindWanted: func(pod *model.Pod) bool { return d.sched.Binding(pod) },
	})
	rec, err := d.log.Recover(ctx)
	if err != nil {
		return nil, err
	}
	attempts := adminsvc.NewCounter()
	reg := registry.InTree()
	schedOpts := scheduler.Options{
		Config:    cfg.Scheduler,
		Registry:  reg,
		Decisions: d.log,
		Reporter:  d.log,
		Logger:    cfg.Logger,
		Metrics:   schedulerMetrics{Metrics: m, attempts: attempts},

		Deterministic: cfg.Deterministic,
	}
	if cfg.Clock != nil {
		schedOpts.Clock = clockFunc(cfg.Clock)
	}
	d.sched, err = scheduler.New(ctx, schedOpts)
	if err != nil {
		return nil, err
	}
	d.sched.RestoreNominations(rec.Nominations)
	d.sched.RestoreEvictions(rec.Evicted)
	if err := metrics.RegisterPendingPods(cfg.Registry, func() queue.Stats { return d.sched.Stats().Queue }); err != nil {
		return nil, fmt.Errorf("daemon: register metrics: %w", err)
	}
	first, last := d.store.Revisions()
	cfg.Logger.Info("data directory open", "path", d.store.Path(), "log_id", d.log.ID(), "first_revision", first, "last_revision", last,
		"nominations", len(rec.Nominations), "binds_awaiting_outcome", len(rec.Binds), "evictions_pending", len(rec.Evicted))
	if cfg.InitialSyncTimeout > 0 && (last > 0 || len(rec.Nominations) > 0 || len(rec.Binds) > 0 || len(rec.Evicted) > 0) {
		release, err := d.sched.Hold(ctx)
		if err != nil {
			return nil, err
		}
		var once sync.Once
		d.initialSync = func() { once.Do(release) }
	}

	cl := &cluster{Scheduler: d.sched, log: d.log, logger: cfg.Logger}
	d.srv, err = server.New(server.Config{
		Logger:          cfg.Logger,
		Registry:        cfg.Registry,
		ShutdownTimeout: cfg.ShutdownTimeout,
		GRPCOptions:     cfg.GRPCOptions,
		Services: server.Services{
			State: statesvc.New(cl, statesvc.Options{
				Logger: cfg.Logger, MaxMutations: cfg.MaxMutations, BindRevisions: d.log,
				PodsResynced: func(ctx context.Context) { d.podsResynced(ctx, cl) },
			}),
			Decision: decisionsvc.New(d.log, decisionsvc.Options{Stopping: d.stopping}),
			Admin: adminsvc.New(cl, adminsvc.Options{
				Config: cfg.Scheduler, Registry: reg, Revisions: d.log, Attempts: attempts, Logger: cfg.Logger,
			}),
		},
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Serve runs the scheduling loop and serves on the listeners until ctx
// ends (nil) or serving fails. It then ends the watches, stops the server
// gracefully and the loop, writes what the log has queued and closes the
// store.
func (d *Daemon) Serve(ctx context.Context, grpcLis, metricsLis net.Listener) error {
	stopWatches := context.AfterFunc(ctx, d.stop)
	defer stopWatches()

	loopCtx, stopLoop := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { d.sched.Run(loopCtx) })
	wg.Go(func() { d.followStoreHealth(loopCtx) })
	if d.initialSync != nil {
		d.logger.Info("scheduling waits for the orchestrator's re-list (RESYNC_BEGIN ... RESYNC_END of pods)", "timeout", d.cfg.InitialSyncTimeout)
		t := time.AfterFunc(d.cfg.InitialSyncTimeout, func() {
			d.logger.Warn("no re-list of pods within the initial sync timeout; scheduling starts with what was sent so far", "timeout", d.cfg.InitialSyncTimeout)
			d.initialSync()
		})
		defer t.Stop()
	}

	err := d.srv.Serve(ctx, grpcLis, metricsLis)
	d.stop()
	stopLoop()
	wg.Wait()
	return errors.Join(err, d.closeStore())
}

// podsResynced follows the end of every re-list of pods
// (statesvc.Options.PodsResynced): each forgets the binds, nominations,
// evictions and Unschedulable messages restored for pods that were not
// re-sent, and the first then releases the initial hold on scheduling, so
// that no cycle sees what is being forgotten.
func (d *Daemon) podsResynced(ctx context.Context, cl *cluster) {
	if d.initialSync != nil {
		defer d.initialSync()
	}
	cl.forgetStaleEvictions(ctx)
	binds, err := d.log.ForgetUnknown(ctx, func(uid string) bool {
		_, ok := d.sched.Pod(uid)
		return ok
	})
	if err != nil {
		d.logger.Error("forgetting the restored state of pods not re-listed failed", "err", err)
	}
	noms := d.sched.ForgetUnknownNominations()
	if binds > 0 || noms > 0 {
		d.logger.Info("re-list complete: forgot the binds and nominations restored for pods not re-sent", "binds", binds, "nominations", noms)
	}
}

// Close releases what Open opened, for a Daemon that is not served.
func (d *Daemon) Close() error {
	d.stop()
	return d.closeStore()
}

// closeStore flushes the log and closes the store.
func (d *Daemon) closeStore() error {
	var errs []error
	if d.log != nil {
		errs = append(errs, d.log.Close())
	}
	if err := d.store.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Scheduler is the daemon's scheduler, for in-process drivers and tests.
func (d *Daemon) Scheduler() *scheduler.Scheduler { return d.sched }

// Log is the daemon's decision log.
func (d *Daemon) Log() *decisionlog.Log { return d.log }

// StorePath is the data file's path.
func (d *Daemon) StorePath() string { return d.store.Path() }
