package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/berthsched/berth/server"
	"github.com/berthsched/berth/server/daemon"
	"github.com/berthsched/berth/server/leader"
	"github.com/berthsched/berth/server/replica"
	"github.com/berthsched/berth/store/etcdstore"
)

// Store backends (--store).
const (
	storeBbolt = "bbolt"
	storeEtcd  = "etcd"
)

// etcdOptions are the --etcd-* settings, read with --store etcd.
type etcdOptions struct {
	endpoints    string // comma-separated
	cert, key    string
	ca           string
	username     string
	passwordFile string // never a password on the command line
	prefix       string
	leaseTTL     time.Duration
}

// checkEtcd validates the etcd settings.
func (o options) checkEtcd() error {
	e := o.etcd
	switch {
	case o.store != storeBbolt && o.store != storeEtcd:
		return fmt.Errorf("--store %q: want bbolt or etcd", o.store)
	case o.store == storeBbolt:
		return nil
	case e.endpointList() == nil:
		return errors.New("--store etcd needs --etcd-endpoints")
	case (e.cert == "") != (e.key == ""):
		return errors.New("--etcd-cert and --etcd-key go together")
	case (e.username == "") != (e.passwordFile == ""):
		return errors.New("--etcd-username and --etcd-password-file go together")
	case e.prefix == "" || !strings.HasSuffix(e.prefix, "/"):
		return fmt.Errorf("--etcd-prefix %q: want a non-empty prefix ending in /", e.prefix)
	case e.leaseTTL < time.Second:
		return fmt.Errorf("--etcd-lease-ttl %v: etcd counts leases in whole seconds, at least 1s", e.leaseTTL)
	}
	return nil
}

func (e etcdOptions) endpointList() []string {
	var out []string
	for ep := range strings.SplitSeq(e.endpoints, ",") {
		if ep = strings.TrimSpace(ep); ep != "" {
			out = append(out, ep)
		}
	}
	return out
}

// client builds the etcd client. It does not dial yet: an unreachable etcd
// shows in the replica's first requests, which retry.
func (e etcdOptions) client() (*clientv3.Client, error) {
	cfg := clientv3.Config{
		Endpoints:   e.endpointList(),
		DialTimeout: 5 * time.Second,
		// Notice a dead connection within a lease's TTL.
		DialKeepAliveTime:    2 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
		Logger:               zap.NewNop(),
		Username:             e.username,
	}
	if e.passwordFile != "" {
		b, err := os.ReadFile(e.passwordFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-password-file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		cfg.Password = strings.TrimRight(line, "\r")
	}
	if e.cert != "" || e.ca != "" {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if e.cert != "" {
			pair, err := tls.LoadX509KeyPair(e.cert, e.key)
			if err != nil {
				return nil, fmt.Errorf("--etcd-cert/--etcd-key: %w", err)
			}
			tc.Certificates = []tls.Certificate{pair}
		}
		if e.ca != "" {
			pem, err := os.ReadFile(e.ca)
			if err != nil {
				return nil, fmt.Errorf("--etcd-ca: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--etcd-ca %s: no PEM certificate in it", e.ca)
			}
			tc.RootCAs = pool
		}
		cfg.TLS = tc
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd client for %s: %w", e.endpoints, err)
	}
	return cli, nil
}

// runReplica serves as one replica of the etcd group until ctx ends.
func runReplica(ctx context.Context, opts options, cfg daemon.Config, lis server.Listeners, logger *slog.Logger) error {
	cli, err := opts.etcd.client()
	if err != nil {
		return err
	}
	defer cli.Close()
	addr := opts.advertise
	if addr == "" {
		addr = lis.GRPC.Addr().String()
	}
	httpAddr := opts.advertiseHTTP
	if httpAddr == "" && lis.HTTP != nil {
		httpAddr = lis.HTTP.Addr().String()
	}
	logger.Info("running as a replica on etcd", "endpoints", opts.etcd.endpoints, "prefix", opts.etcd.prefix,
		"lease_ttl", opts.etcd.leaseTTL, "advertise_address", addr, "advertise_http_address", httpAddr)
	r, err := replica.New(replica.Config{
		Daemon: cfg, Client: cli, Endpoints: opts.etcd.endpointList(),
		Prefix: opts.etcd.prefix, TTL: opts.etcd.leaseTTL, Address: addr, HTTPAddress: httpAddr, Retention: opts.retention(),
	})
	if err != nil {
		return err
	}
	return r.RunListeners(ctx, lis)
}

func defaultEtcdOptions() etcdOptions {
	return etcdOptions{prefix: etcdstore.DefaultPrefix, leaseTTL: leader.DefaultTTL}
}
