package app

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"google.golang.org/grpc/credentials"

	"github.com/berthsched/berth/cmd/internal/version"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/features"
	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/auth"
	"github.com/berthsched/berth/server/daemon"
	"github.com/berthsched/berth/server/intake"
	"github.com/berthsched/berth/server/pressuresvc"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// The values of --metrics-auth.
const (
	metricsAuthNone  = "none"
	metricsAuthToken = "token"
)

// storeLockTimeout is how long berthd waits for the data directory's lock.
const storeLockTimeout = time.Second

// defaultInitialSyncTimeout is --initial-sync-timeout's default.
const defaultInitialSyncTimeout = 5 * time.Second

// options are berthd's settings: flags, over the configuration file
// (--config), over the defaults.
type options struct {
	pressure        pressuresvc.Settings // node-pressure eviction (--config only)
	listen          string
	metricsListen   string
	httpListen      string
	dataDir         string
	configFile      string // berthd's own configuration file
	schedulerConfig string // the KubeSchedulerConfiguration file
	// deschedulerPolicy is the DeschedulerPolicy file; "": none.
	deschedulerPolicy string
	defrag            defragOptions
	// kueueConfig is Kueue's Configuration file; "": Kueue's defaults.
	kueueConfig     string
	featureGates    string // kube's --feature-gates spelling
	logLevel        slog.Level
	shutdownTimeout time.Duration
	retainDecisions int
	retainFor       time.Duration
	tls             auth.TLSFiles
	tokenFile       string
	metricsAuth     string // --metrics-auth: metricsAuthNone or metricsAuthToken
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
	// advertiseHTTP is the HTTP API address named beside advertise.
	advertiseHTTP string
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
		metricsAuth:           metricsAuthNone,
		taintNodesByCondition: true,
		limits:                intake.DefaultLimits(),
		store:                 storeBbolt,
		etcd:                  defaultEtcdOptions(),
		simulation:            adminsvc.DefaultSimulationLimits(),
		defrag:                defaultDefragOptions(),
	}
}

// parseFlags reads the flags and, with --config, the configuration file
// under them.
func parseFlags(args []string, output io.Writer) (options, error) {
	o := defaultOptions()
	fs := flag.NewFlagSet("berthd", flag.ContinueOnError)
	// A bad flag is one line (Main adds where help is); only --help
	// prints the flags.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	o.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(output)
			fmt.Fprintln(output, "Usage: berthd [flags]\n       berthd verify [--data-dir DIR]\n\nFlags:")
			fs.PrintDefaults()
			return options{}, err
		}
		return options{}, &usageError{err}
	}
	if fs.NArg() > 0 {
		return options{}, usageErrorf("unexpected arguments %q", fs.Args())
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
			return options{}, &usageError{err}
		}
		o = merged
	}
	switch {
	case o.dataDir == "":
		return options{}, usageErrorf("--data-dir must not be empty")
	case o.retainDecisions < 0 || o.retainFor < 0:
		return options{}, usageErrorf("--retain-decisions and --retain-for must not be negative")
	case o.maxMutations < 0:
		return options{}, usageErrorf("--max-batch-objects must not be negative")
	case o.shutdownTimeout < 0:
		return options{}, usageErrorf("--shutdown-timeout must not be negative")
	case o.initialSync < 0:
		return options{}, usageErrorf("--initial-sync-timeout must not be negative")
	case o.simulation.MaxObjects < 0 || o.simulation.MaxPods < 0 || o.simulation.MaxAttempts < 0 ||
		o.simulation.MaxResponseBytes < 0 || o.simulation.Timeout < 0 || o.simulation.Concurrency < 0:
		return options{}, usageErrorf("--simulate-max-objects, --simulate-max-pods, --simulate-max-attempts, --simulate-max-response-bytes, --simulate-timeout and --simulate-concurrency must not be negative")
	case o.limits.Streams < 0 || o.limits.ConnRequestBytes < 0 || o.limits.RequestBytes < 0:
		return options{}, usageErrorf("--max-streams, --max-request-bytes and --max-request-bytes-per-conn must not be negative")
	case o.limits.ConnStreams == 0:
		return options{}, usageErrorf("--max-streams-per-conn must be at least 1")
	case o.tls.Enabled() && (o.tls.Cert == "" || o.tls.Key == ""):
		return options{}, usageErrorf("--tls-cert and --tls-key go together, and --tls-client-ca needs both")
	case o.metricsAuth != metricsAuthNone && o.metricsAuth != metricsAuthToken:
		return options{}, usageErrorf("--metrics-auth %q: want %q or %q", o.metricsAuth, metricsAuthNone, metricsAuthToken)
	case o.metricsAuth == metricsAuthToken && o.tokenFile == "":
		return options{}, usageErrorf("--metrics-auth token needs --token-file: the tokens a scrape must send")
	case o.advertiseHTTP != "" && o.httpListen == "":
		return options{}, usageErrorf("--advertise-http-address needs --http-listen: it names this replica's HTTP API")
	}
	if err := o.checkEtcd(); err != nil {
		return options{}, &usageError{err}
	}
	if _, err := o.defrag.daemon(); err != nil {
		return options{}, &usageError{err}
	}
	if _, _, err := features.Parse(o.featureGates); err != nil {
		return options{}, usageErrorf("--feature-gates: %w", err)
	}
	return o, nil
}

// run is berthd: it returns when ctx ends (nil) or on a failure.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, with ...Option) error {
	ext, err := newExtensions(with)
	if err != nil {
		return err
	}
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
		DataDir: opts.dataDir,
		Bbolt: bboltstore.Options{
			LockTimeout: storeLockTimeout, Retention: opts.retention(), AcceptTruncatedLog: opts.acceptTruncatedLog,
		},
		MaxMutations:    opts.maxMutations,
		Logger:          logger,
		ShutdownTimeout: opts.shutdownTimeout,
		Deterministic:   opts.deterministic,

		InitialSyncTimeout:   opts.initialSync,
		Dashboard:            opts.dashboard && opts.metricsListen != "",
		Version:              version.Get().String(),
		IgnoreNodeConditions: !opts.taintNodesByCondition,
		Simulation:           &opts.simulation,
		MetricsAuth:          opts.metricsAuth == metricsAuthToken,
	}
	pressure, err := opts.pressure.Parse()
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	cfg.Pressure = &pressure
	if cfg.DeschedulerPolicy, err = loadDeschedulerPolicy(opts.deschedulerPolicy); err != nil {
		return err
	}
	if cfg.Defragment, err = opts.defrag.daemon(); err != nil {
		return err
	}
	if cfg.Kueue, err = loadKueueConfig(opts.kueueConfig); err != nil {
		return err
	}
	cfg.Plugins = ext.plugins
	if cfg.Scheduler, err = loadSchedulerConfig(opts.schedulerConfig, ext.pluginNames()); err != nil {
		return err
	}
	if cfg.Scheduler == nil {
		cfg.Scheduler = config.Default()
	}
	gates, warnings, err := features.Parse(opts.featureGates)
	if err != nil {
		return fmt.Errorf("--feature-gates: %w", err)
	}
	for _, w := range warnings {
		logger.Warn(w)
	}
	cfg.Scheduler.FeatureGates = gates
	logProfiles(logger, cfg.Scheduler, opts.schedulerConfig, ext.pluginNames())
	var tokens *auth.Tokens
	if cfg.Creds, cfg.HTTPTLS, tokens, err = securityOptions(opts, logger); err != nil {
		return err
	}
	if tokens != nil {
		cfg.Tokens, cfg.Edge.Authorizer = tokens, tokens
		if !cfg.MetricsAuth && opts.metricsListen != "" {
			logger.Info("/metrics is served without a token (--metrics-auth none); --metrics-auth token asks scrapes for one of --token-file")
		}
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
	lis := server.Listeners{GRPC: grpcLis, Metrics: metricsLis}
	closeAll := func(err error) error {
		errs := []error{err}
		for _, l := range []net.Listener{lis.GRPC, lis.Metrics, lis.HTTP} {
			if l != nil {
				errs = append(errs, l.Close())
			}
		}
		return errors.Join(errs...)
	}
	if opts.httpListen != "" {
		if lis.HTTP, err = server.Listen(ctx, opts.httpListen); err != nil {
			return closeAll(fmt.Errorf("--http-listen: %w", err))
		}
	}
	if opts.store == storeEtcd {
		return runReplica(ctx, opts, cfg, lis, logger)
	}
	d, err := daemon.Open(ctx, cfg)
	if err != nil {
		return closeAll(err)
	}
	return d.ServeListeners(ctx, lis)
}

// retention is the decision log's compaction policy (--retain-*).
func (o options) retention() store.Retention {
	return store.Retention{MaxRecords: o.retainDecisions, MaxAge: o.retainFor}
}

// offHost reports whether a listener's address is reachable from other
// hosts: TCP on an address that is not loopback.
func offHost(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && !tcp.IP.IsLoopback()
}

// loadSchedulerConfig reads the KubeSchedulerConfiguration file; nil
// without one.
func loadSchedulerConfig(path string, plugins []string) (*config.Config, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--scheduler-config: %w", err)
	}
	cfg, err := config.Load(data, config.WithPlugins(plugins...))
	if err != nil {
		return nil, fmt.Errorf("--scheduler-config %s: %w", path, err)
	}
	return cfg, nil
}

// logProfiles says which scheduler profiles berthd runs and the plugins
// each enables, so a --scheduler-config that did not do what was meant
// shows at start.
// Plugins added by the embedding program (WithPlugin) are also named
// apart, enabled or not.
func logProfiles(logger *slog.Logger, cfg *config.Config, path string, added []string) {
	source := "kube-scheduler's defaults"
	if path != "" {
		source = path
	}
	for _, p := range cfg.Profiles {
		attrs := []any{"name", p.SchedulerName, "from", source, "plugins", strings.Join(p.EnabledPlugins(), ",")}
		if len(added) > 0 {
			attrs = append(attrs, "out_of_tree", strings.Join(added, ","))
		}
		logger.Info("scheduler profile", attrs...)
	}
}

// securityOptions are the gRPC options of TLS and the bearer tokens (nil
// without --token-file), which the edge's tap and the dashboard check.
// TLS failures are logged to logger at warn, rate limited.
func securityOptions(opts options, logger *slog.Logger) (credentials.TransportCredentials, *tls.Config, *auth.Tokens, error) {
	var (
		creds  credentials.TransportCredentials
		tlsCfg *tls.Config
	)
	if opts.tls.Enabled() {
		var err error
		creds, tlsCfg, err = opts.tls.Credentials(auth.NewFailureLog(logger, auth.DefaultFailureLogInterval, nil))
		if err != nil {
			return nil, nil, nil, err
		}
	}
	if opts.tokenFile == "" {
		return creds, tlsCfg, nil, nil
	}
	tokens, err := auth.LoadTokens(opts.tokenFile)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--token-file: %w", err)
	}
	return creds, tlsCfg, tokens, nil
}
