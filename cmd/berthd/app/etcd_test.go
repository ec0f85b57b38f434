package app

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/berthsched/berth/store/etcdstore/etcdtest"
)

func TestEtcdFlags(t *testing.T) {
	etcd := func(o etcdOptions) options {
		d := defaultOptions()
		d.store, d.etcd = storeEtcd, o
		return d
	}
	tests := []struct {
		name    string
		args    []string
		want    options
		wantErr string
	}{
		{name: "all set", args: []string{"--store", "etcd", "--etcd-endpoints", "https://e1:2379, https://e2:2379", "--etcd-cert", "c.pem", "--etcd-key", "k.pem",
			"--etcd-ca", "ca.pem", "--etcd-username", "berth", "--etcd-password-file", "pw", "--etcd-prefix", "/prod/", "--etcd-lease-ttl", "5s", "--advertise-address", "berthd-1:7070"},
			want: func() options {
				o := etcd(etcdOptions{endpoints: "https://e1:2379, https://e2:2379", cert: "c.pem", key: "k.pem", ca: "ca.pem",
					username: "berth", passwordFile: "pw", prefix: "/prod/", leaseTTL: 5 * time.Second})
				o.advertise = "berthd-1:7070"
				return o
			}()},
		{name: "unknown store", args: []string{"--store", "sqlite"}, wantErr: `--store "sqlite": want bbolt or etcd`},
		{name: "no endpoints", args: []string{"--store", "etcd"}, wantErr: "--store etcd needs --etcd-endpoints"},
		{name: "key without cert", args: []string{"--store", "etcd", "--etcd-endpoints", "e:2379", "--etcd-key", "k.pem"}, wantErr: "--etcd-cert and --etcd-key go together"},
		{name: "user without password", args: []string{"--store", "etcd", "--etcd-endpoints", "e:2379", "--etcd-username", "u"}, wantErr: "--etcd-username and --etcd-password-file go together"},
		{name: "prefix without slash", args: []string{"--store", "etcd", "--etcd-endpoints", "e:2379", "--etcd-prefix", "/berth"}, wantErr: `--etcd-prefix "/berth": want a non-empty prefix ending in /`},
		{name: "short lease", args: []string{"--store", "etcd", "--etcd-endpoints", "e:2379", "--etcd-lease-ttl", "500ms"}, wantErr: "at least 1s"},
		{name: "no password flag", args: []string{"--etcd-password", "secret"}, wantErr: "flag provided but not defined: -etcd-password"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFlags(tc.args, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v; want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(options{}, etcdOptions{}, defragOptions{})); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEtcdConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, `store: etcd
advertiseAddress: berthd-2:7070
etcd:
  endpoints: [https://e1:2379, https://e2:2379]
  cert: tls/etcd.pem
  key: tls/etcd-key.pem
  ca: /etc/etcd/ca.pem
  username: berth
  passwordFile: etcd-password
  prefix: /staging/
  leaseTTL: 15s
`)
	got, err := parseFlags([]string{"--config", path}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := etcdOptions{endpoints: "https://e1:2379,https://e2:2379", cert: filepath.Join(dir, "tls/etcd.pem"), key: filepath.Join(dir, "tls/etcd-key.pem"),
		ca: "/etc/etcd/ca.pem", username: "berth", passwordFile: filepath.Join(dir, "etcd-password"), prefix: "/staging/", leaseTTL: 15 * time.Second}
	if diff := cmp.Diff(want, got.etcd, cmp.AllowUnexported(etcdOptions{})); diff != "" {
		t.Errorf("etcd options (-want +got):\n%s", diff)
	}
	if got.store != storeEtcd || got.advertise != "berthd-2:7070" {
		t.Errorf("store %q, advertise %q; want etcd, berthd-2:7070", got.store, got.advertise)
	}
	if _, err := parseFlags([]string{"--config", writeConfig(t, dir, "etcd:\n  password: x\n")}, io.Discard); err == nil || !strings.Contains(err.Error(), `unknown key "etcd.password"`) {
		t.Errorf("a password in the file = %v; want the key refused", err)
	}
}

// TestRunEtcdUnreachable: with etcd down, berthd says which endpoints it
// cannot reach and keeps trying; it stops cleanly when told to.
func TestRunEtcdUnreachable(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + lis.Addr().String()
	lis.Close()
	ctx, cancel := context.WithCancel(t.Context())
	stderr := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--store", "etcd", "--etcd-endpoints", dead, "--listen", "127.0.0.1:0", "--metrics-listen", ""}, io.Discard, stderr)
	}()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stderr.String(), "cannot open the store on etcd; retrying"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no retry logged in a minute; log:\n%s", stderr)
		}
	}
	if !strings.Contains(stderr.String(), "endpoints="+dead) {
		t.Errorf("the log does not name the endpoints %s:\n%s", dead, stderr)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v after cancel; want nil", err)
	}
}

// TestRunEtcdServes: berthd --store etcd leads alone and reports SERVING
// for writes.
func TestRunEtcdServes(t *testing.T) {
	e, _ := etcdtest.New(t)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("unused\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--store", "etcd", "--etcd-endpoints", e.Endpoint(), "--etcd-prefix", "/run/", "--etcd-lease-ttl", "1s",
			"--listen", addr, "--metrics-listen", ""}, io.Discard, io.Discard)
	}()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "berth.v1.StateService"})
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("berth.v1.StateService not SERVING after a minute: %v, %v", resp, err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v after cancel; want nil", err)
	}
}

// TestRunEtcdOtherSchema: a prefix written by another schema version
// stops berthd with the versions named, before it serves anything.
func TestRunEtcdOtherSchema(t *testing.T) {
	e, cli := etcdtest.New(t)
	if _, err := cli.Put(t.Context(), "/old/meta/schema-version", "9"); err != nil {
		t.Fatal(err)
	}
	err := run(t.Context(), []string{"--store", "etcd", "--etcd-endpoints", e.Endpoint(), "--etcd-prefix", "/old/",
		"--listen", "127.0.0.1:0", "--metrics-listen", ""}, io.Discard, io.Discard)
	want := `store: etcd key prefix "/old/" has schema version 9, newer than version 1 that this berthd supports`
	if err == nil || err.Error() != want {
		t.Errorf("run = %v; want %q", err, want)
	}
}
