package workload

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/berthsched/berth/core/model"
)

// WriteYAML writes the workload's cluster before the clock starts (priority
// classes, nodes, running pods, then the pending pods) as multi-document
// Kubernetes YAML, in the layout of `kubeoracle gen`: for basic, spread,
// affinity and preemption the output is byte for byte kubeoracle's. The
// churn of MixedChurn is not written.
func (w *Workload) WriteYAML(out io.Writer) error {
	bw := bufio.NewWriterSize(out, 1<<20)
	for _, pc := range w.PriorityClasses {
		fmt.Fprintf(bw, "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: %s\n  uid: pc-%s\nvalue: %d\n",
			pc.Name, pc.Name, pc.Value)
	}
	for _, n := range w.Nodes {
		writeNode(bw, n)
	}
	if w.Devices != nil {
		if err := w.Devices.writeYAML(bw); err != nil {
			return err
		}
	}
	if w.Storage != nil {
		if err := w.Storage.writeYAML(bw); err != nil {
			return err
		}
	}
	if w.Queues != nil {
		if err := w.Queues.writeYAML(bw); err != nil {
			return err
		}
	}
	for _, g := range w.PodGroups {
		fmt.Fprintf(bw, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: %s\n  namespace: %s\n"+
			"spec:\n  schedulingPolicy:\n    gang:\n      minCount: %d\n", g.Name, g.Namespace, g.MinCount)
	}
	for _, p := range w.Existing {
		writePod(bw, p)
	}
	for _, p := range w.Pending {
		writePod(bw, p)
	}
	return bw.Flush()
}

func writeNode(w *bufio.Writer, n *model.Node) {
	w.WriteString("---\napiVersion: v1\nkind: Node\nmetadata:\n")
	writeMap(w, "  labels", n.Labels, "    ")
	fmt.Fprintf(w, "  name: %s\n  uid: node-%s\n", n.Name, n.Name)
	if n.Unschedulable {
		w.WriteString("spec:\n  unschedulable: true\n")
	}
	res := "    cpu: \"" + quantityCPU(n.Allocatable[model.ResourceCPU]) + "\"\n" +
		"    memory: " + quantityBytes(n.Allocatable[model.ResourceMemory]) + "\n" +
		"    pods: \"" + strconv.FormatInt(n.Allocatable[model.ResourcePods], 10) + "\"\n"
	w.WriteString("status:\n  allocatable:\n" + res + "  capacity:\n" + res)
	w.WriteString("  conditions:\n  - status: \"True\"\n    type: Ready\n  phase: Running\n")
}

func writePod(w *bufio.Writer, p *model.Pod) {
	ts := p.CreationTime.UTC().Format(time.RFC3339)
	fmt.Fprintf(w, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: %q\n", ts)
	writeMap(w, "  labels", p.Labels, "    ")
	fmt.Fprintf(w, "  name: %s\n  namespace: %s\n  uid: %s\nspec:\n", p.Name, p.Namespace, p.UID)
	if p.SchedulingGroup != "" {
		fmt.Fprintf(w, "  schedulingGroup:\n    podGroupName: %s\n", p.SchedulingGroup)
	}
	if a := p.Affinity; a != nil {
		w.WriteString("  affinity:\n")
		if a.PodAffinity != nil {
			w.WriteString("    podAffinity:\n")
			writeTerms(w, a.PodAffinity.Required, a.PodAffinity.Preferred)
		}
		if a.PodAntiAffinity != nil {
			w.WriteString("    podAntiAffinity:\n")
			writeTerms(w, a.PodAntiAffinity.Required, a.PodAntiAffinity.Preferred)
		}
	}
	w.WriteString("  containers:\n")
	for _, c := range p.Containers {
		fmt.Fprintf(w, "  - image: %s\n    name: %s\n    resources:\n", c.Image, c.Name)
		for i, claim := range c.Claims {
			if i == 0 {
				w.WriteString("      claims:\n")
			}
			fmt.Fprintf(w, "      - name: %s\n", claim)
		}
		w.WriteString("      requests:\n")
		fmt.Fprintf(w, "        cpu: %s\n", yamlQuantity(quantityCPU(c.Requests[model.ResourceCPU])))
		// kubeoracle's layout always has memory; the queueing workload's
		// pods ask for none (their ClusterQueues cover only cpu).
		if mem, ok := c.Requests[model.ResourceMemory]; ok {
			fmt.Fprintf(w, "        memory: %s\n", quantityBytes(mem))
		}
	}
	for i, e := range p.ResourceClaims {
		if i == 0 {
			w.WriteString("  resourceClaims:\n")
		}
		if e.TemplateName != "" {
			fmt.Fprintf(w, "  - name: %s\n    resourceClaimTemplateName: %s\n", e.Name, e.TemplateName)
		} else {
			fmt.Fprintf(w, "  - name: %s\n    resourceClaimName: %s\n", e.Name, e.ClaimName)
		}
	}
	if p.NodeName != "" {
		fmt.Fprintf(w, "  nodeName: %s\n", p.NodeName)
	}
	for i, v := range p.Volumes {
		if i == 0 {
			w.WriteString("  volumes:\n")
		}
		fmt.Fprintf(w, "  - name: %s\n    persistentVolumeClaim:\n      claimName: %s\n", v.Name, v.ClaimName)
	}
	if p.PriorityClassName != "" {
		fmt.Fprintf(w, "  priorityClassName: %s\n", p.PriorityClassName)
	}
	for i, c := range p.TopologySpreadConstraints {
		if i == 0 {
			w.WriteString("  topologySpreadConstraints:\n")
		}
		w.WriteString("  - labelSelector:\n")
		writeMap(w, "      matchLabels", c.LabelSelector.MatchLabels, "        ")
		fmt.Fprintf(w, "    maxSkew: %d\n    topologyKey: %s\n    whenUnsatisfiable: %s\n", c.MaxSkew, c.TopologyKey, c.WhenUnsatisfiable)
	}
	if p.NodeName != "" {
		fmt.Fprintf(w, "status:\n  phase: Running\n  startTime: %q\n", p.StartTime.UTC().Format(time.RFC3339))
	} else {
		w.WriteString("status:\n  phase: Pending\n")
	}
}

// writeTerms writes pod (anti-)affinity terms; only label selectors with
// matchLabels and a topology key are used by the workloads.
func writeTerms(w *bufio.Writer, required []model.PodAffinityTerm, preferred []model.WeightedPodAffinityTerm) {
	for i, wt := range preferred {
		if i == 0 {
			w.WriteString("      preferredDuringSchedulingIgnoredDuringExecution:\n")
		}
		w.WriteString("      - podAffinityTerm:\n          labelSelector:\n")
		writeMap(w, "            matchLabels", wt.Term.LabelSelector.MatchLabels, "              ")
		fmt.Fprintf(w, "          topologyKey: %s\n        weight: %d\n", wt.Term.TopologyKey, wt.Weight)
	}
	for i, t := range required {
		if i == 0 {
			w.WriteString("      requiredDuringSchedulingIgnoredDuringExecution:\n")
		}
		w.WriteString("      - labelSelector:\n")
		writeMap(w, "          matchLabels", t.LabelSelector.MatchLabels, "            ")
		fmt.Fprintf(w, "        topologyKey: %s\n", t.TopologyKey)
	}
}

// writeMap writes a string map with sorted keys, as sigs.k8s.io/yaml does.
func writeMap(w *bufio.Writer, key string, m map[string]string, indent string) {
	if len(m) == 0 {
		return
	}
	w.WriteString(key + ":\n")
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w.WriteString(indent + k + ": " + m[k] + "\n")
	}
}

// quantityCPU formats millicores as Kubernetes does: whole cores without
// a suffix, else millicores with "m".
func quantityCPU(milli int64) string {
	if milli%1000 == 0 {
		return strconv.FormatInt(milli/1000, 10)
	}
	return strconv.FormatInt(milli, 10) + "m"
}

// yamlQuantity quotes a quantity that YAML would read as a number.
func yamlQuantity(q string) string {
	if _, err := strconv.ParseInt(q, 10, 64); err == nil {
		return strconv.Quote(q)
	}
	return q
}

// quantityBytes formats bytes with the largest binary suffix that divides
// them, as the canonical form of a quantity written with one.
func quantityBytes(b int64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"Ei", 60}, {"Pi", 50}, {"Ti", 40}, {"Gi", 30}, {"Mi", 20}, {"Ki", 10}} {
		if b != 0 && b%(1<<u.shift) == 0 {
			return strconv.FormatInt(b>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(b, 10)
}
