package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/berthsched/berth/cmd/berthd/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := app.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
