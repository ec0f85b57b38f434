package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/berthsched/berth/server/auth"
	"github.com/berthsched/berth/server/daemon"
	"github.com/berthsched/berth/server/intake"
	"github.com/berthsched/berth/store"
)

func TestParseFlags(t *testing.T) {
	t.Setenv("GOGC", "") // the defaults below do not depend on the caller's
	defaults := options{
		listen:          "127.0.0.1:7070",
		metricsListen:   "127.0.0.1:9090",
		dataDir:         "./berth-data",
		logLevel:        slog.LevelInfo,
		shutdownTimeout: 10 * time.Second,
		retainDecisions: 1_000_000,
		maxMutations:    10_000,
		initialSync:     5 * time.Second,
		gcPercent:       daemon.DefaultGCPercent,
		limits:          intake.DefaultLimits(),
	}
	tests := []struct {
		name    string
		args    []string
		want    options
		wantErr bool
	}{
		{name: "defaults", want: defaults},
		{
			name: "all set",
			args: []string{"--listen", "unix:///run/berth.sock", "--metrics-listen=", "--data-dir", "/var/lib/berth", "--log-level", "debug", "--shutdown-timeout", "3s"},
			want: options{listen: "unix:///run/berth.sock", dataDir: "/var/lib/berth", logLevel: slog.LevelDebug, shutdownTimeout: 3 * time.Second,
				retainDecisions: 1_000_000, maxMutations: 10_000, initialSync: 5 * time.Second, gcPercent: daemon.DefaultGCPercent,
				limits: intake.DefaultLimits()},
		},
		{
			name: "collector target",
			args: []string{"--gc-percent", "150"},
			want: func() options {
				o := defaults
				o.gcPercent = 150
				return o
			}(),
		},
		{name: "collector target not a number", args: []string{"--gc-percent", "off"}, wantErr: true},
		{
			name: "limits of calls in flight",
			args: []string{"--max-streams-per-conn", "10", "--max-streams", "20", "--max-request-bytes-per-conn", "30", "--max-request-bytes", "0"},
			want: func() options {
				o := defaults
				o.limits = intake.Limits{ConnStreams: 10, Streams: 20, ConnRequestBytes: 30, RequestBytes: 0}
				return o
			}(),
		},
		{name: "no stream per connection", args: []string{"--max-streams-per-conn", "0"}, wantErr: true},
		{name: "negative request bytes", args: []string{"--max-request-bytes", "-1"}, wantErr: true},
		{name: "streams per connection not a number", args: []string{"--max-streams-per-conn", "many"}, wantErr: true},
		{
			name: "retention, security and limits",
			args: []string{"--retain-decisions", "0", "--retain-for", "24h", "--tls-cert", "c.pem", "--tls-key", "k.pem",
				"--tls-client-ca", "ca.pem", "--token-file", "tokens", "--scheduler-config", "sched.yaml", "--max-batch-objects", "5",
				"--initial-sync-timeout", "0"},
			want: func() options {
				o := defaults
				o.retainDecisions, o.retainFor, o.tokenFile, o.schedulerConfig, o.maxMutations = 0, 24*time.Hour, "tokens", "sched.yaml", 5
				o.initialSync = 0
				o.tls = auth.TLSFiles{Cert: "c.pem", Key: "k.pem", ClientCA: "ca.pem"}
				return o
			}(),
		},
		{name: "key without cert", args: []string{"--tls-key", "k.pem"}, wantErr: true},
		{name: "client CA without cert", args: []string{"--tls-client-ca", "ca.pem"}, wantErr: true},
		{name: "negative retention", args: []string{"--retain-for", "-1h"}, wantErr: true},
		{name: "negative initial sync timeout", args: []string{"--initial-sync-timeout", "-1s"}, wantErr: true},
		{name: "bad log level", args: []string{"--log-level", "loud"}, wantErr: true},
		{name: "unknown flag", args: []string{"--port", "1"}, wantErr: true},
		{name: "positional argument", args: []string{"serve"}, wantErr: true},
		{name: "empty data dir", args: []string{"--data-dir", ""}, wantErr: true},
		{name: "missing config file", args: []string{"--config", "/nonexistent/berthd.yaml"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFlags(tt.args, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// GOGC, when set, is the default of --gc-percent; the flag still wins.
func TestGCPercentFromEnvironment(t *testing.T) {
	t.Setenv("GOGC", "off")
	o, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.gcPercent != -1 {
		t.Errorf("GOGC=off: gcPercent = %d, want -1", o.gcPercent)
	}
	if o, err = parseFlags([]string{"--gc-percent", "300"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if o.gcPercent != 300 {
		t.Errorf("GOGC=off --gc-percent 300: gcPercent = %d, want 300", o.gcPercent)
	}
}

// A second berthd on the same data directory fails with a clear message.
func TestRunDataDirLocked(t *testing.T) {
	dir := t.TempDir()
	d, err := daemon.Open(t.Context(), daemon.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = run(t.Context(), []string{"--data-dir", dir, "--listen", "127.0.0.1:0", "--metrics-listen", ""}, io.Discard)
	if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "another berthd is using the data dir") {
		t.Errorf("run on a locked dir: %v, want the data dir reported as in use", err)
	}
}

func TestRunHelp(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"--help"}, &out); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("err = %v, want flag.ErrHelp", err)
	}
	if !strings.Contains(out.String(), "-data-dir") {
		t.Errorf("usage lacks --data-dir:\n%s", out.String())
	}
}

// berthd serves on Unix sockets, answers health and /metrics, and stops
// cleanly when its context ends.
func TestRunServesUntilCanceled(t *testing.T) {
	dir := t.TempDir()
	grpcSock := filepath.Join(dir, "berthd.sock")
	metricsSock := filepath.Join(dir, "metrics.sock")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{
			"--listen", "unix://" + grpcSock,
			"--metrics-listen", "unix://" + metricsSock,
			"--data-dir", filepath.Join(dir, "data"),
		}, io.Discard)
	}()

	rpcCtx, rpcCancel := context.WithTimeout(ctx, 10*time.Second)
	defer rpcCancel()
	conn, err := grpc.NewClient("unix://"+grpcSock,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		// Retry the connection quickly while berthd starts.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 5 * time.Millisecond, Multiplier: 1.6, MaxDelay: 50 * time.Millisecond},
			MinConnectTimeout: time.Second,
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// WaitForReady blocks until berthd listens: no polling, no sleep.
	resp, err := healthpb.NewHealthClient(conn).Check(rpcCtx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("health Check: %v", err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health = %v, want SERVING", resp.GetStatus())
	}

	// The metrics socket was opened before serving began.
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", metricsSock)
		},
	}}
	req, err := http.NewRequestWithContext(rpcCtx, http.MethodGet, "http://berthd/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	httpResp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	body, err := io.ReadAll(httpResp.Body)
	httpResp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "grpc_server_handled_total") {
		t.Errorf("/metrics lacks grpc_server_handled_total")
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "berth.db")); err != nil {
		t.Errorf("store file: %v", err)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v, want nil", err)
	}
	for _, sock := range []string{grpcSock, metricsSock} {
		if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind after shutdown (stat: %v)", sock, err)
		}
	}
}

// A port already in use fails berthd before it creates anything: no new
// data directory is left behind.
func TestRunPortInUseLeavesNoDataDir(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dataDir := filepath.Join(t.TempDir(), "data")
	for _, args := range [][]string{
		{"--listen", taken.Addr().String(), "--metrics-listen", ""},
		{"--listen", "127.0.0.1:0", "--metrics-listen", taken.Addr().String()},
	} {
		err := run(t.Context(), append(args, "--data-dir", dataDir), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "address already in use") {
			t.Errorf("run %q: %v, want the address reported in use", args, err)
		}
		if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("run %q left %s behind (stat: %v)", args, dataDir, err)
		}
	}
}
