package inprocess

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/plugins/registry"
)

func TestRunDecidesEveryPod(t *testing.T) {
	reg := registry.InTree()
	for _, name := range workload.Names() {
		if name == workload.Queueing {
			continue // Kueue admission runs in berthd (server/queuesvc): berthctl bench measures it
		}
		t.Run(name, func(t *testing.T) {
			if _, ok := reg[names.DefaultPreemption]; !ok && name == workload.Preemption {
				t.Skip("DefaultPreemption is not in the registry yet")
			}
			w, err := workload.Generate(name, workload.Spec{Nodes: 30, Pods: 60})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(context.Background(), w, Options{Registry: reg})
			if err != nil {
				t.Fatal(err)
			}
			type outcome struct{ Pods, Bound, Unschedulable int }
			want := outcome{Pods: 60, Bound: 60 - w.NeverFit, Unschedulable: w.NeverFit}
			if diff := cmp.Diff(want, outcome{r.Pods, r.Bound, r.Unschedulable}); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if name == workload.Preemption && r.Evicted < r.Bound {
				t.Errorf("preemption: %d evictions for %d binds", r.Evicted, r.Bound)
			}
			if r.PodsPerSecond <= 0 || r.P99LatencyMs < r.P50LatencyMs {
				t.Errorf("implausible figures: %+v", r)
			}
		})
	}
}

// TestDeterministicRunIsSimulate checks the parity the end-to-end target
// asks for: the scheduling loop, fed as berthd feeds it, decides what
// core/simulate decides on the same input.
func TestDeterministicRunIsSimulate(t *testing.T) {
	reg := registry.InTree()
	for _, name := range []string{workload.Basic, workload.Spread, workload.Affinity, workload.PreferredAffinity, workload.Unschedulable} {
		t.Run(name, func(t *testing.T) {
			w, err := workload.Generate(name, workload.Spec{Nodes: 120, Pods: 150, Existing: 37})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(context.Background(), w, Options{Registry: reg, Deterministic: true})
			if err != nil {
				t.Fatal(err)
			}
			want, err := SimulateBinds(context.Background(), w, reg, DefaultConfig(reg), 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, r.Binds); diff != "" {
				t.Errorf("binds (-simulate +run):\n%s", diff)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	tests := []struct {
		name string
		in   []int
		p    float64
		want float64
	}{
		{"empty", nil, 99, 0},
		{"one", []int{7}, 50, 7},
		{"median of four", []int{4, 1, 3, 2}, 50, 2},
		{"p99 of 100", seq(100), 99, 99},
		{"p50 of 100", seq(100), 50, 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := make([]time.Duration, len(tc.in))
			for i, v := range tc.in {
				ds[i] = time.Duration(v) * time.Millisecond
			}
			if got := Percentile(ds, tc.p); got != tc.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tc.in, tc.p, got, tc.want)
			}
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}
