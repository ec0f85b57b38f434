package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/plugins/registry"
)

// TestBenchAgainstServer drives the command against a stand-in berthd
// (the real scheduling loop behind Sync and Watch) and checks the JSON
// line: every pod decided, binds identical to simulate's with a
// deterministic server.
func TestBenchAgainstServer(t *testing.T) {
	tests := []struct {
		workload string
		args     []string
		want     Result
	}{
		{workload.Basic, []string{"--verify"}, Result{Workload: "basic", Nodes: 40, Pods: 80, Bound: 80}},
		{workload.Affinity, []string{"--verify", "--batch", "7"}, Result{Workload: "affinity", Nodes: 40, Pods: 80, Bound: 80}},
		{workload.Unschedulable, []string{"--verify"}, Result{Workload: "unschedulable", Nodes: 40, Pods: 80, Bound: 72, Unschedulable: 8}},
		{workload.MixedChurn, nil, Result{Workload: "mixedchurn", Nodes: 40, Pods: 80, Bound: 80}},
		{workload.Preemption, []string{"--pods", "10"}, Result{Workload: "preemption", Nodes: 40, Pods: 10, Bound: 10, Evicted: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.workload, func(t *testing.T) {
			if _, ok := registry.InTree()[names.DefaultPreemption]; !ok && tc.workload == workload.Preemption {
				t.Skip("DefaultPreemption is not in the registry yet")
			}
			addr := startFake(t, true)
			var out, errOut bytes.Buffer
			cmd := NewCommand(Options{})
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(append([]string{"--workload", tc.workload, "--nodes", "40", "--server", addr, "-o", "json"}, tc.args...))
			if err := cmd.ExecuteContext(context.Background()); err != nil {
				t.Fatalf("bench: %v\n%s", err, errOut.String())
			}
			var got Result
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("output %q: %v", out.String(), err)
			}
			if got.PodsPerSecond <= 0 || got.Seconds <= 0 || got.P99LatencyMs < got.P50LatencyMs || got.PeakRSSMiB <= 0 {
				t.Errorf("implausible figures: %s", out.String())
			}
			if got.Verified != nil && !*got.Verified {
				t.Errorf("binds differ from simulate's: %s", out.String())
			}
			got.Seconds, got.PodsPerSecond, got.P50LatencyMs, got.P99LatencyMs, got.PeakRSSMiB, got.Verified = 0, 0, 0, 0, 0, nil
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(Result{}), cmp.FilterPath(func(p cmp.Path) bool {
				return p.Last().String() == ".binds"
			}, cmp.Ignore())); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"bad output", []string{"-o", "yaml", "--server", "127.0.0.1:1"}},
		{"no runs", []string{"--runs", "0", "--server", "127.0.0.1:1"}},
		{"unknown workload", []string{"--workload", "nope", "--server", "127.0.0.1:1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := NewCommand(Options{})
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SetArgs(tc.args)
			if err := cmd.ExecuteContext(context.Background()); err == nil {
				t.Error("got nil error")
			}
		})
	}
}

// BenchmarkFakeServer runs the client against the stand-in berthd of the
// tests (real scheduling loop, real gRPC on loopback, in-memory decision
// log — not durable): what the end-to-end level costs beyond the core,
// short of the store. Not a substitute for the real berthd.
//
//	go test -run '^$' -bench BenchmarkFakeServer -benchtime 1x ./bench/cli
func BenchmarkFakeServer(b *testing.B) {
	for range b.N {
		addr := startFakeB(b)
		w, err := workload.Generate(workload.Basic, workload.Spec{Nodes: 5000, Pods: 10000})
		if err != nil {
			b.Fatal(err)
		}
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		r, err := run(context.Background(), conn, w, runOptions{batch: 500, wait: 10 * time.Minute})
		conn.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.PodsPerSecond, "pods/s")
		b.ReportMetric(r.P50LatencyMs, "p50-ms")
		b.ReportMetric(r.P99LatencyMs, "p99-ms")
	}
}
