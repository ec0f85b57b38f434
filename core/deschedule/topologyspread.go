package deschedule

import (
	"math"
	"reflect"
	"sort"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
)

// spread is one distinct topology spread constraint of a namespace's pods.
type spread struct {
	maxSkew     int32
	key         string
	sel         model.Selector
	selText     string
	honorAff    bool
	affinityOf  *model.Pod // the pod whose required node affinity counts (honorAff)
	honorTaints bool
	tolerations []model.Toleration
}

func newSpread(c *model.TopologySpreadConstraint, p *model.Pod) (spread, bool) {
	ls := model.LabelSelector{}
	if c.LabelSelector != nil {
		ls = *c.LabelSelector
	}
	sel := model.Nothing()
	if c.LabelSelector != nil {
		compiled, err := c.LabelSelector.Compile()
		if err != nil {
			return spread{}, false
		}
		sel = compiled
	}
	if len(c.MatchLabelKeys) > 0 && c.LabelSelector != nil {
		extra := map[string]string{}
		for _, k := range c.MatchLabelKeys {
			if v, ok := p.Labels[k]; ok {
				extra[k] = v
			}
		}
		if len(extra) > 0 {
			merged := model.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: ls.MatchExpressions}
			for k, v := range ls.MatchLabels {
				merged.MatchLabels[k] = v
			}
			for k, v := range extra {
				merged.MatchLabels[k] = v
			}
			if compiled, err := merged.Compile(); err == nil {
				sel = compiled
			}
		}
	}
	s := spread{maxSkew: c.MaxSkew, key: c.TopologyKey, sel: sel, selText: sel.String()}
	s.honorAff = c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == model.NodeInclusionPolicyHonor
	s.honorTaints = c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == model.NodeInclusionPolicyHonor
	if s.honorAff {
		s.affinityOf = p
	}
	if s.honorTaints {
		s.tolerations = p.Tolerations
	}
	return s, true
}

// same compares what the Descheduler's identical-constraint check does.
func (s *spread) same(o *spread) bool {
	if s.maxSkew != o.maxSkew || s.key != o.key || s.selText != o.selText || s.honorAff != o.honorAff || s.honorTaints != o.honorTaints {
		return false
	}
	if s.honorAff && !(sameStringMap(s.affinityOf.NodeSelector, o.affinityOf.NodeSelector) &&
		reflect.DeepEqual(requiredTerms(s.affinityOf), requiredTerms(o.affinityOf))) {
		return false
	}
	return !s.honorTaints || reflect.DeepEqual(s.tolerations, o.tolerations)
}

// includes is the constraint's node inclusion policy.
func (s *spread) includes(n *model.Node) bool {
	if s.honorAff && !matchesNodeSelector(s.affinityOf, n) {
		return false
	}
	if s.honorTaints && !toleratesTaints(s.tolerations, sentTaints(n), scheduleEffects) {
		return false
	}
	return true
}

type domain struct {
	value string
	pods  []*model.Pod
}

// topologySpread evicts the fewest pods that bring each namespace's spread
// constraints within their max skew, from the largest domains towards the
// smallest.
func (r *run) topologySpread(a *policy.TopologySpreadArgs, nodes []*model.Node) {
	byName := map[string]*model.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	allowed := map[model.UnsatisfiableConstraintAction]bool{}
	for _, c := range a.Constraints {
		allowed[c] = true
	}
	listed := func(p *model.Pod) bool { return a.Filtered.Matches(p) && r.ev.filter(p) }
	byNS := map[string][]*model.Pod{}
	var namespaces []string
	for _, n := range nodes {
		for _, p := range r.s.podsOn(n.Name, listed) {
			if byNS[p.Namespace] == nil {
				namespaces = append(namespaces, p.Namespace)
			}
			byNS[p.Namespace] = append(byNS[p.Namespace], p)
		}
	}
	sort.Strings(namespaces)
	chosen := map[*model.Pod]bool{}
	var order []*model.Pod
	for _, ns := range namespaces {
		var constraints []spread
		for _, p := range byNS[ns] {
			for i := range p.TopologySpreadConstraints {
				c := &p.TopologySpreadConstraints[i]
				if !allowed[c.WhenUnsatisfiable] {
					continue
				}
				s, ok := newSpread(c, p)
				if !ok {
					continue
				}
				dup := false
				for j := range constraints {
					dup = dup || constraints[j].same(&s)
				}
				if !dup {
					constraints = append(constraints, s)
				}
			}
		}
		for i := range constraints {
			s := &constraints[i]
			domains := map[string][]*model.Pod{}
			for _, n := range nodes {
				if v, ok := n.Labels[s.key]; ok && s.includes(n) {
					domains[v] = []*model.Pod{}
				}
			}
			var sum float64
			for _, p := range byNS[ns] {
				if p.Terminating || !s.sel.Matches(p.Labels) {
					continue
				}
				n, ok := byName[p.NodeName]
				if !ok {
					continue
				}
				v, ok := n.Labels[s.key]
				if !ok {
					continue
				}
				domains[v] = append(domains[v], p)
				sum++
			}
			if balanced(domains, s.maxSkew) {
				continue
			}
			for _, p := range r.balanceDomains(a, s, domains, sum, nodes) {
				if !chosen[p] {
					chosen[p] = true
					order = append(order, p)
				}
			}
		}
	}
	limited := map[string]bool{}
	for _, p := range order {
		if limited[p.NodeName] || !listed(p) || !r.ev.preEviction(p) {
			continue
		}
		err := r.evict(p, policy.RemovePodsViolatingTopologySpreadConstraint)
		switch {
		case isLimit(err, LimitNode):
			limited[p.NodeName] = true
		case isLimit(err, LimitTotal):
			return
		}
	}
}

func balanced(domains map[string][]*model.Pod, maxSkew int32) bool {
	lo, hi := math.MaxInt32, math.MinInt32
	for _, pods := range domains {
		lo, hi = min(lo, len(pods)), max(hi, len(pods))
		if int32(hi-lo) > maxSkew {
			return false
		}
	}
	return true
}

// balanceDomains picks the pods to move from domains above the ideal
// average to those below, half the excess skew at a time.
func (r *run) balanceDomains(a *policy.TopologySpreadArgs, s *spread, byValue map[string][]*model.Pod, sum float64, nodes []*model.Node) []*model.Pod {
	ideal := sum / float64(len(byValue))
	domains := sortDomains(byValue, r.ev.filter)
	var eligible []*model.Node
	for _, n := range nodes {
		if s.includes(n) {
			eligible = append(eligible, n)
		}
	}
	var belowAvg []*model.Node
	for _, d := range domains {
		if float64(len(d.pods)) < ideal {
			for _, n := range eligible {
				if v, ok := n.Labels[s.key]; ok && v == d.value {
					belowAvg = append(belowAvg, n)
				}
			}
		}
	}
	var out []*model.Pod
	i, j := 0, len(domains)-1
	for i < j {
		if float64(len(domains[j].pods)) <= ideal {
			j--
		}
		skew := float64(len(domains[j].pods) - len(domains[i].pods))
		if int32(skew) <= s.maxSkew {
			i++
			continue
		}
		above := math.Ceil(float64(len(domains[j].pods)) - ideal)
		below := math.Ceil(ideal - float64(len(domains[i].pods)))
		move := int(math.Min(math.Min(above, below), math.Ceil((skew-float64(s.maxSkew))/2)))
		if move <= 0 {
			i++
			continue
		}
		src := domains[j].pods
		fits := make(map[*model.Pod]bool, len(src))
		for _, p := range src {
			fits[p] = fitsAnyOtherNode(r.s, p, belowAvg)
		}
		sort.SliceStable(src, func(x, y int) bool { return !fits[src[x]] && fits[src[y]] })
		moved := src[len(src)-move:]
		for _, p := range moved {
			if a.TopologyBalanceNodeFit && !fits[p] {
				continue
			}
			out = append(out, p)
		}
		domains[j].pods = src[:len(src)-move]
		domains[i].pods = append(domains[i].pods, moved...)
	}
	return out
}

// sortDomains orders each domain's pods (not evictable first, then pods
// with a node selector or affinity, then higher priority first, so the
// tail holds the best to move) and the domains by size.
func sortDomains(byValue map[string][]*model.Pod, evictable func(*model.Pod) bool) []domain {
	values := make([]string, 0, len(byValue))
	for v := range byValue {
		values = append(values, v)
	}
	sort.Strings(values)
	out := make([]domain, 0, len(values))
	for _, v := range values {
		list := byValue[v]
		sort.Slice(list, func(x, y int) bool {
			ex, ey := evictable(list[x]), evictable(list[y])
			if !ex || !ey {
				return !(ex && !ey)
			}
			sx, sy := hasSelectorOrAffinity(list[x]), hasSelectorOrAffinity(list[y])
			if sx == sy {
				return !(list[x].Priority > list[y].Priority)
			}
			return sx && !sy
		})
		out = append(out, domain{value: v, pods: list})
	}
	sort.Slice(out, func(x, y int) bool { return len(out[x].pods) < len(out[y].pods) })
	return out
}

func hasSelectorOrAffinity(p *model.Pod) bool {
	return p.NodeSelector != nil || (p.Affinity != nil && p.Affinity.NodeAffinity != nil)
}
