package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/cmd/berthd/app"
	"github.com/berthsched/berth/core/framework"
)

// The library entry point with the example's plugin and configuration
// places a pod where the plugin prefers; without them berthd places it
// where kube-scheduler's defaults do (equal nodes: the smallest name,
// under --deterministic).
func TestPluginPlacesPod(t *testing.T) {
	tests := []struct {
		name     string
		config   bool
		opts     []app.Option
		wantNode string
		wantLog  []string
	}{
		{
			name: "with the plugin", config: true, opts: withPlugins(), wantNode: "n2",
			wantLog: []string{"plugins=DefaultBinder,", ",PreferNodeLabel,", "out_of_tree=PreferNodeLabel"},
		},
		{name: "without it", wantNode: "n1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			sock := filepath.Join(dir, "berthd.sock")
			args := []string{"--listen", "unix://" + sock, "--metrics-listen", "", "--data-dir", filepath.Join(dir, "data"), "--deterministic"}
			if tt.config {
				args = append(args, "--scheduler-config", "scheduler-config.yaml")
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- app.Main(ctx, args, io.Discard, &stderr, tt.opts...) }()

			conn := dial(t, sock)
			watch, err := berthv1.NewDecisionServiceClient(conn).Watch(ctx, &berthv1.WatchRequest{}, grpc.WaitForReady(true))
			if err != nil {
				t.Fatalf("Watch: %v", err)
			}
			if _, err := watch.Recv(); err != nil { // established
				t.Fatalf("Watch: %v", err)
			}
			resp, err := berthv1.NewStateServiceClient(conn).Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{
				node("n1", nil),
				node("n2", map[string]string{"example.com/tier": "fast"}),
				node("n3", map[string]string{"example.com/tier": "slow"}),
				{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
					Uid: "uid-p1", Namespace: "default", Name: "p1",
					Containers: []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": 500}}},
				}}},
			}})
			if err != nil || len(resp.GetErrors()) > 0 {
				t.Fatalf("Apply: %v %v", err, resp.GetErrors())
			}
			if got := firstBind(t, watch); got != tt.wantNode {
				t.Errorf("p1 bound to %q, want %q", got, tt.wantNode)
			}
			cancel()
			if code := <-done; code != 0 {
				t.Fatalf("Main = %d, want 0; stderr:\n%s", code, stderr.String())
			}
			for _, want := range tt.wantLog {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("the start's log lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}

// berthd refuses at start, naming the plugin, a configuration enabling a
// plugin nobody added and a plugin added under an in-tree name.
func TestPluginRefusals(t *testing.T) {
	nop := func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) { return nil, nil }
	tests := []struct {
		name string
		opts []app.Option
		want string
	}{
		{"config without the plugin", nil, `unknown plugin: "PreferNodeLabel"`},
		{"in-tree name", []app.Option{app.WithPlugin("NodeName", nop)}, `a plugin named "NodeName" is registered already`},
		{"added twice", append(withPlugins(), withPlugins()...), `a plugin named "PreferNodeLabel" is registered already`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var stderr bytes.Buffer
			code := app.Main(t.Context(), []string{"--listen", "unix://" + filepath.Join(dir, "s"), "--metrics-listen", "",
				"--data-dir", filepath.Join(dir, "data"), "--scheduler-config", "scheduler-config.yaml"}, io.Discard, &stderr, tt.opts...)
			if code != 1 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("Main = %d, stderr %q; want 1 and %q", code, stderr.String(), tt.want)
			}
		})
	}
}

func node(name string, labels map[string]string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: name, Labels: labels,
		Allocatable: map[string]int64{"cpu": 4000, "memory": 8 << 30, "pods": 110},
	}}}
}

// firstBind reads the watch until its first Bind and returns its node.
func firstBind(t *testing.T, watch berthv1.DecisionService_WatchClient) string {
	t.Helper()
	for {
		r, err := watch.Recv()
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		for _, d := range r.GetDecisions() {
			if b := d.GetBind(); b != nil {
				return b.GetNode()
			}
		}
	}
}

// dial connects to a Unix socket, retrying quickly while berthd starts.
func dial(t *testing.T, sock string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+sock,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 5 * time.Millisecond, Multiplier: 1.6, MaxDelay: 50 * time.Millisecond},
			MinConnectTimeout: time.Second,
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
