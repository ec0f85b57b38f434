package app

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/pressure"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/auth"
	"github.com/berthsched/berth/server/intake"
	"github.com/berthsched/berth/server/pressuresvc"
)

func writeConfig(t *testing.T, dir, content string) string {
	t.Helper()
	path := filepath.Join(dir, "berthd.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const fullConfig = `# every key
listen: 0.0.0.0:7070
metricsListen: ""
dataDir: data
schedulerConfig: /etc/berth/scheduler.yaml
featureGates:
  GenericWorkload: false
  DRAPrioritizedList: true
logLevel: debug
shutdownTimeout: 30s
retainDecisions: 5000
retainFor: 168h
maxBatchObjects: 500
tls:
  cert: tls/server.pem
  key: tls/server-key.pem
  clientCA: /etc/berth/ca.pem
tokenFile: tokens
metricsAuth: token
deterministic: true
initialSyncTimeout: 30s
gcPercent: 200
dashboard: false
taintNodesByCondition: false
maxStreamsPerConn: 64
maxStreams: 1000
maxRequestBytesPerConn: 33554432
maxRequestBytes: 268435456
simulateMaxObjects: 100
simulateMaxPods: 50
simulateMaxAttempts: 200
simulateMaxResponseBytes: 1048576
simulateTimeout: 5s
simulateConcurrency: 2
defragment: true
defragmentMaxMoves: 4
defragmentTimeout: 3s
defragmentInterval: 1m
`

func TestConfigFile(t *testing.T) {
	t.Setenv("GOGC", "") // the defaults below do not depend on the caller's
	dir := t.TempDir()
	fromFile := options{
		listen: "0.0.0.0:7070", metricsListen: "", dataDir: filepath.Join(dir, "data"),
		schedulerConfig: "/etc/berth/scheduler.yaml", logLevel: slog.LevelDebug, shutdownTimeout: 30 * time.Second,
		featureGates:    "DRAPrioritizedList=true,GenericWorkload=false",
		retainDecisions: 5000, retainFor: 168 * time.Hour, maxMutations: 500,
		tls:       auth.TLSFiles{Cert: filepath.Join(dir, "tls/server.pem"), Key: filepath.Join(dir, "tls/server-key.pem"), ClientCA: "/etc/berth/ca.pem"},
		tokenFile: filepath.Join(dir, "tokens"), deterministic: true, initialSync: 30 * time.Second, gcPercent: 200,
		dashboard: false, metricsAuth: metricsAuthToken,
		limits: intake.Limits{ConnStreams: 64, Streams: 1000, ConnRequestBytes: 32 << 20, RequestBytes: 256 << 20},
		store:  storeBbolt,
		etcd:   defaultEtcdOptions(),
		defrag: defragOptions{enabled: true, maxMoves: 4, timeout: 3 * time.Second, interval: time.Minute},
		simulation: adminsvc.SimulationLimits{MaxObjects: 100, MaxPods: 50, MaxAttempts: 200, MaxResponseBytes: 1 << 20,
			Timeout: 5 * time.Second, Concurrency: 2},
	}
	tests := []struct {
		name    string
		content string
		args    []string
		want    func(path string) options
		wantErr string
	}{
		{name: "every key", content: fullConfig, want: func(path string) options {
			o := fromFile
			o.configFile = path
			return o
		}},
		{name: "flags win over the file", content: fullConfig,
			args: []string{"--listen", "127.0.0.1:9", "--retain-for", "0", "--deterministic=false", "--tls-cert", "c.pem", "--gc-percent", "-1"},
			want: func(path string) options {
				o := fromFile
				o.configFile, o.listen, o.retainFor, o.deterministic, o.tls.Cert = path, "127.0.0.1:9", 0, false, "c.pem"
				o.gcPercent = -1
				return o
			}},
		{name: "keys left out keep the defaults", content: "dataDir: /var/lib/berth\nretainFor: 0\n", want: func(path string) options {
			o := defaultOptions()
			o.configFile, o.dataDir = path, "/var/lib/berth"
			return o
		}},
		{name: "empty file", content: "", want: func(path string) options {
			o := defaultOptions()
			o.configFile = path
			return o
		}},
		{name: "unknown key", content: "listen: x\nlistn: y\n", wantErr: `unknown key "listn"; the keys here are advertiseAddress, advertiseHTTPAddress, dashboard, dataDir, defragment, defragmentInterval, defragmentMaxMoves, defragmentTimeout, deschedulerPolicy, deterministic, etcd, evictionHard,`},
		{name: "unknown nested key", content: "tls:\n  certFile: c.pem\n", wantErr: `unknown key "tls.certFile"; the keys here are cert, clientCA, key`},
		{name: "flag spelling", content: "data-dir: /x\n", wantErr: `unknown key "data-dir"`},
		{name: "a KubeSchedulerConfiguration", content: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
			wantErr: "this is a KubeSchedulerConfiguration: pass it with --scheduler-config"},
		{name: "bad duration", content: "retainFor: 7 days\n", wantErr: "retainFor"},
		{name: "duration as a number", content: "shutdownTimeout: 10\n", wantErr: `a duration is a string such as "10s"`},
		{name: "bad level", content: "logLevel: loud\n", wantErr: "loud"},
		{name: "wrong type", content: "retainDecisions: many\n", wantErr: "retainDecisions"},
		{name: "not a mapping", content: "- listen\n", wantErr: "cannot unmarshal"},
		{name: "invalid once merged", content: "tls:\n  key: k.pem\n", wantErr: "--tls-cert and --tls-key go together"},
		{name: "negative", content: "maxBatchObjects: -1\n", wantErr: "--max-batch-objects must not be negative"},
		{name: "negative simulation limit", content: "simulateMaxPods: -1\n", wantErr: "--simulate-max-pods"},
		{name: "eviction settings", content: "evictionHard: {memory.available: 200Mi}\nevictionSoft: {nodefs.available: 20%}\nevictionSoftGracePeriod: {nodefs.available: 1m}\nevictionMaxPodGracePeriod: 30\nevictionStatsMaxAge: 2m\nevictionPools:\n- nodeSelector: pool=batch\n  evictionHard: {memory.available: 1Gi}\n",
			want: func(path string) options {
				o := defaultOptions()
				o.configFile = path
				o.pressure.EvictionHard = map[string]string{"memory.available": "200Mi"}
				o.pressure.EvictionSoft = map[string]string{"nodefs.available": "20%"}
				o.pressure.EvictionSoftGracePeriod = map[string]string{"nodefs.available": "1m"}
				o.pressure.EvictionMaxPodGracePeriod = 30
				o.pressure.EvictionStatsMaxAge = "2m"
				o.pressure.EvictionPools = []pressuresvc.Pool{{NodeSelector: "pool=batch", Settings: pressure.Settings{EvictionHard: map[string]string{"memory.available": "1Gi"}}}}
				return o
			}},
		{name: "unknown signal", content: "evictionHard: {memory.free: 1Gi}\n", wantErr: "evictionHard[memory.free]: unknown eviction signal"},
		{name: "malformed quantity", content: "evictionHard: {memory.available: lots}\n", wantErr: `evictionHard[memory.available]: malformed quantity "lots"`},
		{name: "soft without grace", content: "evictionSoft: {memory.available: 1Gi}\n", wantErr: "evictionSoft[memory.available]: no grace period in evictionSoftGracePeriod"},
		{name: "negative grace", content: "evictionSoftGracePeriod: {memory.available: -1s}\n", wantErr: "evictionSoftGracePeriod[memory.available]: -1s is negative"},
		{name: "pool key unknown", content: "evictionPools:\n- nodeSelector: a=b\n  evictionHrd: {}\n", wantErr: `evictionPools[0]: json: unknown field "evictionHrd"`},
		{name: "pool selector", content: "evictionPools:\n- nodeSelector: 'a in'\n", wantErr: "evictionPools[0].nodeSelector:"},
		{name: "pool threshold", content: "evictionPools:\n- nodeSelector: a=b\n  evictionHard: {pid.available: 10%%}\n", wantErr: "evictionPools[0].evictionHard[pid.available]: malformed percentage"},
		{name: "stats max age", content: "evictionStatsMaxAge: never\n", wantErr: `evictionStatsMaxAge: "never" is not a positive duration`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeConfig(t, dir, tc.content)
			got, err := parseFlags(append([]string{"--config", path}, tc.args...), io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), path) && !strings.HasPrefix(err.Error(), "--") {
					t.Errorf("err = %v does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want(path), got, cmp.AllowUnexported(options{}, etcdOptions{}, defragOptions{})); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// The example configuration under deploy/ is valid.
func TestDeployConfigExample(t *testing.T) {
	path := filepath.Join("..", "..", "..", "deploy", "berthd.yaml")
	if _, err := parseFlags([]string{"--config", path}, io.Discard); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestDeschedulerPolicyChecked(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: RemovePodsHavingTooManyRestarts\n    args: {podRestartThreshold: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := loadDeschedulerPolicy(bad)
	if err == nil || !strings.Contains(err.Error(), "profiles[0].pluginConfig[0].args.podRestartThreshold") {
		t.Errorf("bad policy: %v; want the field named", err)
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: DefaultEvictor\n    args: {priorityThreshold: {name: not-sent-yet}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := loadDeschedulerPolicy(good); err != nil || len(data) == 0 {
		t.Errorf("good policy naming a class not sent yet: %v", err)
	}
	if data, err := loadDeschedulerPolicy(""); err != nil || data != nil {
		t.Errorf("no policy: %v, %q", err, data)
	}
}
