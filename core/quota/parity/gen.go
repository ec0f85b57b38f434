package parity

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// GenOptions shape a generated admission scenario.
type GenOptions struct {
	ClusterQueues int  // 2..ClusterQueues queues
	Workloads     int  // pending workloads
	Admitted      int  // workloads already admitted (status.admission)
	Hierarchical  bool // cohorts with parents and cohort quota
	Preemption    bool // random preemption policies and priorities
	Flavors       int  // flavors per resource group (1..Flavors)
	V1beta1       bool // write the objects in kueue.x-k8s.io/v1beta1
	FairSharing   bool // a Configuration enabling fair sharing, random weights and strategies
}

// Generate writes a random Kueue scenario as multi-document YAML: flavors
// (some with labels and taints), a cohort forest, ClusterQueues with
// random quotas, limits, strategies, fungibility and preemption, one
// LocalQueue each, and workloads with distinct creation times.
func Generate(seed uint64, o GenOptions) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := &gen{r: r, o: o, api: "kueue.x-k8s.io/v1beta2"}
	if o.V1beta1 {
		g.api = "kueue.x-k8s.io/v1beta1"
	}
	return g.run()
}

type gen struct {
	r   *rand.Rand
	o   GenOptions
	api string
	b   strings.Builder
}

func (g *gen) doc(format string, args ...any) {
	g.b.WriteString("---\n")
	fmt.Fprintf(&g.b, format, args...)
}

func (g *gen) pick(vs ...string) string { return vs[g.r.IntN(len(vs))] }

type genCQ struct {
	name, cohort string
	flavors      []string
	memory       bool
	ns           string
}

func (g *gen) run() string {
	nFlavors := max(1, g.o.Flavors)
	if g.o.FairSharing {
		strategies := g.pick("[LessThanOrEqualToFinalShare, LessThanInitialShare]", "[LessThanOrEqualToFinalShare]", "[LessThanInitialShare]")
		g.doc("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing:\n  enable: true\n  preemptionStrategies: %s\n", strategies)
	}
	for i := 0; i < nFlavors; i++ {
		switch g.r.IntN(4) {
		case 0:
			g.doc("apiVersion: %s\nkind: ResourceFlavor\nmetadata: {name: f%d}\nspec:\n  nodeLabels: {pool: p%d}\n  nodeTaints: [{key: spot, value: \"true\", effect: NoSchedule}]\n", g.api, i, i)
		case 1:
			g.doc("apiVersion: %s\nkind: ResourceFlavor\nmetadata: {name: f%d}\nspec:\n  nodeLabels: {pool: p%d}\n", g.api, i, i)
		default:
			g.doc("apiVersion: %s\nkind: ResourceFlavor\nmetadata: {name: f%d}\n", g.api, i)
		}
	}
	g.doc("apiVersion: %s\nkind: WorkloadPriorityClass\nmetadata: {name: low}\nvalue: 100\n", g.api)
	g.doc("apiVersion: %s\nkind: WorkloadPriorityClass\nmetadata: {name: high}\nvalue: 1000\n", g.api)
	cohorts := []string{"pool-a", "pool-b"}
	if g.o.Hierarchical {
		g.doc("apiVersion: %s\nkind: Cohort\nmetadata: {name: root}\nspec:\n%s", g.api, g.cohortQuota(nFlavors))
		g.doc("apiVersion: %s\nkind: Cohort\nmetadata: {name: pool-a}\nspec:\n  parentName: root\n%s", g.api, g.weight())
		g.doc("apiVersion: %s\nkind: Cohort\nmetadata: {name: pool-b}\nspec:\n  parentName: root\n%s", g.api, g.cohortQuota(nFlavors))
	}
	n := 2 + g.r.IntN(max(1, g.o.ClusterQueues-1))
	var cqs []genCQ
	for i := 0; i < n; i++ {
		cq := genCQ{name: fmt.Sprintf("cq-%d", i), ns: fmt.Sprintf("team-%d", i), memory: g.r.IntN(5) == 0}
		if g.r.IntN(5) != 0 {
			cq.cohort = cohorts[g.r.IntN(len(cohorts))]
		}
		k := 1 + g.r.IntN(nFlavors)
		perm := g.r.Perm(nFlavors)
		for _, j := range perm[:k] {
			cq.flavors = append(cq.flavors, fmt.Sprintf("f%d", j))
		}
		cqs = append(cqs, cq)
		g.clusterQueue(cq)
		g.doc("apiVersion: %s\nkind: LocalQueue\nmetadata: {namespace: %s, name: lq}\nspec: {clusterQueue: %s}\n", g.api, cq.ns, cq.name)
	}
	g.doc("apiVersion: v1\nkind: Namespace\nmetadata: {name: team-0, labels: {tier: gold}}\n")
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	t := 0
	for i := 0; i < g.o.Admitted; i++ {
		t++
		cq := cqs[g.r.IntN(len(cqs))]
		g.workload(fmt.Sprintf("run-%d", i), cq, base.Add(time.Duration(t)*time.Second), true)
	}
	for i := 0; i < g.o.Workloads; i++ {
		t++
		cq := cqs[g.r.IntN(len(cqs))]
		g.workload(fmt.Sprintf("wl-%d", i), cq, base.Add(time.Duration(t)*time.Second), false)
	}
	return g.b.String()
}

func (g *gen) cohortQuota(nFlavors int) string {
	var b strings.Builder
	b.WriteString("  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n")
	for i := 0; i < nFlavors; i++ {
		fmt.Fprintf(&b, "    - name: f%d\n      resources: [{name: cpu, nominalQuota: %d}]\n", i, g.r.IntN(6))
	}
	return b.String()
}

func (g *gen) clusterQueue(cq genCQ) {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: ClusterQueue\nmetadata: {name: %s}\nspec:\n", g.api, cq.name)
	switch g.r.IntN(6) {
	case 0:
		b.WriteString("  namespaceSelector: {matchLabels: {tier: gold}}\n")
	default:
		b.WriteString("  namespaceSelector: {}\n")
	}
	if cq.cohort != "" {
		if g.o.V1beta1 {
			fmt.Fprintf(&b, "  cohort: %s\n", cq.cohort)
		} else {
			fmt.Fprintf(&b, "  cohortName: %s\n", cq.cohort)
		}
	}
	if g.r.IntN(3) == 0 {
		b.WriteString("  queueingStrategy: StrictFIFO\n")
	}
	b.WriteString(g.weight())
	if g.r.IntN(2) == 0 {
		borrow, preempt := g.pick("MayStopSearch", "TryNextFlavor"), g.pick("MayStopSearch", "TryNextFlavor")
		if g.o.V1beta1 {
			borrow = map[string]string{"MayStopSearch": "Borrow", "TryNextFlavor": "TryNextFlavor"}[borrow]
			preempt = map[string]string{"MayStopSearch": "Preempt", "TryNextFlavor": "TryNextFlavor"}[preempt]
		}
		fmt.Fprintf(&b, "  flavorFungibility: {whenCanBorrow: %s, whenCanPreempt: %s}\n", borrow, preempt)
	}
	if g.o.Preemption && g.r.IntN(4) != 0 {
		within := g.pick("Never", "LowerPriority", "LowerOrNewerEqualPriority")
		reclaim := g.pick("Never", "LowerPriority", "Any")
		fmt.Fprintf(&b, "  preemption:\n    withinClusterQueue: %s\n    reclaimWithinCohort: %s\n", within, reclaim)
		if reclaim != "Never" && g.r.IntN(2) == 0 {
			b.WriteString("    borrowWithinCohort: {policy: LowerPriority")
			if g.r.IntN(2) == 0 {
				fmt.Fprintf(&b, ", maxPriorityThreshold: %d", g.pick2(100, 500))
			}
			b.WriteString("}\n")
		}
	}
	res := []string{"cpu"}
	if cq.memory {
		res = append(res, "memory")
	}
	fmt.Fprintf(&b, "  resourceGroups:\n  - coveredResources: [%s]\n    flavors:\n", strings.Join(res, ", "))
	for _, f := range cq.flavors {
		fmt.Fprintf(&b, "    - name: %s\n      resources:\n", f)
		for _, rname := range res {
			nominal := g.r.IntN(9)
			unit := ""
			if rname == "memory" {
				// Memory is ample: where two resources of a group both
				// fail, Kueue's message follows Go's map order.
				nominal, unit = 32+g.r.IntN(33), "Gi"
			}
			fmt.Fprintf(&b, "      - name: %s\n        nominalQuota: %d%s\n", rname, nominal, unit)
			if cq.cohort != "" && g.r.IntN(3) == 0 {
				fmt.Fprintf(&b, "        borrowingLimit: %d%s\n", g.r.IntN(5), unit)
			}
			if cq.cohort != "" && g.r.IntN(4) == 0 && nominal > 0 {
				fmt.Fprintf(&b, "        lendingLimit: %d%s\n", g.r.IntN(nominal+1), unit)
			}
		}
	}
	g.doc("%s", b.String())
}

// weight is a random fairSharing stanza (fair-sharing scenarios only).
func (g *gen) weight() string {
	if !g.o.FairSharing || g.r.IntN(2) == 0 {
		return ""
	}
	return fmt.Sprintf("  fairSharing: {weight: %q}\n", g.pick("0", "0.5", "1", "2", "3"))
}

func (g *gen) pick2(a, b int) int {
	if g.r.IntN(2) == 0 {
		return a
	}
	return b
}

func (g *gen) workload(name string, cq genCQ, created time.Time, admitted bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: Workload\nmetadata: {namespace: %s, name: %s, creationTimestamp: %q}\nspec:\n  queueName: lq\n",
		g.api, cq.ns, name, created.Format(time.RFC3339))
	if g.o.Preemption {
		switch g.r.IntN(4) {
		case 0:
			g.priorityClass(&b, "low")
		case 1:
			g.priorityClass(&b, "high")
		case 2:
			fmt.Fprintf(&b, "  priority: %d\n", g.r.IntN(3)*300)
		}
	}
	nps := 1
	if !admitted && g.r.IntN(5) == 0 {
		nps = 2
	}
	b.WriteString("  podSets:\n")
	type ps struct {
		name  string
		count int
	}
	var sets []ps
	for i := 0; i < nps; i++ {
		p := ps{name: fmt.Sprintf("ps%d", i), count: 1 + g.r.IntN(3)}
		sets = append(sets, p)
		fmt.Fprintf(&b, "  - name: %s\n    count: %d\n", p.name, p.count)
		if !admitted && p.count > 1 && g.r.IntN(4) == 0 {
			fmt.Fprintf(&b, "    minCount: %d\n", 1+g.r.IntN(p.count-1))
		}
		req := fmt.Sprintf("cpu: %q", fmt.Sprint(1+g.r.IntN(3)))
		if cq.memory {
			req += ", memory: 1Gi"
		}
		spec := ""
		switch g.r.IntN(8) {
		case 0:
			spec = "tolerations: [{key: spot, operator: Exists}], "
		case 1:
			spec = fmt.Sprintf("nodeSelector: {pool: p%d}, ", g.r.IntN(max(1, g.o.Flavors)))
		}
		fmt.Fprintf(&b, "    template: {spec: {%scontainers: [{name: c, image: i, resources: {requests: {%s}}}]}}\n", spec, req)
	}
	if admitted {
		f := cq.flavors[g.r.IntN(len(cq.flavors))]
		fmt.Fprintf(&b, "status:\n  admission:\n    clusterQueue: %s\n    podSetAssignments:\n", cq.name)
		for _, p := range sets {
			flv := "cpu: " + f
			if cq.memory {
				flv += ", memory: " + f
			}
			fmt.Fprintf(&b, "    - name: %s\n      flavors: {%s}\n", p.name, flv)
		}
	}
	g.doc("%s", b.String())
}

func (g *gen) priorityClass(b *strings.Builder, name string) {
	if g.o.V1beta1 {
		fmt.Fprintf(b, "  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass\n  priorityClassName: %s\n", name)
		return
	}
	fmt.Fprintf(b, "  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: %s}\n", name)
}
