// Command multileader simulates scheduling past one leader: K schedulers
// over one cluster, either optimistic (Omega's shape: each sees every
// node and commits a bind in a transaction that checks the node) or
// partitioned (each owns a slice of the nodes). A cycle costs what
// Berth's cycle measured (docs/performance.md "Cost growth"); commits and
// watches take the latencies given. It prints one line per run: bound
// pods per second of simulated time, conflicts, spills and how evenly the
// nodes were filled. docs/performance.md "Beyond one leader" reads it.
//
//	go run ./bench/multileader --sweep
//	go run ./bench/multileader --nodes 100000 --pods 200000 --schedulers 4 --mode optimistic --check version
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "multileader:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("multileader", flag.ContinueOnError)
	p := Params{}
	fs.IntVar(&p.Nodes, "nodes", 100000, "nodes in the cluster")
	fs.IntVar(&p.Pods, "pods", 200000, "pods to place")
	fs.IntVar(&p.Schedulers, "schedulers", 1, "schedulers (leaders)")
	mode := fs.String("mode", string(Optimistic), "optimistic or partitioned")
	check := fs.String("check", string(CheckVersion), "what an optimistic commit compares: version or fit")
	fs.IntVar(&p.NodeCPU, "node-cpu", 32, "each node's cpu")
	podCPU := fs.String("pod-cpu", "1,2,4", "pod cpu requests, drawn uniformly")
	fs.Float64Var(&p.CycleFixed, "cycle-fixed", 25e-6, "a cycle's fixed cost, seconds")
	fs.Float64Var(&p.PerNodeVisited, "per-node", 175e-9, "a cycle's cost per node visited, seconds")
	fs.Float64Var(&p.CommitLatency, "commit-latency", 2e-3, "from decision to commit, seconds")
	fs.Float64Var(&p.WatchDelay, "watch-delay", 1e-3, "from commit to the other schedulers' views, seconds")
	fs.Uint64Var(&p.Seed, "seed", 1, "random seed")
	sweep := fs.Bool("sweep", false, "run the table of docs/performance.md instead of one run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	p.Mode, p.Check = Mode(*mode), Check(*check)
	for _, f := range strings.Split(*podCPU, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("--pod-cpu: %q is not a whole number", f)
		}
		p.PodCPU = append(p.PodCPU, c)
	}
	runs := []Params{p}
	if *sweep {
		runs = sweepRuns(p)
	}
	fmt.Fprintln(out, "mode         check    nodes   pods  K  view-nodes  cycle-ms  pods/s  conflicts%  spills  unplaceable  util-stddev")
	for _, r := range runs {
		res, err := Run(r)
		if err != nil {
			return err
		}
		chk := string(res.Check)
		if res.Mode == Partitioned {
			chk = "-"
		}
		attempts := res.Bound + res.Conflicts
		fmt.Fprintf(out, "%-12s %-7s %6d %6d %2d %11d %9.3f %7.0f %11.2f %7d %12d %12.4f\n",
			res.Mode, chk, res.Nodes, res.Pods, res.Schedulers, res.NodesPerView,
			1e3*(res.CycleFixed+res.PerNodeVisited*float64(visited(res.NodesPerView))),
			res.PodsPerSec, 100*float64(res.Conflicts)/float64(max(attempts, 1)), res.Spills, res.Unplaceable, res.UtilStddev)
	}
	return nil
}

// sweepRuns is the table: 100k and 200k nodes, 100k pods, 1 to 8
// schedulers, each mode and check.
func sweepRuns(base Params) []Params {
	var out []Params
	for _, nodes := range []int{100000, 200000} {
		for _, k := range []int{1, 2, 4, 8} {
			for _, mc := range []struct {
				m Mode
				c Check
			}{{Optimistic, CheckVersion}, {Optimistic, CheckFit}, {Partitioned, CheckVersion}} {
				if k == 1 && mc != (struct {
					m Mode
					c Check
				}{Optimistic, CheckVersion}) {
					continue
				}
				p := base
				p.Nodes, p.Pods, p.Schedulers, p.Mode, p.Check = nodes, 100000, k, mc.m, mc.c
				out = append(out, p)
			}
		}
	}
	return out
}
