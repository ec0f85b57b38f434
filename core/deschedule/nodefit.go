package deschedule

import (
	"sort"

	"github.com/berthsched/berth/core/model"
)

func (s *state) sortedNodes() []*model.Node {
	out := make([]*model.Node, 0, len(s.nodes))
	for _, n := range s.nodes {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// nodeFit is the Descheduler's own fit predicate set (not the
// scheduler's): the node is schedulable, matches the pod's node selector
// and required affinity, has no NoSchedule or NoExecute taint the pod does
// not tolerate, runs no pod the pod's required anti-affinity repels, and,
// unless it is the pod's own node, has room for the pod's requests.
func nodeFit(s *state, p *model.Pod, n *model.Node) bool {
	if n.Unschedulable {
		return false
	}
	if !matchesNodeSelector(p, n) {
		return false
	}
	if !toleratesTaints(p.Tolerations, sentTaints(n), scheduleEffects) {
		return false
	}
	if antiAffinityRepelledBy(s, p, n) {
		return false
	}
	if p.NodeName != n.Name && !fitsRequests(s, p, n) {
		return false
	}
	return true
}

func fitsAnyOtherNode(s *state, p *model.Pod, nodes []*model.Node) bool {
	for _, n := range nodes {
		if n.Name != p.NodeName && nodeFit(s, p, n) {
			return true
		}
	}
	return false
}

func fitsAnyNode(s *state, p *model.Pod, nodes []*model.Node) bool {
	for _, n := range nodes {
		if nodeFit(s, p, n) {
			return true
		}
	}
	return false
}

func scheduleEffects(t *model.Taint) bool {
	return t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectNoExecute
}

// toleratesTaints reports whether every taint include selects is
// tolerated.
func toleratesTaints(tols []model.Toleration, taints []model.Taint, include func(*model.Taint) bool) bool {
	_, untolerated := model.FirstUntolerated(taints, tols, include)
	return !untolerated
}

// matchesNodeSelector is kube's required node affinity: the node selector
// and the required terms.
func matchesNodeSelector(p *model.Pod, n *model.Node) bool {
	for k, v := range p.NodeSelector {
		if got, ok := n.Labels[k]; !ok || got != v {
			return false
		}
	}
	if a := p.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.Required != nil {
		return a.NodeAffinity.Required.Matches(n)
	}
	return true
}

// preferredWeight sums the weights of the pod's preferred node affinity
// terms the node matches.
func preferredWeight(p *model.Pod, n *model.Node) int32 {
	if p.Affinity == nil || p.Affinity.NodeAffinity == nil {
		return 0
	}
	var sum int32
	for _, t := range p.Affinity.NodeAffinity.Preferred {
		if t.Preference.Matches(n) {
			sum += t.Weight
		}
	}
	return sum
}

// termSelector compiles a term's label selector; nil matches nothing.
func termSelector(t *model.PodAffinityTerm) model.Selector {
	if t.LabelSelector == nil {
		return model.Nothing()
	}
	sel, err := t.LabelSelector.Compile()
	if err != nil {
		return model.Nothing()
	}
	return sel
}

// termNamespaces are the namespaces a term names, or the pod's own
// (the Descheduler ignores namespaceSelector).
func termNamespaces(p *model.Pod, t *model.PodAffinityTerm) map[string]bool {
	out := map[string]bool{}
	if len(t.Namespaces) == 0 {
		out[p.Namespace] = true
	}
	for _, ns := range t.Namespaces {
		out[ns] = true
	}
	return out
}

func requiredAntiAffinity(p *model.Pod) []model.PodAffinityTerm {
	if p.Affinity == nil || p.Affinity.PodAntiAffinity == nil {
		return nil
	}
	return p.Affinity.PodAntiAffinity.Required
}

// antiAffinityRepelledBy reports whether a pod on n matches one of p's
// required anti-affinity terms (n carrying the term's topology key).
func antiAffinityRepelledBy(s *state, p *model.Pod, n *model.Node) bool {
	terms := requiredAntiAffinity(p)
	if len(terms) == 0 {
		return false
	}
	on := s.podsOn(n.Name, nil)
	for i := range terms {
		t := &terms[i]
		nss, sel := termNamespaces(p, t), termSelector(t)
		for _, q := range on {
			if q.Name == p.Name || !nss[q.Namespace] || !sel.Matches(q.Labels) {
				continue
			}
			if _, ok := n.Labels[t.TopologyKey]; ok {
				return true
			}
		}
	}
	return false
}

// fitsRequests checks the pod's requests, and one more pod, against what
// the node's unfinished pods leave of its allocatable.
func fitsRequests(s *state, p *model.Pod, n *model.Node) bool {
	on := s.podsOn(n.Name, nil)
	var used model.Resources
	for _, q := range on {
		r := requests(q)
		used.Add(&r)
	}
	req := requests(p)
	check := func(name string, want int64) bool {
		alloc, ok := n.Allocatable[name]
		if !ok && !isBasic(name) {
			alloc = 0
			return want <= 0
		}
		return want <= alloc-used.Get(name)
	}
	for _, name := range requestedNames(&req) {
		if !check(name, req.Get(name)) {
			return false
		}
	}
	return n.Allocatable[model.ResourcePods]-int64(len(on)) > 0
}

func isBasic(name string) bool {
	return name == model.ResourceCPU || name == model.ResourceMemory || name == model.ResourcePods
}

// requestedNames lists the resources r asks a non-zero amount of.
func requestedNames(r *model.Resources) []string {
	var out []string
	for _, name := range []string{model.ResourceCPU, model.ResourceMemory, model.ResourceEphemeralStorage} {
		if r.Get(name) != 0 {
			out = append(out, name)
		}
	}
	for name, v := range r.Scalar {
		if v != 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
