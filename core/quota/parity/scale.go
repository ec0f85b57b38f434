package parity

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// ScaleOptions shape the benchmark scenario of issue 31: ClusterQueues
// in cohorts, each with one LocalQueue, and workloads spread over them.
type ScaleOptions struct {
	ClusterQueues int
	Cohorts       int
	Workloads     int
	// Nodes, when set, adds that many nodes of 32 cpu (the queueing
	// benchmark's 5,000), for admission and placement end to end.
	Nodes int
	// Jobs writes each workload as a batch/v1 Job labelled with its
	// queue (parallelism = its pod count), whose pods berthctl simulate
	// places once admitted, instead of a Workload object (what
	// kueueoracle reads).
	Jobs bool
}

// GenerateScale writes a large Kueue scenario as YAML: one flavor, every
// ClusterQueue with 10 CPU of nominal quota and unlimited borrowing in
// its cohort, BestEffortFIFO and preemption within the ClusterQueue by
// priority, workloads of 1..4 pods of 1 CPU with two priorities, so that
// about half fit and the rest wait, borrow or preempt.
func GenerateScale(seed uint64, o ScaleOptions) string {
	var b strings.Builder
	_ = WriteScale(&b, seed, o) // a strings.Builder does not fail
	return b.String()
}

// WriteScale is GenerateScale writing to w (60,000 workloads are about
// 25 MB of YAML).
func WriteScale(w io.Writer, seed uint64, o ScaleOptions) error {
	r := rand.New(rand.NewPCG(seed, seed+1))
	b := bufio.NewWriter(w)
	for i := 0; i < o.Nodes; i++ {
		fmt.Fprintf(b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: node-%05d, labels: {kubernetes.io/hostname: node-%05d, topology.kubernetes.io/zone: zone-%d}}\nstatus: {allocatable: {cpu: \"32\", memory: 128Gi, pods: \"110\"}}\n", i, i, i%10)
	}
	b.WriteString("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n")
	if o.Jobs {
		b.WriteString("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: p0}\nvalue: 0\n")
		b.WriteString("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: p100}\nvalue: 100\n")
	}
	for i := 0; i < o.ClusterQueues; i++ {
		fmt.Fprintf(b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq-%d}\nspec:\n  namespaceSelector: {}\n  cohortName: cohort-%d\n  preemption: {withinClusterQueue: LowerPriority}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 10}]}]\n", i, i%max(1, o.Cohorts))
		fmt.Fprintf(b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {namespace: ns-%d, name: lq}\nspec: {clusterQueue: cq-%d}\n", i, i)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < o.Workloads; i++ {
		cq := r.IntN(o.ClusterQueues)
		created := base.Add(time.Duration(i+1) * time.Second).Format(time.RFC3339)
		prio, pods := 100*r.IntN(2), 1+r.IntN(4)
		if o.Jobs {
			fmt.Fprintf(b, "---\napiVersion: batch/v1\nkind: Job\nmetadata: {namespace: ns-%d, name: w-%d, creationTimestamp: %q, labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: p%d}}\nspec:\n  parallelism: %d\n  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i, resources: {requests: {cpu: \"1\"}}}]}}\n",
				cq, i, created, prio, pods)
			continue
		}
		fmt.Fprintf(b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {namespace: ns-%d, name: w-%d, creationTimestamp: %q}\nspec:\n  queueName: lq\n  priority: %d\n  podSets: [{name: main, count: %d, template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: \"1\"}}}]}}}]\n",
			cq, i, created, prio, pods)
	}
	return b.Flush()
}
