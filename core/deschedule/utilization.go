package deschedule

import (
	"sort"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
)

// usage is a node's requested resources (cpu in millicores, pods as a
// count) over the resources a strategy looks at.
type usage map[string]int64

// nodeUsage is a node as the utilization strategies classify it.
type nodeUsage struct {
	node      *model.Node
	usage     usage
	pods      []*model.Pod
	available usage // capacity capped at the node's upper threshold
}

// utilizationNames are the resources a strategy measures: those of its
// thresholds plus cpu, memory and pods.
func utilizationNames(thresholds map[string]float64) []string {
	set := map[string]bool{model.ResourceCPU: true, model.ResourceMemory: true, model.ResourcePods: true}
	for name := range thresholds {
		set[name] = true
	}
	out := make([]string, 0, len(set))
	for name := range set {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func (r *run) measure(n *model.Node, names []string) nodeUsage {
	pods := r.s.podsOn(n.Name, nil)
	u := usage{}
	for _, name := range names {
		u[name] = 0
	}
	for _, p := range pods {
		req := requests(p)
		for _, name := range names {
			if name != model.ResourcePods {
				u[name] += req.Get(name)
			}
		}
	}
	if _, ok := u[model.ResourcePods]; ok {
		u[model.ResourcePods] = int64(len(pods))
	}
	return nodeUsage{node: n, usage: u, pods: pods}
}

// percent is the node's usage of each resource as a percentage of its
// allocatable; resources it has no allocatable of are left out.
func percent(n *model.Node, u usage) map[string]float64 {
	out := map[string]float64{}
	for name, used := range u {
		capacity, ok := n.Allocatable[name]
		if !ok {
			continue
		}
		var pct float64
		if capacity > 0 {
			pct = float64(used) / float64(capacity) * 100
		}
		out[name] = pct
	}
	return out
}

// capped is the node's allocatable of each resource, capped at the
// threshold percentage where one is given.
func capped(n *model.Node, thresholds map[string]float64, names []string) usage {
	out := usage{}
	for _, name := range names {
		capacity, ok := n.Allocatable[name]
		if !ok {
			out[name] = 0
			continue
		}
		t, ok := thresholds[name]
		if !ok {
			out[name] = capacity
			continue
		}
		out[name] = int64(t * 0.01 * float64(capacity))
	}
	return out
}

// below: no threshold resource is used above its threshold.
func below(pct, threshold map[string]float64) bool {
	for name, t := range threshold {
		if t < pct[name] {
			return false
		}
	}
	return true
}

// above: some threshold resource is used above its threshold.
func above(pct, threshold map[string]float64) bool {
	for name, t := range threshold {
		if t < pct[name] {
			return true
		}
	}
	return false
}

func (n *nodeUsage) aboveTarget() bool {
	for name, v := range n.usage {
		if n.available[name] < v {
			return true
		}
	}
	return false
}

func average(pcts map[string]map[string]float64, names []string) map[string]float64 {
	out := map[string]float64{}
	if len(pcts) == 0 {
		return out
	}
	for _, name := range names {
		var sum float64
		for _, p := range pcts {
			sum += p[name]
		}
		out[name] = sum / float64(len(pcts))
	}
	return out
}

func clampSum(a, b map[string]float64, sign float64) map[string]float64 {
	out := map[string]float64{}
	for name, v := range a {
		out[name] = min(max(v+sign*b[name], 0), 100)
	}
	for name, v := range b {
		if _, ok := a[name]; !ok {
			out[name] = min(max(sign*v, 0), 100)
		}
	}
	return out
}

// lowNodeUtilization moves pods from nodes above the target thresholds
// to nodes under the thresholds, while the source stays above its target
// and the under-utilized nodes have room.
func (r *run) lowNodeUtilization(a *policy.LowNodeUtilizationArgs, nodes []*model.Node) {
	names := utilizationNames(a.Thresholds)
	measured := make([]nodeUsage, len(nodes))
	pcts := map[string]map[string]float64{}
	for i, n := range nodes {
		measured[i] = r.measure(n, names)
		pcts[n.Name] = percent(n, measured[i].usage)
	}
	low, high := a.Thresholds, a.TargetThresholds
	if a.UseDeviationThresholds {
		own := map[string]map[string]float64{}
		var thresholdNames []string
		for name := range a.Thresholds {
			thresholdNames = append(thresholdNames, name)
		}
		for node, p := range pcts {
			q := map[string]float64{}
			for _, name := range thresholdNames {
				if v, ok := p[name]; ok {
					q[name] = v
				}
			}
			own[node] = q
		}
		avg := average(own, thresholdNames)
		low, high = clampSum(avg, a.Thresholds, -1), clampSum(avg, a.TargetThresholds, 1)
		pcts = own
	}
	var under, over []nodeUsage
	for i := range measured {
		m := measured[i]
		p := pcts[m.node.Name]
		switch {
		case !m.node.Unschedulable && below(p, low):
			m.available = capped(m.node, high, names)
			under = append(under, m)
		case above(p, high):
			m.available = capped(m.node, high, names)
			over = append(over, m)
		}
	}
	if len(under) == 0 || len(under) <= a.NumberOfNodes || len(under) == len(nodes) || len(over) == 0 {
		return
	}
	sortByUsage(over, false)
	keepGoing := func(n *nodeUsage, total usage) bool {
		if !n.aboveTarget() {
			return false
		}
		for _, v := range total {
			if v <= 0 {
				return false
			}
		}
		return true
	}
	r.evictFromSources(policy.LowNodeUtilization, a.EvictableNamespaces, over, under, names, keepGoing, a.MaxEvictionsPerNode, r.ev.filter)
}

// highNodeUtilization empties the nodes under the thresholds onto the
// others, least used first, while those have room.
func (r *run) highNodeUtilization(a *policy.HighNodeUtilizationArgs, nodes []*model.Node) {
	names := utilizationNames(a.Thresholds)
	full := map[string]float64{}
	for name := range a.Thresholds {
		full[name] = 100
	}
	var under, rest []nodeUsage
	for _, n := range nodes {
		m := r.measure(n, names)
		p := percent(n, m.usage)
		switch {
		case below(p, a.Thresholds):
			m.available = capped(n, full, names)
			under = append(under, m)
		case !n.Unschedulable:
			m.available = capped(n, full, names)
			rest = append(rest, m)
		}
	}
	if len(under) == 0 || len(under) <= a.NumberOfNodes || len(under) == len(nodes) || len(rest) == 0 {
		return
	}
	filter := r.ev.filter
	if a.OnlyThresholdingResources {
		filter = func(p *model.Pod) bool {
			if !r.ev.filter(p) {
				return false
			}
			for _, cs := range [][]model.Container{p.Containers, p.InitContainers} {
				for _, c := range cs {
					for name := range a.Thresholds {
						if _, ok := c.Requests[name]; ok {
							return true
						}
					}
				}
			}
			return false
		}
	}
	sortByUsage(under, true)
	keepGoing := func(_ *nodeUsage, total usage) bool {
		for _, v := range total {
			if v <= 0 {
				return false
			}
		}
		return true
	}
	r.evictFromSources(policy.HighNodeUtilization, a.EvictableNamespaces, under, rest, names, keepGoing, nil, filter)
}

// sortByUsage orders nodes by the sum of their usage figures (cpu in
// millicores, the rest in their units), as the Descheduler does.
func sortByUsage(nodes []nodeUsage, ascending bool) {
	total := func(n *nodeUsage) int64 {
		var t int64
		for _, v := range n.usage {
			t += v
		}
		return t
	}
	sort.SliceStable(nodes, func(i, j int) bool {
		if ascending {
			return total(&nodes[i]) < total(&nodes[j])
		}
		return total(&nodes[i]) > total(&nodes[j])
	})
}

func (r *run) evictFromSources(strategy string, evictable *policy.Namespaces, sources, destinations []nodeUsage, names []string,
	keepGoing func(*nodeUsage, usage) bool, perNode *uint, filter func(*model.Pod) bool) {
	total := usage{}
	for _, d := range destinations {
		for _, name := range names {
			total[name] += d.available[name] - d.usage[name]
		}
	}
	for i := range sources {
		src := &sources[i]
		var removable []*model.Pod
		for _, p := range src.pods {
			if filter(p) {
				removable = append(removable, p)
			}
		}
		if len(removable) == 0 {
			continue
		}
		sortByPriority(removable)
		if !keepGoing(src, total) {
			continue
		}
		var evicted uint
		for _, p := range removable {
			if perNode != nil && evicted >= *perNode {
				break
			}
			if !toleratesSomeNode(p, destinations) {
				continue
			}
			if (evictable != nil && contains(evictable.Exclude, p.Namespace)) || !r.ev.preEviction(p) {
				continue
			}
			err := r.evict(p, strategy)
			if isLimit(err, LimitTotal) {
				return
			}
			if isLimit(err, LimitNode) {
				break
			}
			if err != nil {
				continue // refused, or the namespace limit: try the next pod
			}
			evicted++
			req := requests(p)
			for _, name := range names {
				v := req.Get(name)
				if name == model.ResourcePods {
					v = 1
				}
				src.usage[name] -= v
				total[name] -= v
			}
			if !keepGoing(src, total) {
				break
			}
		}
	}
}

// toleratesSomeNode: the pod tolerates every taint of some destination.
func toleratesSomeNode(p *model.Pod, nodes []nodeUsage) bool {
	for _, d := range nodes {
		taints := sentTaints(d.node)
		if len(p.Tolerations) >= len(taints) && toleratesTaints(p.Tolerations, taints, nil) {
			return true
		}
	}
	return false
}
