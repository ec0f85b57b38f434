// Command genyaml writes a benchmark workload (bench/workload) as
// Kubernetes YAML, for `kubeoracle throughput -f` and `berthctl simulate`:
//
//	go run ./bench/genyaml --workload preferred --nodes 500 --pods 1000 > cluster.yaml
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/berthsched/berth/bench/workload"
)

func main() {
	name := flag.String("workload", workload.Basic, "workload name")
	nodes := flag.Int("nodes", 500, "nodes")
	pods := flag.Int("pods", 0, "pending pods (0: the suite's default)")
	existing := flag.Int("existing-pods", 0, "running pods (0: the workload's default)")
	flag.Parse()
	if *pods == 0 {
		*pods = workload.DefaultPods(*name, *nodes)
	}
	w, err := workload.Generate(*name, workload.Spec{Nodes: *nodes, Pods: *pods, Existing: *existing})
	if err == nil {
		err = w.WriteYAML(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genyaml:", err)
		os.Exit(1)
	}
}
