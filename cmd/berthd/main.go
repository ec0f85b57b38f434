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
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/berthsched/berth/server"
)

// storeLockTimeout is how long berthd waits for the data directory's lock.
const storeLockTimeout = time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "berthd:", err)
		os.Exit(1)
	}
}

// options are berthd's flags.
type options struct {
	listen          string
	metricsListen   string
	dataDir         string
	logLevel        slog.Level
	shutdownTimeout time.Duration
}

func parseFlags(args []string, output io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("berthd", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:7070", "gRPC listen address: host:port or unix:///path")
	fs.StringVar(&o.metricsListen, "metrics-listen", "127.0.0.1:9090", `HTTP address of /metrics and /healthz: host:port or unix:///path; "" disables`)
	fs.StringVar(&o.dataDir, "data-dir", "./berth-data", "directory of berthd's durable state, created if missing")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "log level: debug, info, warn or error")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", server.DefaultShutdownTimeout, "how long RPCs in flight may take to finish on shutdown")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.dataDir == "" {
		return options{}, errors.New("--data-dir must not be empty")
	}
	return o, nil
}

// run is berthd: it returns when ctx ends (nil) or on a failure.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: opts.logLevel}))

	db, err := openStore(opts.dataDir, storeLockTimeout)
	if err != nil {
		return err
	}
	defer func() {
		if err := db.Close(); err != nil {
			logger.Error("close the data directory", "err", err)
		}
	}()
	logger.Info("data directory open", "path", db.Path())

	srv, err := server.New(server.Config{
		Logger:          logger,
		Registry:        prometheus.NewRegistry(),
		ShutdownTimeout: opts.shutdownTimeout,
	})
	if err != nil {
		return err
	}
	grpcLis, err := server.Listen(ctx, opts.listen)
	if err != nil {
		return err
	}
	var metricsLis net.Listener
	if opts.metricsListen != "" {
		if metricsLis, err = server.Listen(ctx, opts.metricsListen); err != nil {
			_ = grpcLis.Close()
			return err
		}
	}
	return srv.Serve(ctx, grpcLis, metricsLis)
}
