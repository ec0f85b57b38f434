package deschedule

import (
	"sort"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
)

// evictEach evicts pods in order; at the node limit it stops (the
// strategy moves to the next node), at the total limit it reports done.
func (r *run) evictEach(pods []*model.Pod, strategy string) (done bool) {
	for _, p := range pods {
		err := r.evict(p, strategy)
		switch {
		case isLimit(err, LimitNode):
			return false
		case isLimit(err, LimitTotal):
			return true
		}
	}
	return false
}

// nodeTaints evicts pods that do not tolerate a NoSchedule taint (and
// PreferNoSchedule ones with includePreferNoSchedule) of their node.
func (r *run) nodeTaints(a *policy.NodeTaintsArgs, nodes []*model.Node) {
	matches := func(list []string, t *model.Taint) bool {
		for _, v := range list {
			if v == t.Key || (t.Value != "" && v == t.Key+"="+t.Value) {
				return true
			}
		}
		return false
	}
	include := func(t *model.Taint) bool {
		if t.Effect != model.TaintEffectNoSchedule && !(a.IncludePreferNoSchedule && t.Effect == model.TaintEffectPreferNoSchedule) {
			return false
		}
		return !matches(a.ExcludedTaints, t) && (a.IncludedTaints == nil || matches(a.IncludedTaints, t))
	}
	for _, n := range nodes {
		taints := sentTaints(n)
		var victims []*model.Pod
		for _, p := range r.s.podsOn(n.Name, r.eligible(&a.Filtered)) {
			if !toleratesTaints(p.Tolerations, taints, include) {
				victims = append(victims, p)
			}
		}
		if r.evictEach(victims, policy.RemovePodsViolatingNodeTaints) {
			return
		}
	}
}

// nodeAffinity evicts pods whose node no longer matches their required
// node affinity (or, for preferred, a node they fit scores higher), when
// some node fits them.
func (r *run) nodeAffinity(a *policy.NodeAffinityArgs, nodes []*model.Node) {
	for _, kind := range a.NodeAffinityType {
		var violates func(p *model.Pod, n *model.Node) bool
		switch kind {
		case "requiredDuringSchedulingIgnoredDuringExecution":
			violates = func(p *model.Pod, n *model.Node) bool {
				return p.Affinity != nil && p.Affinity.NodeAffinity != nil && p.Affinity.NodeAffinity.Required != nil &&
					r.ev.filter(p) && fitsAnyNode(r.s, p, nodes) && !matchesNodeSelector(p, n)
			}
		case "preferredDuringSchedulingIgnoredDuringExecution":
			violates = func(p *model.Pod, n *model.Node) bool {
				if p.Affinity == nil || p.Affinity.NodeAffinity == nil || len(p.Affinity.NodeAffinity.Preferred) == 0 ||
					!r.ev.filter(p) || !fitsAnyNode(r.s, p, nodes) {
					return false
				}
				var best int32
				for _, m := range nodes {
					best = max(best, preferredWeight(p, m))
				}
				return best > preferredWeight(p, n)
			}
		default:
			continue
		}
		eligible := r.eligible(&a.Filtered)
		for _, n := range nodes {
			victims := r.s.podsOn(n.Name, func(p *model.Pod) bool { return eligible(p) && violates(p, n) })
			if r.evictEach(victims, policy.RemovePodsViolatingNodeAffinity) {
				return
			}
		}
	}
}

// interPodAntiAffinity evicts, lowest priority first, pods whose required
// anti-affinity matches a pod in the same topology domain.
func (r *run) interPodAntiAffinity(a *policy.InterPodAntiAffinityArgs, nodes []*model.Node) {
	inNodes := map[string]*model.Node{}
	byNS := map[string][]*model.Pod{}
	byNode := map[string][]*model.Pod{}
	for _, n := range nodes {
		inNodes[n.Name] = n
		for _, p := range r.s.podsOn(n.Name, a.Filtered.Matches) {
			byNS[p.Namespace] = append(byNS[p.Namespace], p)
			byNode[n.Name] = append(byNode[n.Name], p)
		}
	}
	for _, n := range nodes {
		pods := byNode[n.Name]
		sortByPriority(pods)
	nextPod:
		for _, p := range pods {
			if !violatesAntiAffinity(p, byNS, inNodes) || !r.ev.filter(p) || !r.ev.preEviction(p) {
				continue
			}
			err := r.evict(p, policy.RemovePodsViolatingInterPodAntiAffinity)
			switch {
			case err == nil:
				list := byNS[p.Namespace]
				for i, q := range list {
					if q.Name == p.Name {
						byNS[p.Namespace] = append(list[:i:i], list[i+1:]...)
						break
					}
				}
			case isLimit(err, LimitNode):
				break nextPod
			case isLimit(err, LimitTotal):
				return
			}
		}
	}
}

// violatesAntiAffinity reports whether a pod in nss matched by one of p's
// required anti-affinity terms runs in p's topology domain.
func violatesAntiAffinity(p *model.Pod, byNS map[string][]*model.Pod, nodes map[string]*model.Node) bool {
	home, ok := nodes[p.NodeName]
	if !ok {
		return false
	}
	terms := requiredAntiAffinity(p)
	for i := range terms {
		t := &terms[i]
		nss, sel := termNamespaces(p, t), termSelector(t)
		for ns := range nss {
			for _, q := range byNS[ns] {
				if q.Name == p.Name || !sel.Matches(q.Labels) {
					continue
				}
				other, ok := nodes[q.NodeName]
				if ok && sameDomain(home, other, t.TopologyKey) {
					return true
				}
			}
		}
	}
	return false
}

func sameDomain(a, b *model.Node, key string) bool {
	if a.Name == b.Name {
		return true
	}
	va, ok := a.Labels[key]
	if !ok {
		return false
	}
	vb, ok := b.Labels[key]
	return ok && va == vb
}

// restarts sums the pod's containers' restarts (and its init
// containers' with init).
func restarts(p *model.Pod, init bool) int32 {
	if p.Runtime == nil {
		return 0
	}
	var n int32
	for _, c := range p.Runtime.Containers {
		if !c.Init || init {
			n += c.RestartCount
		}
	}
	return n
}

func hasWaitingState(p *model.Pod, states map[string]bool, init bool) bool {
	if p.Runtime == nil {
		return false
	}
	for _, c := range p.Runtime.Containers {
		if c.Init == init && c.WaitingReason != "" && states[c.WaitingReason] {
			return true
		}
	}
	return false
}

func hasTerminatedState(p *model.Pod, states map[string]bool, init bool) bool {
	if p.Runtime == nil {
		return false
	}
	for _, c := range p.Runtime.Containers {
		if c.Init == init && c.TerminatedReason != "" && states[c.TerminatedReason] {
			return true
		}
	}
	return false
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, v := range list {
		m[v] = true
	}
	return m
}

// tooManyRestarts evicts, most restarts first, pods restarted at least
// the threshold (in the states given).
func (r *run) tooManyRestarts(a *policy.TooManyRestartsArgs, nodes []*model.Node) {
	states := set(a.States)
	eligible := r.eligible(&a.Filtered)
	keep := func(p *model.Pod) bool {
		if !eligible(p) || restarts(p, a.IncludingInitContainers) < a.PodRestartThreshold {
			return false
		}
		if len(states) == 0 {
			return true
		}
		return states[string(p.Runtime.EffectivePhase())] || hasWaitingState(p, states, false) ||
			(a.IncludingInitContainers && hasWaitingState(p, states, true))
	}
	for _, n := range nodes {
		pods := r.s.allPodsOn(n.Name, keep)
		count := make(map[*model.Pod]int32, len(pods))
		for _, p := range pods {
			count[p] = restarts(p, a.IncludingInitContainers)
		}
		sort.Slice(pods, func(i, j int) bool { return count[pods[i]] > count[pods[j]] })
		if r.evictEach(pods, policy.RemovePodsHavingTooManyRestarts) {
			return
		}
	}
}

// podLifeTime evicts, oldest first across nodes, pods older than the
// maximum age (in the states, with the exit codes, of the owner kinds
// given).
func (r *run) podLifeTime(a *policy.PodLifeTimeArgs, nodes []*model.Node) {
	states := set(a.States)
	codes := map[int32]bool{}
	for _, c := range a.ExitCodes {
		codes[c] = true
	}
	eligible := r.eligible(&a.Filtered)
	keep := func(p *model.Pod) bool {
		if !eligible(p) {
			return false
		}
		if m := a.MaxPodLifeTimeSeconds; m != nil {
			age := r.now.Sub(p.CreationTime)
			if age < 0 || uint(age.Seconds()) <= *m {
				return false
			}
		}
		if len(states) > 0 {
			reason := ""
			if p.Runtime != nil {
				reason = p.Runtime.Reason
			}
			if !states[string(p.Runtime.EffectivePhase())] && !states[reason] &&
				!hasWaitingState(p, states, false) && !hasTerminatedState(p, states, false) &&
				!(a.IncludingInitContainers && (hasWaitingState(p, states, true) || hasTerminatedState(p, states, true))) {
				return false
			}
		}
		if k := a.OwnerKinds; k != nil {
			if len(k.Include) > 0 {
				found := false
				for _, o := range owners(p) {
					found = found || contains(k.Include, o.Kind)
				}
				if !found {
					return false
				}
			} else {
				for _, o := range owners(p) {
					if contains(k.Exclude, o.Kind) {
						return false
					}
				}
			}
		}
		if len(codes) > 0 && !exitCodeIn(p, codes, a.IncludingInitContainers) {
			return false
		}
		return true
	}
	var pods []*model.Pod
	for _, n := range nodes {
		pods = append(pods, r.s.allPodsOn(n.Name, keep)...)
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].CreationTime.Before(pods[j].CreationTime) })
	for _, p := range pods {
		if isLimit(r.evict(p, policy.PodLifeTime), LimitTotal) {
			return
		}
	}
}

func exitCodeIn(p *model.Pod, codes map[int32]bool, init bool) bool {
	if p.Runtime == nil {
		return false
	}
	for _, c := range p.Runtime.Containers {
		if (!c.Init || init) && c.ExitCode != nil && codes[*c.ExitCode] {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// sortByPriority orders pods as the Descheduler's
// SortPodsBasedOnPriorityLowToHigh: lower priority first; at equal
// priority BestEffort, then Burstable, then Guaranteed; within a class a
// pod without the prefer-no-eviction annotation first. Its comparator
// answers true for equal pods, so sort.Slice (pdqsort, deterministic) on
// the same input order picks the same pod among ties as the Descheduler.
func sortByPriority(pods []*model.Pod) {
	rank := func(q model.QOSClass) int {
		switch q {
		case model.QOSBestEffort:
			return 0
		case model.QOSBurstable:
			return 1
		}
		return 2
	}
	sort.Slice(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if a.Priority != b.Priority {
			return a.Priority < b.Priority
		}
		qa, qb := rank(qos(a)), rank(qos(b))
		if qa == qb {
			if _, ok := annotation(a, noEvictionAnnotation); !ok {
				return true
			}
			if _, ok := annotation(b, noEvictionAnnotation); !ok {
				return false
			}
			return true
		}
		return qa < qb
	})
}
