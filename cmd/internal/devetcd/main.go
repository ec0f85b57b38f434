// Command devetcd runs a single-member etcd in this process, for trying
// berthd --store etcd and benchmarking it on one machine without
// installing etcd:
//
//	go run ./cmd/internal/devetcd --listen 127.0.0.1:2379 --data-dir /tmp/devetcd
//
// It uses etcd's defaults (fsync on every commit, the 2 GiB quota) and
// stops on SIGINT or SIGTERM. It is a development helper, not a way to run
// etcd in production.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "devetcd:", err)
		os.Exit(1)
	}
}

func run() error {
	listen := flag.String("listen", "127.0.0.1:2379", "client address (host:port)")
	peer := flag.String("peer-listen", "127.0.0.1:2380", "peer address (host:port); a single member never dials it")
	dir := flag.String("data-dir", "devetcd-data", "etcd's data directory")
	flag.Parse()
	client, err := url.Parse("http://" + *listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	peerURL, err := url.Parse("http://" + *peer)
	if err != nil {
		return fmt.Errorf("--peer-listen: %w", err)
	}
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = "devetcd", *dir
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peerURL}, []url.URL{*peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(time.Minute):
		return fmt.Errorf("etcd in %s not ready after a minute", *dir)
	}
	fmt.Printf("etcd serving on http://%s (data in %s); Ctrl-C stops it\n", *listen, *dir)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	select {
	case <-ctx.Done():
		return nil
	case err := <-e.Err():
		return err
	}
}
