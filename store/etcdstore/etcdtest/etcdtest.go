// Package etcdtest runs a single-member etcd inside the process, on
// loopback ports the kernel picks and a data directory of the caller's, for
// tests and the local benchmark helper: nothing needs to be installed.
// berthd itself never links it.
package etcdtest

import (
	"context"
	"fmt"
	"net/url"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Etcd is a running embedded etcd member.
type Etcd struct {
	e *embed.Etcd
}

// Start starts a member storing its data in dir and waits until it serves
// (at most a minute).
func Start(dir string) (*Etcd, error) {
	cfg := embed.NewConfig()
	cfg.Name = "berth-test"
	cfg.Dir = dir
	local, err := url.Parse("http://127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	// Port 0 everywhere: a single member never dials its peer URL, so the
	// advertised one need not be the port the kernel picked.
	cfg.ListenClientUrls = []url.URL{*local}
	cfg.AdvertiseClientUrls = []url.URL{*local}
	cfg.ListenPeerUrls = []url.URL{*local}
	cfg.AdvertisePeerUrls = []url.URL{*local}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	// A fast raft clock: a single member elects itself at once, and
	// leases as short as a second are honoured (etcd's shortest lease is
	// one and a half election timeouts).
	cfg.TickMs, cfg.ElectionMs = 10, 100
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcdtest: start etcd in %s: %w", dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcdtest: etcd failed while starting: %w", err)
	case <-time.After(time.Minute):
		e.Close()
		return nil, fmt.Errorf("etcdtest: etcd in %s not ready after a minute", dir)
	}
	return &Etcd{e: e}, nil
}

// Endpoint is the member's client URL.
func (e *Etcd) Endpoint() string { return "http://" + e.e.Clients[0].Addr().String() }

// Client returns a new client of the member; the caller closes it.
func (e *Etcd) Client() (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:   []string{e.Endpoint()},
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
}

// Close stops the member.
func (e *Etcd) Close() { e.e.Close() }

// Testing is the part of testing.TB that New uses.
type Testing interface {
	TempDir() string
	Fatalf(format string, args ...any)
	Cleanup(func())
	Helper()
}

// New starts a member in a temporary directory of t, and a client of it,
// both closed when the test ends.
func New(t Testing) (*Etcd, *clientv3.Client) {
	t.Helper()
	e, err := Start(t.TempDir())
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(e.Close)
	cli, err := e.Client()
	if err != nil {
		t.Fatalf("etcdtest: client: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.Get(ctx, "health"); err != nil {
		t.Fatalf("etcdtest: first request: %v", err)
	}
	return e, cli
}
