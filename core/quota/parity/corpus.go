package parity

import "fmt"

// Scenario is one generated input of the corpus.
type Scenario struct {
	Name string
	Seed uint64
	Opts GenOptions
}

// Corpus is the set of scenarios parity is measured on.
func Corpus() []Scenario {
	var out []Scenario
	add := func(prefix string, from, to uint64, o GenOptions) {
		for s := from; s <= to; s++ {
			out = append(out, Scenario{Name: fmt.Sprintf("%s-%03d", prefix, s), Seed: s, Opts: o})
		}
	}
	add("quota", 1, 25, GenOptions{ClusterQueues: 4, Workloads: 12, Flavors: 2})
	add("preempt", 101, 130, GenOptions{ClusterQueues: 4, Workloads: 10, Admitted: 8, Flavors: 2, Preemption: true})
	add("tree", 201, 225, GenOptions{ClusterQueues: 5, Workloads: 12, Admitted: 5, Flavors: 2, Preemption: true, Hierarchical: true})
	add("fair", 401, 430, GenOptions{ClusterQueues: 4, Workloads: 10, Admitted: 8, Flavors: 2, Preemption: true, FairSharing: true})
	add("fairtree", 501, 515, GenOptions{ClusterQueues: 5, Workloads: 10, Admitted: 6, Flavors: 2, Preemption: true, Hierarchical: true, FairSharing: true})
	// Seeds of TestProgress's fair-sharing kind: fairwide-1030 is an
	// over-committed ClusterQueue whose negative reservation a cycle must
	// take back exactly.
	add("fairwide", 1000, 1030, GenOptions{ClusterQueues: 4, Workloads: 10, Admitted: 8, Flavors: 2, Preemption: true, FairSharing: true})
	// treewide-1006: a preemptor's reservation and an admission in one
	// cycle change the same cohorts; the next cycle must see the cohorts'
	// usage as Kueue's snapshot rebuilds it.
	add("treewide", 1000, 1015, GenOptions{ClusterQueues: 5, Workloads: 12, Admitted: 5, Flavors: 2, Preemption: true, Hierarchical: true})
	add("v1beta1", 301, 315, GenOptions{ClusterQueues: 4, Workloads: 10, Admitted: 4, Flavors: 3, Preemption: true, V1beta1: true})
	return out
}
