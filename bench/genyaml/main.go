// Command genyaml writes a benchmark workload (bench/workload) as
// Kubernetes YAML, for `kubeoracle throughput -f` and `berthctl simulate`:
//
//	go run ./bench/genyaml --workload preferred --nodes 500 --pods 1000 > cluster.yaml
//
// --workload queueing writes issue 31's queueing benchmark instead
// (core/quota/parity's WriteScale): ClusterQueues in cohorts, Kueue
// Workloads (what kueueoracle reads) or, with --jobs, queued Jobs whose
// pods are placed once admitted, and --nodes nodes:
//
//	go run ./bench/genyaml --workload queueing --cluster-queues 1000 --cohorts 50 --workloads 60000 --nodes 5000 --jobs > queueing.yaml
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/quota/parity"
)

func main() {
	name := flag.String("workload", workload.Basic, "workload name")
	nodes := flag.Int("nodes", 500, "nodes")
	pods := flag.Int("pods", 0, "pending pods (0: the suite's default)")
	existing := flag.Int("existing-pods", 0, "running pods (0: the workload's default)")
	cqs := flag.Int("cluster-queues", 1000, "queueing: ClusterQueues")
	cohorts := flag.Int("cohorts", 50, "queueing: cohorts")
	workloads := flag.Int("workloads", 1000, "queueing: workloads")
	jobs := flag.Bool("jobs", false, "queueing: queued Jobs instead of Workload objects")
	flag.Parse()
	if *name == "queueing" {
		err := parity.WriteScale(os.Stdout, 1, parity.ScaleOptions{ClusterQueues: *cqs, Cohorts: *cohorts, Workloads: *workloads, Nodes: *nodes, Jobs: *jobs})
		if err != nil {
			fmt.Fprintln(os.Stderr, "genyaml:", err)
			os.Exit(1)
		}
		return
	}
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
