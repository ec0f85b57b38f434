package inprocess

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
)

// Flags of BenchmarkWorkload, for sizes beyond the suite's (bench/compare.py
// passes them).
var (
	benchSizes = flag.String("bench.sizes", "", "comma-separated cluster sizes for BenchmarkWorkload (default: the suite's, 500 and 5000)")
	benchPods  = flag.Int("bench.pods", 0, "pending pods per BenchmarkWorkload run (default: the suite's for the size)")
)

// BenchmarkWorkload runs each workload of the suite at 500 and 5000 nodes
// (two pending pods per node; preemption: one per five nodes), one whole
// run per iteration, and reports pods/s and the latency percentiles.
// Generating the cluster and loading it are outside the timer.
// -bench.sizes and -bench.pods choose other sizes.
//
//	go test -run '^$' -bench BenchmarkWorkload -benchtime 1x ./bench/inprocess
//	go test -run '^$' -bench 'BenchmarkWorkload/spread/15000nodes' -benchtime 1x ./bench/inprocess -bench.sizes 15000
func BenchmarkWorkload(b *testing.B) {
	reg := registry.InTree()
	sizes, err := parseSizes(*benchSizes)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range workload.Names() {
		if name == workload.Queueing {
			continue // Kueue admission runs in berthd (server/queuesvc): berthctl bench measures it
		}
		for _, nodes := range sizes {
			b.Run(fmt.Sprintf("%s/%dnodes", name, nodes), func(b *testing.B) {
				if _, ok := reg[names.DefaultPreemption]; !ok && name == workload.Preemption {
					b.Skip("DefaultPreemption is not in the registry yet")
				}
				benchmarkWorkload(b, name, nodes, cmp.Or(*benchPods, workload.DefaultPods(name, nodes)))
			})
		}
	}
}

// parseSizes reads -bench.sizes; the suite's sizes when empty.
func parseSizes(list string) ([]int, error) {
	if list == "" {
		return workload.Sizes(), nil
	}
	var sizes []int
	for f := range strings.SplitSeq(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-bench.sizes: %q is not a positive number", f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

func benchmarkWorkload(b *testing.B, name string, nodes, pods int) {
	var seconds, p50, p99 float64
	for range b.N {
		b.StopTimer()
		w, err := workload.Generate(name, workload.Spec{Nodes: nodes, Pods: pods})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		r, err := Run(context.Background(), w, Options{})
		if err != nil {
			b.Fatal(err)
		}
		seconds += r.Seconds
		p50 += r.P50LatencyMs
		p99 += r.P99LatencyMs
	}
	n := float64(b.N)
	b.ReportMetric(float64(pods)*n/seconds, "pods/s")
	b.ReportMetric(p50/n, "p50-ms")
	b.ReportMetric(p99/n, "p99-ms")
}

// BenchmarkPreemption runs the preemption workload at the sizes issue 18
// names: 1000 nodes with 200 preemptors, 5000 with 1000, and 5000 with
// 10000 (every node full of low-priority pods, each preemptor evicts one).
//
//	go test -run '^$' -bench BenchmarkPreemption -benchtime 1x ./bench/inprocess
//	go test -run '^$' -bench 'BenchmarkPreemption/5000nodes-10000pods' -benchtime 1x ./bench/inprocess
func BenchmarkPreemption(b *testing.B) {
	for _, size := range []struct{ nodes, pods int }{{1000, 200}, {5000, 1000}, {5000, 10000}} {
		b.Run(fmt.Sprintf("%dnodes-%dpods", size.nodes, size.pods), func(b *testing.B) {
			benchmarkWorkload(b, workload.Preemption, size.nodes, size.pods)
		})
	}
}

// BenchmarkLatency offers basic pods at 1000 pods/s (5000 nodes, 5000
// pods) and reports the latency percentiles (issue 8: p99 under 5 ms).
//
//	go test -run '^$' -bench BenchmarkLatency -benchtime 1x ./bench/inprocess
func BenchmarkLatency(b *testing.B) {
	const nodes, pods, rate = 5000, 5000, 1000
	var p50, p99 float64
	for range b.N {
		w, err := workload.Generate(workload.Basic, workload.Spec{Nodes: nodes, Pods: pods})
		if err != nil {
			b.Fatal(err)
		}
		r, err := Run(context.Background(), w, Options{Rate: rate})
		if err != nil {
			b.Fatal(err)
		}
		p50 += r.P50LatencyMs
		p99 += r.P99LatencyMs
	}
	b.ReportMetric(p50/float64(b.N), "p50-ms")
	b.ReportMetric(p99/float64(b.N), "p99-ms")
}

// BenchmarkCostGrowth measures the cost of one pod as the cluster grows:
// 5000 basic pods per iteration on 500, 1000, 5000 and 15000 nodes (or
// the -bench.sizes given), the default profile with the adaptive
// percentage of nodes to score, driven as Run drives the scheduler
// (adding, the scheduling cycle, the binding cycle, the confirmation of
// the bind). Besides the wall time per pod it reports the process's CPU
// time and allocations per pod, which the machine's load changes little,
// and the live heap per node with the cluster loaded.
//
//	go test -run '^$' -bench BenchmarkCostGrowth -benchtime 3x ./bench/inprocess
//	go test -run '^$' -bench 'BenchmarkCostGrowth$' -benchtime 1x ./bench/inprocess -bench.sizes 5000,15000,50000,100000
func BenchmarkCostGrowth(b *testing.B) {
	sizes := workload.CostSizes()
	if *benchSizes != "" {
		var err error
		if sizes, err = parseSizes(*benchSizes); err != nil {
			b.Fatal(err)
		}
	}
	for _, nodes := range sizes {
		b.Run(fmt.Sprintf("%dnodes", nodes), func(b *testing.B) { benchmarkCost(b, workload.Basic, nodes) })
	}
}

// benchmarkCost reports the cost per pod of 5000 pending pods of a
// workload (-bench.pods: another number).
func benchmarkCost(b *testing.B, name string, nodes int) {
	pods := cmp.Or(*benchPods, 5000)
	var seconds, cpu float64
	var alloc, heap int64
	for range b.N {
		w, err := workload.Generate(name, workload.Spec{Nodes: nodes, Pods: pods})
		if err != nil {
			b.Fatal(err)
		}
		r, err := Run(context.Background(), w, Options{Measure: true})
		if err != nil {
			b.Fatal(err)
		}
		seconds += r.Seconds
		cpu += r.CPUSeconds
		alloc += r.AllocBytes
		heap += r.LoadedHeapBytes
	}
	n := float64(b.N)
	perPod := seconds * 1e9 / (n * float64(pods))
	b.ReportMetric(perPod, "ns/pod")
	b.ReportMetric(1e9/perPod, "pods/s")
	b.ReportMetric(cpu*1e9/(n*float64(pods)), "cpu-ns/pod")
	b.ReportMetric(float64(alloc)/(n*float64(pods)), "B/pod")
	b.ReportMetric(float64(heap)/(n*float64(nodes)), "heap-B/node")
}

// BenchmarkCostGrowthTopology is BenchmarkCostGrowth for the spread and
// affinity workloads at 500, 5000 and 15000 nodes (issue 18: per-pod cost
// near flat as the cluster grows), 5000 pending pods each.
//
//	go test -run '^$' -bench BenchmarkCostGrowthTopology -benchtime 1x ./bench/inprocess
func BenchmarkCostGrowthTopology(b *testing.B) {
	for _, name := range []string{workload.Spread, workload.Affinity} {
		for _, nodes := range []int{500, 5000, 15000} {
			b.Run(fmt.Sprintf("%s/%dnodes", name, nodes), func(b *testing.B) { benchmarkCost(b, name, nodes) })
		}
	}
}

// BenchmarkMemory measures the live heap the scheduler holds per node and
// per queued pod (the model objects included: the scheduler keeps them),
// after a GC, at 5000 nodes and 10000 pending pods. Issue 8's targets:
// under 8 KiB per node, under 2 KiB per queued pod.
//
//	go test -run '^$' -bench BenchmarkMemory -benchtime 1x ./bench/inprocess
func BenchmarkMemory(b *testing.B) {
	const nodes, pods = 5000, 10000
	ctx := context.Background()
	for range b.N {
		reg := registry.InTree()
		s, err := scheduler.New(ctx, scheduler.Options{Config: DefaultConfig(reg), Registry: reg, Decisions: nopSink{}})
		if err != nil {
			b.Fatal(err)
		}
		base := liveHeap()
		w, err := workload.Generate(workload.Basic, workload.Spec{Nodes: nodes, Pods: pods})
		if err != nil {
			b.Fatal(err)
		}
		if err := Load(ctx, s, w); err != nil {
			b.Fatal(err)
		}
		w.Nodes = nil // the generator's slices are not the scheduler's
		withNodes := liveHeap()
		for _, p := range w.Pending {
			if err := s.AddPod(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
		w.Pending, w.Stream = nil, nil
		withPods := liveHeap()
		b.ReportMetric(float64(withNodes-base)/nodes, "B/node")
		b.ReportMetric(float64(withPods-withNodes)/pods, "B/queued-pod")
		if got := s.View().Stats(); got.Queue.Active != pods {
			b.Fatalf("stats: %+v, want %d pending", got, pods)
		}
		runtime.KeepAlive(s)
	}
}

type nopSink struct{}

func (nopSink) Submit(context.Context, framework.Plan) (framework.PlanResult, error) {
	return framework.PlanResult{}, nil
}

// BenchmarkUnusedFeatures checks that what a workload does not use costs
// it nothing (issue 32: within 5 %): basic, spread and affinity at 5000
// nodes, 5000 pods, each run plain and again with the volumes workload's
// storage (a StorageClass, a CSIDriver, a CSINode per node, a capacity per
// zone, but no claim), alternating, three runs each. It reports the
// medians of CPU time per pod and their ratio (with/plain; the CPU time
// is the process's, which the load changes less than the wall time).
//
//	go test -run '^$' -bench BenchmarkUnusedFeatures -benchtime 1x ./bench/inprocess
func BenchmarkUnusedFeatures(b *testing.B) {
	const nodes, pods, runs = 5000, 5000, 3
	for _, name := range []string{workload.Basic, workload.Spread, workload.Affinity} {
		b.Run(name, func(b *testing.B) {
			vol, err := workload.Generate(workload.Volumes, workload.Spec{Nodes: nodes, Pods: 1})
			if err != nil {
				b.Fatal(err)
			}
			storage := *vol.Storage
			storage.Claims = nil
			var plain, with []float64
			for range b.N * runs {
				for _, withStorage := range []bool{false, true} {
					w, err := workload.Generate(name, workload.Spec{Nodes: nodes, Pods: pods})
					if err != nil {
						b.Fatal(err)
					}
					if withStorage {
						w.Storage = &storage
					}
					r, err := Run(context.Background(), w, Options{Measure: true})
					if err != nil {
						b.Fatal(err)
					}
					perPod := r.CPUSeconds * 1e9 / float64(pods)
					if withStorage {
						with = append(with, perPod)
					} else {
						plain = append(plain, perPod)
					}
				}
			}
			p, s := median(plain), median(with)
			b.ReportMetric(p, "plain-cpu-ns/pod")
			b.ReportMetric(s, "storage-cpu-ns/pod")
			b.ReportMetric(s/p, "ratio")
		})
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
