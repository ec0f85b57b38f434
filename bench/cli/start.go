package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"

	"github.com/berthsched/berth/server/daemon"
)

// StartInProcess runs berthd in this process: the same daemon the binary
// runs, with its durable bbolt log in dataDir, serving gRPC on a loopback
// port and no metrics listener, and with the binary's garbage collector
// target (daemon.GCPercent) while it serves, which is the process's and so
// applies to the load generator too. Stopping it drains the log and
// closes the store, as SIGTERM does for the binary.
func StartInProcess(ctx context.Context, dataDir string, deterministic bool, stderr io.Writer) (Started, error) {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	d, err := daemon.Open(ctx, daemon.Config{DataDir: dataDir, Logger: logger, Deterministic: deterministic})
	if err != nil {
		return Started{}, err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Started{}, errors.Join(err, d.Close())
	}
	gcBefore := debug.SetGCPercent(daemon.GCPercent(os.Getenv))
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- d.Serve(serveCtx, lis, nil) }()
	stop := func() error {
		cancel()
		defer debug.SetGCPercent(gcBefore)
		return <-done
	}
	return Started{Addr: lis.Addr().String(), Stop: stop}, nil
}
