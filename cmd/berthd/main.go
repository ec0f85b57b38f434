package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/berthsched/berth/cmd/internal/version"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/auth"
	"github.com/berthsched/berth/server/daemon"
	"github.com/berthsched/berth/server/intake"
	"github.com/berthsched/berth/server/pressuresvc"
	"github.com/berthsched/berth/store"
)

// storeLockTimeout is how long berthd waits for the data directory's lock.
const storeLockTimeout = time.Second

// defaultInitialSyncTimeout is --initial-sync-timeout's default.
const defaultInitialSyncTimeout = 5 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	if len(os.Args) > 1 && os.Args[1] == "verify" {
		code := runVerify(ctx, os.Args[2:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "berthd:", err)
	}
	os.Exit(exitCode(err))
}

// options are berthd's settings: flags, over the configuration file
// (--config), over the defaults.
type options struct {
	pressure        pressuresvc.Settings // node-pressure eviction (--config only)
	listen          string
	metricsListen   string
	dataDir         string
	configFile      string // berthd's own configuration file
	schedulerConfig string // the KubeSchedulerConfiguration file
	logLevel        slog.Level
	shutdownTimeout time.Duration
	retainDecisions int
	retainFor       time.Duration
	tls             auth.TLSFiles
	tokenFile       string
	maxMutations    int
	deterministic   bool
	initialSync     time.Duration
	gcPercent       int
	dashboard       bool
	version         bool // print the version and exit
	healthcheck     bool // ask a running berthd's /healthz and exit
	limits          intake.Limits
	// acceptTruncatedLog is deliberately not in the configuration file: it
	// accepts a loss once, on the command line.
	acceptTruncatedLog bool
	// taintNodesByCondition derives taints from node conditions.
	taintNodesByCondition bool
	// store is the backend (--store); etcd and advertise apply to etcd.
	store     string
	etcd      etcdOptions
	advertise string
	// simulation bounds AdminService.Simulate (--simulate-*).
	simulation adminsvc.SimulationLimits
}

func defaultOptions() options {
	return options{
		listen:                "127.0.0.1:7070",
		metricsListen:         "127.0.0.1:9090",
		dataDir:               "./berth-data",
		logLevel:              slog.LevelInfo,
		shutdownTimeout:       server.DefaultShutdownTimeout,
		retainDecisions:       1_000_000,
		maxMutations:          10_000,
		initialSync:           defaultInitialSyncTimeout,
		gcPercent:             daemon.GCPercent(os.Getenv),
		dashboard:             true,
		taintNodesByCondition: true,
		limits:                intake.DefaultLimits(),
		store:                 storeBbolt,
		etcd:                  defaultEtcdOptions(),
		simulation:            adminsvc.DefaultSimulationLimits(),
	}
}

// register defines the flags on fs, bound to o, with o's values as their
// defaults.
func (o *options) register(fs *flag.FlagSet) {
	fs.StringVar(&o.configFile, "config", o.configFile, "berthd's configuration file (YAML) holding the settings of these flags (see deploy/berthd.yaml); flags given here win over it")
	fs.StringVar(&o.listen, "listen", o.listen, "gRPC listen address: host:port or unix:///path")
	fs.StringVar(&o.metricsListen, "metrics-listen", o.metricsListen, `HTTP address of /metrics and /healthz: host:port or unix:///path; "" disables`)
	fs.StringVar(&o.dataDir, "data-dir", o.dataDir, "directory of berthd's durable state, created if missing")
	fs.StringVar(&o.schedulerConfig, "scheduler-config", o.schedulerConfig, "KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1, YAML or JSON); empty: kube-scheduler's defaults")
	fs.TextVar(&o.logLevel, "log-level", o.logLevel, "log level: debug, info, warn or error")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", o.shutdownTimeout, "how long RPCs in flight may take to finish on shutdown")
	fs.IntVar(&o.retainDecisions, "retain-decisions", o.retainDecisions, "keep at most this many decisions in the log; 0: no count limit")
	fs.DurationVar(&o.retainFor, "retain-for", o.retainFor, "keep decisions only this long (e.g. 168h); 0: no age limit")
	fs.StringVar(&o.tls.Cert, "tls-cert", o.tls.Cert, "PEM certificate of the gRPC server; with --tls-key enables TLS")
	fs.StringVar(&o.tls.Key, "tls-key", o.tls.Key, "PEM private key of --tls-cert")
	fs.StringVar(&o.tls.ClientCA, "tls-client-ca", o.tls.ClientCA, "PEM CA bundle: require client certificates it signed (mTLS)")
	fs.StringVar(&o.tokenFile, "token-file", o.tokenFile, `bearer tokens, one per line, each optionally followed by "read-only"; empty: no token needed`)
	fs.BoolVar(&o.deterministic, "deterministic", o.deterministic, "break score ties by the smallest node name instead of at random, as berthctl simulate does (benchmarks, tests)")
	fs.IntVar(&o.maxMutations, "max-batch-objects", o.maxMutations, "most objects or references in one state request; 0: only the message size bounds it")
	fs.IntVar(&o.gcPercent, "gc-percent", o.gcPercent, fmt.Sprintf("garbage collector target, as GOGC: a collection starts when the heap has grown by this percentage of the live data; negative turns collection off. Default: GOGC when set, else %d (fewer collections slowing pods, for more memory)", daemon.DefaultGCPercent))
	fs.BoolVar(&o.taintNodesByCondition, "taint-nodes-by-condition", o.taintNodesByCondition, "derive the node lifecycle controller's taints from node conditions (not-ready and unreachable NoExecute, the pressure and network-unavailable NoSchedule taints)")
	fs.BoolVar(&o.dashboard, "dashboard", o.dashboard, "serve the read-only web dashboard on --metrics-listen, behind --token-file's tokens when set")
	fs.BoolVar(&o.version, "version", o.version, "print berthd's version and commit, then exit")
	fs.BoolVar(&o.healthcheck, "healthcheck", o.healthcheck, "ask the berthd serving on --metrics-listen for /healthz and exit 0 if it serves, 1 if not (container health checks); starts nothing")
	fs.Func("max-streams-per-conn", fmt.Sprintf("most calls in flight on one connection (HTTP/2 MAX_CONCURRENT_STREAMS: clients wait for a free one) (default %d)", o.limits.ConnStreams), func(v string) error {
		n, err := strconv.ParseUint(v, 10, 32)
		o.limits.ConnStreams = uint32(n)
		return err
	})
	fs.Int64Var(&o.limits.Streams, "max-streams", o.limits.Streams, "most calls in flight on all connections; beyond, calls are refused RESOURCE_EXHAUSTED before their request is read; 0: no limit")
	fs.Int64Var(&o.limits.ConnRequestBytes, "max-request-bytes-per-conn", o.limits.ConnRequestBytes, "most bytes of request messages the calls of one connection hold; beyond, RESOURCE_EXHAUSTED; 0: no limit")
	fs.Int64Var(&o.limits.RequestBytes, "max-request-bytes", o.limits.RequestBytes, "most bytes of request messages all calls hold; beyond, RESOURCE_EXHAUSTED; 0: no limit")
	fs.BoolVar(&o.acceptTruncatedLog, "accept-truncated-log", o.acceptTruncatedLog, "start even though the write-ahead file lost acknowledged decisions (berthd otherwise refuses, exit code 4): serve the shortened history and hand the lost revisions out again; watchers should watch again from 0")
	fs.DurationVar(&o.initialSync, "initial-sync-timeout", o.initialSync, "after a restart, how long scheduling waits for the orchestrator's first re-list (a Sync RESYNC_END covering pods) before starting anyway; 0: no wait")
	o.registerEtcd(fs)
	o.registerSimulation(fs)
}

// registerSimulation defines the --simulate-* flags: the bounds of one
// AdminService.Simulate.
func (o *options) registerSimulation(fs *flag.FlagSet) {
	l := &o.simulation
	fs.IntVar(&l.MaxObjects, "simulate-max-objects", l.MaxObjects, "most cluster_delta plus cluster_removals entries of one Simulate; beyond, RESOURCE_EXHAUSTED; 0: no limit")
	fs.IntVar(&l.MaxPods, "simulate-max-pods", l.MaxPods, "most pods one Simulate schedules; beyond, RESOURCE_EXHAUSTED; 0: no limit")
	fs.IntVar(&l.MaxAttempts, "simulate-max-attempts", l.MaxAttempts, "most attempts one Simulate makes (a preemptor's retries included); beyond, RESOURCE_EXHAUSTED; 0: no limit")
	fs.IntVar(&l.MaxResponseBytes, "simulate-max-response-bytes", l.MaxResponseBytes, "largest Simulate response (the default is what gRPC clients receive by default); beyond, RESOURCE_EXHAUSTED (summary mode leaves out per-node detail); 0: no limit")
	fs.DurationVar(&l.Timeout, "simulate-timeout", l.Timeout, "longest one Simulate may run, whatever the caller's deadline; beyond, RESOURCE_EXHAUSTED; 0: no limit")
	fs.IntVar(&l.Concurrency, "simulate-concurrency", l.Concurrency, "most simulations running at once, each on at most one core; one more waits for a free slot within its caller's deadline; 0: no limit")
}

// parseFlags reads the flags and, with --config, the configuration file
// under them.
func parseFlags(args []string, output io.Writer) (options, error) {
	o := defaultOptions()
	fs := flag.NewFlagSet("berthd", flag.ContinueOnError)
	fs.SetOutput(output)
	o.register(fs)
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.version || o.healthcheck {
		return o, nil // nothing else is read
	}
	if o.configFile != "" {
		// The file over the defaults, then the flags again over the file.
		merged := defaultOptions()
		if err := loadConfigFile(o.configFile, &merged); err != nil {
			return options{}, err
		}
		again := flag.NewFlagSet("berthd", flag.ContinueOnError)
		again.SetOutput(io.Discard)
		merged.register(again)
		if err := again.Parse(args); err != nil {
			return options{}, err
		}
		o = merged
	}
	switch {
	case o.dataDir == "":
		return options{}, errors.New("--data-dir must not be empty")
	case o.retainDecisions < 0 || o.retainFor < 0:
		return options{}, errors.New("--retain-decisions and --retain-for must not be negative")
	case o.maxMutations < 0:
		return options{}, errors.New("--max-batch-objects must not be negative")
	case o.shutdownTimeout < 0:
		return options{}, errors.New("--shutdown-timeout must not be negative")
	case o.initialSync < 0:
		return options{}, errors.New("--initial-sync-timeout must not be negative")
	case o.simulation.MaxObjects < 0 || o.simulation.MaxPods < 0 || o.simulation.MaxAttempts < 0 ||
		o.simulation.MaxResponseBytes < 0 || o.simulation.Timeout < 0 || o.simulation.Concurrency < 0:
		return options{}, errors.New("--simulate-max-objects, --simulate-max-pods, --simulate-max-attempts, --simulate-max-response-bytes, --simulate-timeout and --simulate-concurrency must not be negative")
	case o.limits.Streams < 0 || o.limits.ConnRequestBytes < 0 || o.limits.RequestBytes < 0:
		return options{}, errors.New("--max-streams, --max-request-bytes and --max-request-bytes-per-conn must not be negative")
	case o.limits.ConnStreams == 0:
		return options{}, errors.New("--max-streams-per-conn must be at least 1")
	case o.tls.Enabled() && (o.tls.Cert == "" || o.tls.Key == ""):
		return options{}, errors.New("--tls-cert and --tls-key go together, and --tls-client-ca needs both")
	}
	if err := o.checkEtcd(); err != nil {
		return options{}, err
	}
	return o, nil
}

// run is berthd: it returns when ctx ends (nil) or on a failure.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	switch {
	case opts.version:
		_, err := fmt.Fprintln(stdout, "berthd", version.Get())
		return err
	case opts.healthcheck:
		return healthcheck(ctx, opts.metricsListen, stdout)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: opts.logLevel}))
	logger.Info("berthd starting", "version", version.Get().String())
	debug.SetGCPercent(opts.gcPercent)

	cfg := daemon.Config{
		DataDir:         opts.dataDir,
		Retention:       store.Retention{MaxRecords: opts.retainDecisions, MaxAge: opts.retainFor},
		LockTimeout:     storeLockTimeout,
		MaxMutations:    opts.maxMutations,
		Logger:          logger,
		ShutdownTimeout: opts.shutdownTimeout,
		Deterministic:   opts.deterministic,

		InitialSyncTimeout:   opts.initialSync,
		Dashboard:            opts.dashboard && opts.metricsListen != "",
		Version:              version.Get().String(),
		AcceptTruncatedLog:   opts.acceptTruncatedLog,
		IgnoreNodeConditions: !opts.taintNodesByCondition,
		Simulation:           &opts.simulation,
	}
	pressure, err := opts.pressure.Parse()
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	cfg.Pressure = &pressure
	if cfg.Scheduler, err = loadSchedulerConfig(opts.schedulerConfig); err != nil {
		return err
	}
	logProfiles(logger, cfg.Scheduler, opts.schedulerConfig)
	var tokens *auth.Tokens
	if cfg.GRPCOptions, tokens, err = securityOptions(opts, logger); err != nil {
		return err
	}
	if tokens != nil {
		cfg.Tokens, cfg.Edge.Authorizer = tokens, tokens
	}
	cfg.Edge.Limits = &opts.limits
	// Listen before opening the data directory, which Open creates: a
	// port in use must not leave a new directory behind.
	grpcLis, err := server.Listen(ctx, opts.listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	var metricsLis net.Listener
	if opts.metricsListen != "" {
		if metricsLis, err = server.Listen(ctx, opts.metricsListen); err != nil {
			return errors.Join(fmt.Errorf("--metrics-listen: %w", err), grpcLis.Close())
		}
		if cfg.Dashboard && (opts.tls.Enabled() || tokens != nil) && offHost(metricsLis.Addr()) {
			logger.Warn("the dashboard is served over plain HTTP beyond this host: --tls-* cover gRPC only, and a token sent to the dashboard travels in clear; keep --metrics-listen on loopback or put a TLS proxy in front",
				"metrics_listen", metricsLis.Addr().String())
		}
	}
	if opts.store == storeEtcd {
		return runReplica(ctx, opts, cfg, grpcLis, metricsLis, logger)
	}
	d, err := daemon.Open(ctx, cfg)
	if err != nil {
		errs := []error{err, grpcLis.Close()}
		if metricsLis != nil {
			errs = append(errs, metricsLis.Close())
		}
		return errors.Join(errs...)
	}
	return d.Serve(ctx, grpcLis, metricsLis)
}

// offHost reports whether a listener's address is reachable from other
// hosts: TCP on an address that is not loopback.
func offHost(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && !tcp.IP.IsLoopback()
}

// loadSchedulerConfig reads the KubeSchedulerConfiguration file; nil
// without one.
func loadSchedulerConfig(path string) (*config.Config, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--scheduler-config: %w", err)
	}
	cfg, err := config.Load(data)
	if err != nil {
		return nil, fmt.Errorf("--scheduler-config %s: %w", path, err)
	}
	return cfg, nil
}

// logProfiles says which scheduler profiles berthd runs and the plugins
// each enables, so a --scheduler-config that did not do what was meant
// shows at start.
func logProfiles(logger *slog.Logger, cfg *config.Config, path string) {
	source := "kube-scheduler's defaults"
	if cfg == nil {
		cfg = config.Default()
	} else {
		source = path
	}
	for _, p := range cfg.Profiles {
		logger.Info("scheduler profile", "name", p.SchedulerName, "from", source, "plugins", strings.Join(p.EnabledPlugins(), ","))
	}
}

// securityOptions are the gRPC options of TLS and the bearer tokens (nil
// without --token-file), which the edge's tap and the dashboard check.
// TLS failures are logged to logger at warn, rate limited.
func securityOptions(opts options, logger *slog.Logger) ([]grpc.ServerOption, *auth.Tokens, error) {
	var out []grpc.ServerOption
	if opts.tls.Enabled() {
		creds, err := opts.tls.ServerOption(auth.NewFailureLog(logger, auth.DefaultFailureLogInterval, nil))
		if err != nil {
			return nil, nil, err
		}
		out = append(out, creds)
	}
	if opts.tokenFile == "" {
		return out, nil, nil
	}
	tokens, err := auth.LoadTokens(opts.tokenFile)
	if err != nil {
		return nil, nil, fmt.Errorf("--token-file: %w", err)
	}
	return out, tokens, nil
}
