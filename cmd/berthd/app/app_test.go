package app

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

	"github.com/berthsched/berth/server/adminsvc"
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
		dashboard:       true,
		metricsAuth:     metricsAuthNone,
		limits:          intake.DefaultLimits(),
		store:           storeBbolt,
		etcd:            defaultEtcdOptions(),
		simulation:      adminsvc.DefaultSimulationLimits(),
		defrag:          defaultDefragOptions(),

		taintNodesByCondition: true,
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
			args: []string{"--listen", "unix:///run/berth.sock", "--metrics-listen=", "--data-dir", "/var/lib/berth", "--log-level", "debug", "--shutdown-timeout", "3s", "--dashboard=false", "--taint-nodes-by-condition=false"},
			want: options{listen: "unix:///run/berth.sock", dataDir: "/var/lib/berth", logLevel: slog.LevelDebug, shutdownTimeout: 3 * time.Second,
				retainDecisions: 1_000_000, maxMutations: 10_000, initialSync: 5 * time.Second, gcPercent: daemon.DefaultGCPercent,
				limits: intake.DefaultLimits(), store: storeBbolt, etcd: defaultEtcdOptions(), metricsAuth: metricsAuthNone, simulation: adminsvc.DefaultSimulationLimits(),
				defrag: defaultDefragOptions()},
		},
		{
			name: "simulation limits",
			args: []string{"--simulate-max-objects", "1", "--simulate-max-pods", "2", "--simulate-max-attempts", "3",
				"--simulate-max-response-bytes", "4", "--simulate-timeout", "5s", "--simulate-concurrency", "0"},
			want: func() options {
				o := defaults
				o.simulation = adminsvc.SimulationLimits{MaxObjects: 1, MaxPods: 2, MaxAttempts: 3, MaxResponseBytes: 4, Timeout: 5 * time.Second}
				return o
			}(),
		},
		{name: "negative simulation timeout", args: []string{"--simulate-timeout", "-1s"}, wantErr: true},
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
		{
			name: "metrics behind the tokens",
			args: []string{"--token-file", "tokens", "--metrics-auth", "token"},
			want: func() options {
				o := defaults
				o.tokenFile, o.metricsAuth = "tokens", metricsAuthToken
				return o
			}(),
		},
		{name: "metrics behind no token", args: []string{"--metrics-auth", "token"}, wantErr: true},
		{
			name: "defragment",
			args: []string{"--defragment", "--defragment-max-moves", "3", "--defragment-timeout", "500ms", "--defragment-interval", "10s"},
			want: func() options {
				o := defaults
				o.defrag = defragOptions{enabled: true, maxMoves: 3, timeout: 500 * time.Millisecond, interval: 10 * time.Second}
				return o
			}(),
		},
		{name: "defragment without moves", args: []string{"--defragment", "--defragment-max-moves", "0"}, wantErr: true},
		{name: "defragment negative timeout", args: []string{"--defragment-timeout", "-1s"}, wantErr: true},
		{name: "defragment without interval", args: []string{"--defragment-interval", "0"}, wantErr: true},
		{
			name: "HTTP API",
			args: []string{"--http-listen", "127.0.0.1:8080"},
			want: func() options {
				o := defaults
				o.httpListen = "127.0.0.1:8080"
				return o
			}(),
		},
		{name: "metrics auth unknown", args: []string{"--token-file", "tokens", "--metrics-auth", "basic"}, wantErr: true},
		{
			name: "feature gates in kube's spelling",
			args: []string{"--feature-gates", "GenericWorkload=false,DRAPrioritizedList=true"},
			want: func() options {
				o := defaults
				o.featureGates = "GenericWorkload=false,DRAPrioritizedList=true"
				return o
			}(),
		},
		{name: "unknown feature gate", args: []string{"--feature-gates", "NoSuchGate=true"}, wantErr: true},
		{name: "locked feature gate", args: []string{"--feature-gates", "DynamicResourceAllocation=false"}, wantErr: true},
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
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(options{}, etcdOptions{}, defragOptions{})); diff != "" {
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
	err = run(t.Context(), []string{"--data-dir", dir, "--listen", "127.0.0.1:0", "--metrics-listen", ""}, io.Discard, io.Discard)
	if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "another berthd is using the data dir") {
		t.Errorf("run on a locked dir: %v, want the data dir reported as in use", err)
	}
}

func TestRunHelp(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"--help"}, io.Discard, &out); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("err = %v, want flag.ErrHelp", err)
	}
	if !strings.Contains(out.String(), "-data-dir") {
		t.Errorf("usage lacks --data-dir:\n%s", out.String())
	}
}

func TestRunVersion(t *testing.T) {
	var out bytes.Buffer
	// --version wins over settings that would fail, and starts nothing.
	if err := run(t.Context(), []string{"--version", "--data-dir", ""}, &out, io.Discard); err != nil {
		t.Fatalf("run --version: %v", err)
	}
	if !strings.HasPrefix(out.String(), "berthd ") || !strings.Contains(out.String(), "commit ") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("berthd --version printed %q, want one line with the commit", out.String())
	}
}

func TestHealthcheckFails(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	for _, tc := range []struct {
		name, metrics, want string
	}{
		{"nothing listening", "unix://" + sock, "--healthcheck: /healthz on unix://" + sock + ": "},
		{"metrics disabled", "", "--healthcheck asks /healthz on --metrics-listen, which is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(t.Context(), []string{"--healthcheck", "--metrics-listen", tc.metrics}, io.Discard, io.Discard)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to start with %q", err, tc.want)
			}
		})
	}
}

func TestLoopbackFor(t *testing.T) {
	for in, want := range map[string]string{
		"0.0.0.0:9090": "127.0.0.1:9090", ":9090": "127.0.0.1:9090", "[::]:9090": "[::1]:9090",
		"10.0.0.5:9090": "10.0.0.5:9090", "localhost:9090": "localhost:9090",
	} {
		if got := loopbackFor(in); got != want {
			t.Errorf("loopbackFor(%q) = %q, want %q", in, got, want)
		}
	}
}

// A listen error names the flag whose address it is, and the start-up log
// names the profiles and their plugins.
func TestRunListenErrorNamesFlag(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct{ flag, other string }{
		{"--listen", "--metrics-listen"},
		{"--metrics-listen", "--listen"},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			var log bytes.Buffer
			err := run(t.Context(), []string{"--data-dir", t.TempDir(), tc.flag, busy.Addr().String(), tc.other, "127.0.0.1:0"}, io.Discard, &log)
			if err == nil || !strings.HasPrefix(err.Error(), tc.flag+": listen on "+busy.Addr().String()) {
				t.Errorf("err = %v, want it to start with %q", err, tc.flag+": listen on")
			}
			if !strings.Contains(log.String(), `msg="scheduler profile" name=default-scheduler from="kube-scheduler's defaults" plugins=`) ||
				!strings.Contains(log.String(), "NodeResourcesFit") {
				t.Errorf("start-up log does not list the profile and its plugins:\n%s", log.String())
			}
		})
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
		}, io.Discard, io.Discard)
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

	// berthd --healthcheck, as a container health check runs it.
	var probe bytes.Buffer
	if err := run(ctx, []string{"--healthcheck", "--metrics-listen", "unix://" + metricsSock}, &probe, io.Discard); err != nil || probe.String() != "ok\n" {
		t.Errorf("berthd --healthcheck: %v, printed %q; want ok", err, probe.String())
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

func TestOffHost(t *testing.T) {
	tests := []struct {
		addr net.Addr
		want bool
	}{
		{addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9090}, want: false},
		{addr: &net.TCPAddr{IP: net.IPv6loopback, Port: 9090}, want: false},
		{addr: &net.TCPAddr{IP: net.IPv4zero, Port: 9090}, want: true},
		{addr: &net.TCPAddr{IP: net.ParseIP("10.0.0.7"), Port: 9090}, want: true},
		{addr: &net.UnixAddr{Name: "/run/berth-metrics.sock", Net: "unix"}, want: false},
	}
	for _, tt := range tests {
		if got := offHost(tt.addr); got != tt.want {
			t.Errorf("offHost(%v) = %v, want %v", tt.addr, got, tt.want)
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
		err := run(t.Context(), append(args, "--data-dir", dataDir), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "address already in use") {
			t.Errorf("run %q: %v, want the address reported in use", args, err)
		}
		if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("run %q left %s behind (stat: %v)", args, dataDir, err)
		}
	}
}

// With --token-file and --metrics-auth token, berthd asks scrapes of
// /metrics for a token, read-only ones included, and leaves /healthz (and
// so --healthcheck) open.
func TestRunMetricsAuth(t *testing.T) {
	dir := t.TempDir()
	grpcSock := filepath.Join(dir, "berthd.sock")
	metricsSock := filepath.Join(dir, "metrics.sock")
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte("rw-secret\nprom-secret read-only\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{
			"--listen", "unix://" + grpcSock, "--metrics-listen", "unix://" + metricsSock,
			"--data-dir", filepath.Join(dir, "data"), "--token-file", tokens, "--metrics-auth", "token",
		}, io.Discard, io.Discard)
	}()
	rpcCtx, rpcCancel := context.WithTimeout(ctx, 10*time.Second)
	defer rpcCancel()
	conn, err := grpc.NewClient("unix://"+grpcSock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Health needs no token; WaitForReady blocks until berthd listens.
	if _, err := healthpb.NewHealthClient(conn).Check(rpcCtx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
		t.Fatalf("health Check: %v", err)
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", metricsSock)
		},
	}}
	for _, tt := range []struct {
		path, token string
		want        int
	}{
		{"/metrics", "", http.StatusUnauthorized},
		{"/metrics", "nope", http.StatusUnauthorized},
		{"/metrics", "prom-secret", http.StatusOK},
		{"/metrics", "rw-secret", http.StatusOK},
		{"/healthz", "", http.StatusOK},
	} {
		req, err := http.NewRequestWithContext(rpcCtx, http.MethodGet, "http://berthd"+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.token != "" {
			req.Header.Set("Authorization", "Bearer "+tt.token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", tt.path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("GET %s with token %q: status %d, want %d", tt.path, tt.token, resp.StatusCode, tt.want)
		}
	}
	var probe bytes.Buffer
	if err := run(ctx, []string{"--healthcheck", "--metrics-listen", "unix://" + metricsSock}, &probe, io.Discard); err != nil || probe.String() != "ok\n" {
		t.Errorf("berthd --healthcheck: %v, printed %q; want ok", err, probe.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v, want nil", err)
	}
}

// A bad command line is one line naming the problem and where help is,
// with exit code 2, as berthctl's; --help prints the flags and exits 0.
func TestMainBadCommandLine(t *testing.T) {
	const hint = "\nRun 'berthd --help' for usage.\n"
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"unknown flag", []string{"--bogus"}, exitUsage, "berthd: flag provided but not defined: -bogus" + hint},
		{"bad value", []string{"--retain-for", "soon"}, exitUsage, `berthd: invalid value "soon" for flag -retain-for: parse error` + hint},
		{"bad value of a func flag", []string{"--max-streams-per-conn", "-1"}, exitUsage, `berthd: invalid value "-1" for flag -max-streams-per-conn: strconv.ParseUint: parsing "-1": invalid syntax` + hint},
		{"missing value", []string{"--listen"}, exitUsage, "berthd: flag needs an argument: -listen" + hint},
		{"stray argument", []string{"serve"}, exitUsage, `berthd: unexpected arguments ["serve"]` + hint},
		{"empty data dir", []string{"--data-dir", ""}, exitUsage, "berthd: --data-dir must not be empty" + hint},
		{"etcd without endpoints", []string{"--store", "etcd"}, exitUsage, "berthd: --store etcd needs --etcd-endpoints" + hint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(t.Context(), tt.args, &stdout, &stderr)
			if code != tt.wantCode || stderr.String() != tt.wantStderr || stdout.Len() != 0 {
				t.Errorf("Main(%q) = %d, stdout %q, stderr %q; want %d, stderr %q", tt.args, code, stdout.String(), stderr.String(), tt.wantCode, tt.wantStderr)
			}
		})
	}
	var stderr bytes.Buffer
	if code := Main(t.Context(), []string{"--help"}, io.Discard, &stderr); code != exitOK || !strings.Contains(stderr.String(), "-data-dir") || !strings.HasPrefix(stderr.String(), "Usage: berthd") {
		t.Errorf("Main(--help) = %d, stderr %q; want 0 and the flags", code, stderr.String())
	}
}
