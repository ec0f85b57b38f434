package parity

import (
	"fmt"
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
}

// GenerateScale writes a large Kueue scenario as YAML: one flavor, every
// ClusterQueue with 10 CPU of nominal quota and unlimited borrowing in
// its cohort, BestEffortFIFO and preemption within the ClusterQueue by
// priority, workloads of 1..4 pods of 1 CPU with two priorities, so that
// about half fit and the rest wait, borrow or preempt.
func GenerateScale(seed uint64, o ScaleOptions) string {
	r := rand.New(rand.NewPCG(seed, seed+1))
	var b strings.Builder
	b.WriteString("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n")
	for i := 0; i < o.ClusterQueues; i++ {
		fmt.Fprintf(&b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq-%d}\nspec:\n  namespaceSelector: {}\n  cohortName: cohort-%d\n  preemption: {withinClusterQueue: LowerPriority}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 10}]}]\n", i, i%max(1, o.Cohorts))
		fmt.Fprintf(&b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {namespace: ns-%d, name: lq}\nspec: {clusterQueue: cq-%d}\n", i, i)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < o.Workloads; i++ {
		cq := r.IntN(o.ClusterQueues)
		fmt.Fprintf(&b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {namespace: ns-%d, name: w-%d, creationTimestamp: %q}\nspec:\n  queueName: lq\n  priority: %d\n  podSets: [{name: main, count: %d, template: {spec: {containers: [{name: c, image: i, resources: {requests: {cpu: \"1\"}}}]}}}]\n",
			cq, i, base.Add(time.Duration(i+1)*time.Second).Format(time.RFC3339), 100*r.IntN(2), 1+r.IntN(4))
	}
	return b.String()
}
