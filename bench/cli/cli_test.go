package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
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
		{workload.Basic, []string{"--verify", "--rate", "1e6"}, Result{Workload: "basic", Nodes: 40, Pods: 80, Bound: 80, RatePodsPerSecond: 1e6}},
		{workload.MixedChurn, []string{"--batch", "7", "--rate", "1e6"}, Result{Workload: "mixedchurn", Nodes: 40, Pods: 80, Bound: 80, RatePodsPerSecond: 1e6}},
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
			if got.PodsPerSecond <= 0 || got.Seconds <= 0 || got.P99LatencyMs < got.P50LatencyMs || got.P90LatencyMs < got.P50LatencyMs || got.P999LatencyMs < got.P99LatencyMs || got.PeakRSSMiB <= 0 {
				t.Errorf("implausible figures: %s", out.String())
			}
			if got.Verified != nil && !*got.Verified {
				t.Errorf("binds differ from simulate's: %s", out.String())
			}
			got.Seconds, got.PodsPerSecond, got.P50LatencyMs, got.P99LatencyMs, got.PeakRSSMiB, got.Verified = 0, 0, 0, 0, 0, nil
			got.P90LatencyMs, got.P999LatencyMs = 0, 0
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
		{"negative window", []string{"--window", "-1", "--server", "127.0.0.1:1"}},
		{"syscalls without starting berthd", []string{"--syscalls", "perf", "--server", "127.0.0.1:1"}},
		{"unused queues with the queueing workload", []string{"--workload", "queueing", "--unused-queues", "--server", "127.0.0.1:1"}},
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

// TestPlanStream checks the stream cut before the clock: every event in
// order, at most --batch mutations a batch, and under --rate each pending
// pod opening its batch with its slot (the pods sent before it).
func TestPlanStream(t *testing.T) {
	w, err := workload.Generate(workload.MixedChurn, workload.Spec{Nodes: 20, Pods: 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []runOptions{{batch: 7}, {batch: 1}, {batch: 500}, {batch: 7, rate: 10}} {
		tr := newTracker(w)
		p := planStream(w, o, tr)
		if len(p.paceAt) != len(p.batches) {
			t.Fatalf("%+v: %d batches, %d pacing slots", o, len(p.batches), len(p.paceAt))
		}
		var all []*berthv1.Mutation
		pods := 0
		for i, b := range p.batches {
			if len(b) == 0 || len(b) > o.batch {
				t.Errorf("%+v: batch %d has %d mutations", o, i, len(b))
			}
			opens := b[0].GetUpsert().GetPod() != nil
			switch {
			case o.rate == 0 && p.paceAt[i] != -1:
				t.Errorf("%+v: batch %d paced without --rate", o, i)
			case o.rate > 0 && opens && p.paceAt[i] != pods:
				t.Errorf("%+v: batch %d paced at %d, want %d", o, i, p.paceAt[i], pods)
			case o.rate > 0 && !opens && p.paceAt[i] != -1:
				t.Errorf("%+v: batch %d paced without opening with a pod", o, i)
			}
			for j, m := range b {
				if pod := m.GetUpsert().GetPod(); pod != nil {
					if o.rate > 0 && j > 0 {
						t.Errorf("%+v: pod %s is not first in batch %d", o, pod.GetUid(), i)
					}
					if got := tr.pods[pod.GetUid()].batch; got != i {
						t.Errorf("%+v: pod %s recorded in batch %d, sent in %d", o, pod.GetUid(), got, i)
					}
					pods++
				}
			}
			all = append(all, b...)
		}
		if len(all) != len(w.Stream) || pods != len(w.Pending) {
			t.Fatalf("%+v: %d mutations (%d pods) for %d events (%d pending)", o, len(all), pods, len(w.Stream), len(w.Pending))
		}
		for i, ev := range w.Stream {
			m := all[i]
			var ok bool
			switch ev.Op {
			case workload.AddPod:
				ok = m.GetUpsert().GetPod().GetUid() == ev.Pod.UID && m.GetUpsert().GetPod().GetNodeName() == ""
			case workload.AddNode:
				ok = m.GetUpsert().GetNode().GetName() == ev.Node.Name
			case workload.DeleteNode:
				ok = m.GetDelete().GetKind() == berthv1.ObjectKind_OBJECT_KIND_NODE && m.GetDelete().GetName() == ev.Node.Name
			case workload.DeletePod:
				ok = m.GetDelete().GetKind() == berthv1.ObjectKind_OBJECT_KIND_POD && m.GetDelete().GetUid() == ev.Pod.UID
			}
			if !ok {
				t.Errorf("%+v: mutation %d is %v for %v", o, i, m, ev.Op)
			}
		}
	}
}

// TestConfirmation checks that a bind's confirmation is the pod's prebuilt
// proto with node_name set, and that two binds of one pod in one Watch
// response keep their own nodes.
func TestConfirmation(t *testing.T) {
	w, err := workload.Generate(workload.Basic, workload.Spec{Nodes: 2, Pods: 2, Existing: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := newTracker(w)
	pending, existing := tr.pods[w.Pending[0].UID], tr.pods[w.Existing[0].UID]
	tr.resp = 1
	a := tr.confirmation(pending, "n1")
	b := tr.confirmation(pending, "n2")
	c := tr.confirmation(existing, "n3")
	if got := []string{a.GetUpsert().GetPod().GetNodeName(), b.GetUpsert().GetPod().GetNodeName(), c.GetUpsert().GetPod().GetNodeName()}; !slices.Equal(got, []string{"n1", "n2", "n3"}) {
		t.Errorf("nodes %v, want [n1 n2 n3]", got)
	}
	if a != pending.confirm || b == a {
		t.Error("the first bind should use the prebuilt proto, the second a copy")
	}
	if got, want := c.GetUpsert().GetPod().GetUid(), w.Existing[0].UID; got != want {
		t.Errorf("existing pod's confirmation has uid %q, want %q", got, want)
	}
	tr.resp = 2
	if d := tr.confirmation(pending, "n4"); d != pending.confirm || d.GetUpsert().GetPod().GetNodeName() != "n4" {
		t.Errorf("next response: got %v, want the prebuilt proto bound to n4", d)
	}
}
