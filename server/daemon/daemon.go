package daemon

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/podadmission"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/auth"
	"github.com/berthsched/berth/server/dashboard"
	"github.com/berthsched/berth/server/deadlines"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/decisionsvc"
	"github.com/berthsched/berth/server/defragsvc"
	"github.com/berthsched/berth/server/deschedulesvc"
	"github.com/berthsched/berth/server/eviction"
	"github.com/berthsched/berth/server/evictionsvc"
	"github.com/berthsched/berth/server/heldpods"
	"github.com/berthsched/berth/server/metrics"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/server/pressuresvc"
	"github.com/berthsched/berth/server/queuesvc"
	"github.com/berthsched/berth/server/statesvc"
	"github.com/berthsched/berth/server/tainteviction"
	"github.com/berthsched/berth/server/watch"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// Config configures a Daemon.
type Config struct {
	// DataDir holds the bbolt store (created if missing). Required unless
	// Store is set.
	DataDir string
	// Bbolt are the options of the bbolt store in DataDir: the lock's
	// timeout, the decision log's retention and compaction, a truncated
	// write-ahead file accepted, the file layer (tests inject faults
	// through it); a nil Logger is Logger. Unused with Store.
	Bbolt bboltstore.Options
	// Store, if set, is the store the daemon runs on instead of the bbolt
	// store in DataDir (an etcd leader's fenced store, server/replica,
	// which holds its own retention); the daemon closes it.
	Store store.Store
	// Scheduler is the scheduler configuration; nil means config.Default().
	Scheduler *config.Config
	// Plugins are plugins beyond the in-tree ones (registry.InTree), from
	// a program embedding berthd (cmd/berthd/app.WithPlugin); a name both
	// hold fails Open.
	Plugins runtime.Registry
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
	// Edge says who may call (tokens) and bounds what calls in flight
	// hold (see server.Edge).
	Edge server.Edge
	// GRPCOptions are added to the gRPC server's.
	GRPCOptions []grpc.ServerOption
	// Creds are the gRPC server's TLS, HTTPTLS the HTTP API's (the same
	// files); see server.Config.
	Creds   credentials.TransportCredentials
	HTTPTLS *tls.Config
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
	// Dashboard serves the read-only web dashboard on the metrics
	// listener (server/dashboard).
	Dashboard bool
	// Tokens, if set, guard the dashboard as the edge's tap (Edge.Authorizer)
	// guard the admin RPCs; nil leaves it open.
	Tokens *auth.Tokens
	// MetricsAuth guards /metrics with Tokens too (berthd's --metrics-auth
	// token); without Tokens it has no effect. /healthz stays open.
	MetricsAuth bool
	// DashboardSampleEvery is how often the dashboard samples the queue's
	// counts; 0 means dashboard.DefaultSampleEvery.
	DashboardSampleEvery time.Duration
	// IgnoreNodeConditions turns off taintNodesByCondition: by default
	// Berth derives from node conditions the taints Kubernetes' node
	// lifecycle controller adds (core/nodeconditions), which filtering and
	// NoExecute eviction see.
	IgnoreNodeConditions bool
	// Version is berthd's build, reported by AdminService.ServerInfo.
	Version string
	// Pressure configures node-pressure eviction (StatsService); nil means
	// the kubelet's defaults.
	Pressure *pressuresvc.Config
	// Replica, if set, is the etcd group's replica this daemon leads for
	// (server/replica): AdminService.ServerInfo reports its role.
	Replica adminsvc.Replica
	// Simulation bounds AdminService.Simulate; nil means
	// adminsvc.DefaultSimulationLimits().
	Simulation *adminsvc.SimulationLimits
	// DeschedulerPolicy is a DeschedulerPolicy document
	// (--descheduler-policy); empty: no descheduling.
	DeschedulerPolicy []byte
	// Defragment, if set (--defragment), runs the defragmenter
	// (server/defragsvc) with these settings; nil: none.
	Defragment *Defragment
	// Kueue is Kueue's Configuration (--kueue-config): fair sharing and
	// its preemption strategies, for the admission controller.
	Kueue quota.Config
	// AdmissionDebounce bounds how often admission rounds run while
	// events arrive; 0 means queuesvc.DefaultDebounce.
	AdmissionDebounce time.Duration
}

// Defragment is the defragmenter's settings; zero fields take
// defragsvc's defaults.
type Defragment struct {
	MaxMoves int           // --defragment-max-moves
	Timeout  time.Duration // --defragment-timeout: one search's deadline
	Interval time.Duration // --defragment-interval: how often pods are checked
}

// Daemon is berthd assembled. Serve it once.
type Daemon struct {
	cfg    Config
	logger *slog.Logger
	store  store.Store
	// book holds the durable per-pod facts; log encodes decisions and
	// appends them, telling the book; feed streams them to watchers.
	book *podbook.Book
	log  *decisionlog.Log
	feed *watch.Feed
	// timers are the durable deadlines (tolerationSeconds); evictor
	// evicts for every cause but preemption.
	timers  *deadlines.Timers
	evictor *eviction.Evictor
	// objects is the object store in front of the scheduler; the
	// controllers subscribe to it.
	objects *objstore.Store
	// descheduler runs --descheduler-policy; nil without one. metrics
	// counts its evictions.
	descheduler *deschedulesvc.Runner
	// defrag is the defragmenter; nil without Config.Defragment.
	defrag  *defragsvc.Service
	metrics *metrics.Metrics
	sched   *scheduler.Scheduler
	srv     *server.Server
	// dash is the dashboard; nil without Config.Dashboard.
	dash *dashboard.Dashboard
	// pressure is StatsService, node-pressure eviction.
	pressure *pressuresvc.Service
	// kueue holds the Kueue objects; queues decides their admission.
	kueue  *holder.Holder
	queues *queuesvc.Controller
	// heldPods keeps the pods of explicit Workloads sent with hold_pods;
	// heldSub is its subscription, waited on before a re-list's end
	// forgets the binds restored for pods not known.
	heldPods *heldpods.Controller
	heldSub  *objstore.Subscription
	// admissions are the Kueue admissions Restore read back, handed to
	// the controller when it is built.
	admissions []*berthv1.Admit

	// stopping ends when Serve's context does; watches end with it.
	stopping context.Context
	stop     context.CancelFunc

	// initialSync ends the hold on scheduling taken at Open until the
	// first re-list after a restart; nil when none was taken. Idempotent.
	initialSync func()
	// restarted: the data directory held an earlier run's state. relisted
	// is set by the first re-list of pods since; held while initialSync
	// has not run. Both are read by AdminService.ServerInfo.
	restarted bool
	relisted  atomic.Bool
	held      atomic.Bool
}

// Open opens the store in cfg.DataDir (failing with an error wrapping
// store.ErrLocked when another berthd holds it), restores the book of
// per-pod facts into the scheduler (restore), and builds the services. On
// failure nothing stays open.
func Open(ctx context.Context, cfg Config) (_ *Daemon, err error) {
	if cfg.DataDir == "" && cfg.Store == nil {
		return nil, errors.New("daemon: Config.DataDir is required")
	}
	cfg = cfg.withDefaults()
	d := &Daemon{cfg: cfg, logger: cfg.Logger, store: cfg.Store}
	d.stopping, d.stop = context.WithCancel(context.Background())

	if d.store == nil {
		opts := cfg.Bbolt
		if opts.Logger == nil {
			opts.Logger = cfg.Logger
		}
		d.store, err = bboltstore.Open(ctx, cfg.DataDir, opts)
		if err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, d.closeStore())
		}
	}()

	m, err := metrics.New(cfg.Registry)
	d.metrics = m
	if err == nil {
		err = exportStoreDamage(cfg.Registry, d.store)
	}
	if err != nil {
		return nil, fmt.Errorf("daemon: register metrics: %w", err)
	}
	if err := d.openLog(ctx, m); err != nil {
		return nil, err
	}
	if err := d.exportLogState(cfg.Registry); err != nil {
		return nil, fmt.Errorf("daemon: register metrics: %w", err)
	}
	attempts, reg := adminsvc.NewCounter(), registry.InTree()
	if err := reg.Merge(cfg.Plugins); err != nil {
		return nil, fmt.Errorf("daemon: Config.Plugins: %w", err)
	}
	if err := d.openScheduler(ctx, reg, m, attempts); err != nil {
		return nil, err
	}
	if err := d.restore(ctx); err != nil {
		return nil, err
	}
	pods := &bookPods{sides: newSides(d.sched)}
	outcomes := podbook.NewOutcomes(d.book, pods, cfg.Logger)
	if err := d.openObjects(outcomes, pods, d.book); err != nil {
		return nil, err
	}
	if err := d.openPressure(); err != nil {
		return nil, err
	}
	if err := d.openEvictions(); err != nil {
		return nil, err
	}
	if err := d.openQueues(reg); err != nil {
		return nil, err
	}
	cl := cluster{objects: d.objects, sched: d.sched, view: d.sched.View(), outcomes: outcomes, held: d.heldPods}
	if err := d.openServer(cl, outcomes, reg, attempts); err != nil {
		return nil, err
	}
	return d, nil
}

// openEvictions restores the durable deadlines and builds the evictor and
// the taint-eviction controller, subscribed to the object store. Deadlines fire from the first re-list
// after a restart on (podsResynced, or the initial sync timeout), so that
// one that passed while berthd was down is judged against the state the
// orchestrator re-sent; without a restart, at once.
func (d *Daemon) openEvictions() error {
	var clock deadlines.Clock = deadlines.Real{}
	if d.cfg.Clock != nil {
		clock = timersClock(d.cfg.Clock)
	}
	d.timers = deadlines.New(d.store, deadlines.Options{Clock: clock, Logger: d.logger})
	if err := d.timers.Restore(); err != nil {
		return err
	}
	if len(d.timers.List("")) > 0 {
		d.restarted = true
	}
	taints := tainteviction.New(d.objects, d.sched.View(), d.newEvictor(), d.timers, clock.Now, d.logger)
	d.objects.Subscribe(d.stopping, "taint-eviction", taints.Handle)
	if !d.restarted {
		d.timers.Start()
	}
	return nil
}

// timersClock is Config.Clock for the deadlines: its time, real waits.
type timersClock func() time.Time

func (c timersClock) Now() time.Time                         { return c() }
func (c timersClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// withDefaults fills the zero fields that have defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.Scheduler == nil {
		cfg.Scheduler = config.Default()
	}
	return cfg
}

// openLog builds the book, the decision log and its watch feed over the
// store.
func (d *Daemon) openLog(ctx context.Context, m *metrics.Metrics) error {
	d.book = podbook.New(d.store, podbook.Options{
		Logger: d.logger, ObserveCommit: m.ObserveCommit, SetAllocatedDevices: m.SetAllocatedDevices,
	})
	d.log = decisionlog.New(d.store, decisionlog.Options{Logger: d.logger, Metrics: m, Book: d.book})
	d.feed = watch.New(d.store, d.log.ID, watch.Options{Metrics: m})
	return d.log.Recover(ctx)
}

// openScheduler builds the scheduler writing its decisions to the log.
func (d *Daemon) openScheduler(ctx context.Context, reg runtime.Registry, m *metrics.Metrics, attempts *adminsvc.Counter) error {
	opts := scheduler.Options{
		Config:         d.cfg.Scheduler,
		Registry:       reg,
		Decisions:      d.log,
		GroupDecisions: true,
		Logger:         d.logger,
		Metrics:        schedulerMetrics{Metrics: m, attempts: attempts},
		// A pod held on its restored bind's node is admitted as bound.
		Admission: podadmission.Options{HeldOnNode: d.book.HeldOnNode},

		Deterministic: d.cfg.Deterministic,
	}
	if d.cfg.Clock != nil {
		opts.Clock = clockFunc(d.cfg.Clock)
	}
	var err error
	if d.sched, err = scheduler.New(ctx, opts); err != nil {
		return err
	}
	if err := metrics.RegisterPendingPods(d.cfg.Registry, func() queue.Stats { return d.sched.View().Stats().Queue }); err != nil {
		return fmt.Errorf("daemon: register metrics: %w", err)
	}
	return nil
}

// openPressure builds StatsService over the scheduler, the object store
// and the evictor, restoring the nodes' pressure states; it subscribes to
// the store's nodes.
func (d *Daemon) openPressure() error {
	pc := d.cfg.Pressure
	if pc == nil {
		def, err := pressuresvc.Settings{}.Parse()
		if err != nil {
			return err
		}
		pc = &def
	}
	var err error
	d.pressure, err = pressuresvc.New(pressuresvc.Options{
		Config: *pc, Cluster: d.sched.View(), Nodes: d.objects, Evictor: d.newEvictor(),
		Store: d.store, Registerer: d.cfg.Registry, Now: d.cfg.Clock,
	})
	if err != nil {
		return fmt.Errorf("daemon: node pressure: %w", err)
	}
	d.objects.Subscribe(d.stopping, "node-pressure", d.pressure.Handle)
	return nil
}

// newEvictor is the one evictor: the durable Evict, then the pod held
// terminating.
func (d *Daemon) newEvictor() *eviction.Evictor {
	if d.evictor == nil {
		d.evictor = eviction.New(d.log, d.sched)
	}
	return d.evictor
}

// holdForRelist keeps the scheduler from scheduling until the first
// re-list after a restart (or the initial sync timeout, in Serve).
func (d *Daemon) holdForRelist(ctx context.Context) error {
	release, err := d.sched.Hold(ctx)
	if err != nil {
		return err
	}
	var once sync.Once
	d.held.Store(true)
	d.initialSync = func() { once.Do(func() { release(); d.held.Store(false) }) }
	return nil
}

// openServer builds the gRPC server, the berth.v1 services and the
// dashboard.
func (d *Daemon) openServer(cl cluster, outcomes *podbook.Outcomes, reg runtime.Registry, attempts *adminsvc.Counter) error {
	cfg := d.cfg
	evicted := func(uid string) bool {
		_, ok := d.book.Get(podbook.KindEvict, uid)
		return ok
	}
	var descheduler adminsvc.Descheduler
	if len(cfg.DeschedulerPolicy) > 0 {
		var err error
		d.descheduler, err = deschedulesvc.New(deschedulesvc.Options{
			Policy: cfg.DeschedulerPolicy, Config: cfg.Scheduler, Registry: reg, View: d.sched.View(),
			Evictor: d.evictor, Evicted: evicted, Metrics: d.metrics, Clock: cfg.Clock, Logger: cfg.Logger,
		})
		if err != nil {
			return fmt.Errorf("daemon: descheduler policy: %w", err)
		}
		descheduler = d.descheduler
	}
	if df := cfg.Defragment; df != nil {
		var err error
		d.defrag, err = defragsvc.New(defragsvc.Options{
			Config: cfg.Scheduler, Registry: reg, View: d.sched.View(), Planner: d.sched.ControllerDecisions(), Evicted: evicted,
			MaxMoves: df.MaxMoves, Timeout: df.Timeout, Interval: df.Interval,
			Registerer: cfg.Registry, Clock: cfg.Clock, Logger: cfg.Logger,
		})
		if err != nil {
			return fmt.Errorf("daemon: defragment: %w", err)
		}
	}
	admin := adminsvc.New(d.sched.View(), adminsvc.Options{
		Config: cfg.Scheduler, Registry: reg, Revisions: revisions{d.book},
		Attempts: attempts, Logger: cfg.Logger, Version: cfg.Version, Startup: d, Replica: cfg.Replica,
		Simulation: cfg.Simulation, Stopping: d.stopping, Descheduler: descheduler,
		QueueObjects: d.objects, QueueStatus: queueStatus{d.queues}, Admission: admissionProgress{d.objects, d.queues},
	})
	var dash http.Handler
	if cfg.Dashboard {
		var err error
		if d.dash, err = d.newDashboard(admin); err != nil {
			return err
		}
		dash = d.dash
	}
	var err error
	d.srv, err = server.New(server.Config{
		Logger:          cfg.Logger,
		Registry:        cfg.Registry,
		ShutdownTimeout: cfg.ShutdownTimeout,
		Edge:            cfg.Edge,
		GRPCOptions:     cfg.GRPCOptions,
		Creds:           cfg.Creds,
		HTTPTLS:         cfg.HTTPTLS,
		Services: server.Services{
			State: statesvc.New(cl, statesvc.Options{
				Logger: cfg.Logger, MaxMutations: cfg.MaxMutations, BindReports: d.book,
				PodsResynced: func(ctx context.Context) { d.podsResynced(ctx, outcomes) },
			}),
			Decision: decisionsvc.New(d.feed, decisionsvc.Options{Stopping: d.stopping}),
			Admin:    admin,
			Stats:    d.pressure,
			Eviction: evictionsvc.New(d.sched.View(), d.evictor, evicted, bindNodes{d.book}),
		},
		Dashboard:     dash,
		MetricsTokens: cfg.MetricsTokens(),
	})
	return err
}

// MetricsTokens are the tokens guarding /metrics: Tokens with
// MetricsAuth, nil otherwise (never a nil *auth.Tokens in the interface).
// A follower replica's server uses them too.
func (cfg Config) MetricsTokens() server.TokenScopes {
	if !cfg.MetricsAuth || cfg.Tokens == nil {
		return nil
	}
	return cfg.Tokens
}

// revisions tells the admin service the revisions of binds and
// nominations, as the book holds them.
type revisions struct{ *podbook.Book }

func (r revisions) BindAwaiting(uid string) bool {
	_, ok := r.Outstanding(podbook.KindBind, uid)
	return ok
}

// bindNodes tells the eviction service where pods are binding: the node of
// their outstanding Bind, as the book holds it.
type bindNodes struct{ *podbook.Book }

func (b bindNodes) BindingTo(uid string) (string, bool) {
	r, ok := b.Outstanding(podbook.KindBind, uid)
	return r.Node, ok
}

// Serve runs the scheduling loop and serves on the listeners until ctx
// ends (nil) or serving fails. It then ends the watches, stops the server
// gracefully and the loop, writes what the log has queued and closes the
// store.
func (d *Daemon) Serve(ctx context.Context, grpcLis, metricsLis net.Listener) error {
	return d.ServeListeners(ctx, server.Listeners{GRPC: grpcLis, Metrics: metricsLis})
}

// ServeListeners is Serve with the HTTP API's listener too (l.HTTP, if
// set: server.Listeners).
func (d *Daemon) ServeListeners(ctx context.Context, l server.Listeners) error {
	stopWatches := context.AfterFunc(ctx, d.stop)
	defer stopWatches()

	loopCtx, stopLoop := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { d.sched.Run(loopCtx) })
	wg.Go(func() { d.timers.Run(loopCtx) })
	if d.dash != nil {
		wg.Go(func() { d.dash.Sample(loopCtx, d.cfg.DashboardSampleEvery) })
	}
	wg.Go(func() { d.followStoreHealth(loopCtx) })
	if d.descheduler != nil {
		wg.Go(func() { d.descheduler.Loop(loopCtx) })
	}
	if d.defrag != nil {
		wg.Go(func() { d.defrag.Loop(loopCtx) })
	}
	wg.Go(func() { d.queues.Run(loopCtx) })
	if d.initialSync != nil {
		d.logger.Info("scheduling waits for the orchestrator's re-list (RESYNC_BEGIN ... RESYNC_END of pods)", "timeout", d.cfg.InitialSyncTimeout)
		t := time.AfterFunc(d.cfg.InitialSyncTimeout, func() {
			d.logger.Warn("no re-list of pods within the initial sync timeout; scheduling starts with what was sent so far", "timeout", d.cfg.InitialSyncTimeout)
			d.initialSync()
			d.timers.Start()
			d.queues.Start()
		})
		defer t.Stop()
	}

	err := d.srv.ServeListeners(ctx, l)
	d.pressure.Close()
	d.stop()
	stopLoop()
	wg.Wait()
	return errors.Join(err, d.closeStore())
}

// newDashboard builds the dashboard over the admin service, the
// scheduler and the log.
func (d *Daemon) newDashboard(admin *adminsvc.Service) (*dashboard.Dashboard, error) {
	opts := dashboard.Options{Stopping: d.stopping, Logger: d.logger}
	if d.cfg.Tokens != nil {
		opts.Tokens = d.cfg.Tokens
	}
	if d.pressure != nil {
		opts.Pressure = d.pressure
	}
	if d.queues != nil {
		opts.Queues = queueStatus{d.queues}
	}
	if d.descheduler != nil {
		opts.Descheduler = d.descheduler
	}
	return dashboard.New(admin, d.sched.View(), d.feed, opts)
}

// podsResynced follows the end of every re-list of pods
// (statesvc.Options.PodsResynced): see resynced (restart.go).
func (d *Daemon) podsResynced(ctx context.Context, outcomes *podbook.Outcomes) {
	d.relisted.Store(true)
	if d.initialSync != nil {
		defer d.initialSync()
	}
	// The pods of the Workloads re-listed are held before the binds
	// restored for pods not known are forgotten.
	if err := d.heldSub.Wait(ctx); err != nil {
		d.logger.Error("waiting for the held pods of the re-listed Workloads", "err", err)
	}
	d.resynced(ctx, outcomes)
	d.timers.Start()
	d.queues.Relisted()
}

// AwaitingRelist says whether berthd restarted and no re-list of pods has
// ended since, and whether scheduling still waits for it
// (adminsvc.Startup).
func (d *Daemon) AwaitingRelist() (awaiting, held bool) {
	if !d.restarted || d.relisted.Load() {
		return false, false
	}
	return true, d.held.Load()
}

// Close releases what Open opened, for a Daemon that is not served.
func (d *Daemon) Close() error {
	d.stop()
	return d.closeStore()
}

// closeStore flushes the log and the book and closes the store.
func (d *Daemon) closeStore() error {
	var errs []error
	if d.log != nil {
		errs = append(errs, d.log.Close())
	}
	if d.book != nil {
		errs = append(errs, d.book.Close())
	}
	if err := d.store.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Scheduler is the daemon's scheduler, for in-process drivers and tests.
func (d *Daemon) Scheduler() *scheduler.Scheduler { return d.sched }

// Queues is the daemon's Kueue admission controller (server/queuesvc):
// its Status for the admin API and dashboard, its Settle for in-process
// drivers and tests.
func (d *Daemon) Queues() *queuesvc.Controller { return d.queues }

// Objects is the daemon's object store (core/objstore), for in-process
// drivers and tests: its Wait returns once the controllers subscribed to
// it (taint eviction, node pressure) handled every change applied before.
func (d *Daemon) Objects() *objstore.Store { return d.objects }

// Log is the daemon's decision log.
func (d *Daemon) Log() *decisionlog.Log { return d.log }

// Book is the daemon's book of per-pod facts.
func (d *Daemon) Book() *podbook.Book { return d.book }

// StorePath names the store: the data file's path, or the etcd key prefix.
func (d *Daemon) StorePath() string {
	switch st := d.store.(type) {
	case interface{ Path() string }:
		return st.Path()
	case interface{ Prefix() string }:
		return "etcd key prefix " + st.Prefix()
	}
	return ""
}
