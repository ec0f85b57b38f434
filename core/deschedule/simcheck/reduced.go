package simcheck

import (
	"fmt"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
)

// world is the cluster as the plan's kept moves leave it, for judging
// whether a move reduces what its strategy saw.
type world struct {
	nodes  map[string]*model.Node
	onNode map[string][]*model.Pod
}

func newWorld(nodes []*model.Node, pods []*model.Pod) *world {
	w := &world{nodes: map[string]*model.Node{}, onNode: map[string][]*model.Pod{}}
	for _, n := range nodes {
		w.nodes[n.Name] = n
	}
	for _, p := range pods {
		w.onNode[p.NodeName] = append(w.onNode[p.NodeName], p)
	}
	return w
}

func (w *world) move(p *model.Pod, from, to string) {
	list := w.onNode[from]
	for i, q := range list {
		if q == p {
			w.onNode[from] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	w.onNode[to] = append(w.onNode[to], p)
}

// reduced says whether moving p from → to reduces what its strategy
// evicted it for:
//   - taints, node affinity, anti-affinity: the target does not violate
//     it (the taint is tolerated, the required affinity matches or the
//     preferred weight is higher, no matching pod in the term's domain);
//   - duplicates, topology spread: the owner's (constraint's) count on the
//     target, plus the pod, stays below the source's count;
//   - LowNodeUtilization: the target, with the pod, is used less than the
//     source was, in every resource it requests;
//   - HighNodeUtilization: the target is used at least as much as the
//     source, in every resource it requests (compaction);
//   - restarts, lifetime: a new pod on another node is the remedy.
func (w *world) reduced(strategy string, p *model.Pod, from, to string) (bool, string) {
	src, dst := w.nodes[from], w.nodes[to]
	if src == nil || dst == nil {
		return false, "the node is gone"
	}
	switch strategy {
	case policy.RemovePodsViolatingNodeTaints:
		for _, t := range dst.Taints {
			if (t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectPreferNoSchedule) && !model.TolerationsTolerate(p.Tolerations, &t) {
				return false, fmt.Sprintf("%s has taint %s the pod does not tolerate", to, t.Key)
			}
		}
		return true, "tolerates every taint of " + to
	case policy.RemovePodsViolatingNodeAffinity:
		if a := p.Affinity; a != nil && a.NodeAffinity != nil {
			if a.NodeAffinity.Required != nil && !a.NodeAffinity.Required.Matches(dst) {
				return false, to + " does not match its required node affinity"
			}
			if wf, wt := prefWeight(p, src), prefWeight(p, dst); a.NodeAffinity.Required == nil && wt <= wf {
				return false, fmt.Sprintf("%s scores its preferred node affinity %d, %s %d", to, wt, from, wf)
			}
		}
		return true, to + " matches its node affinity"
	case policy.RemovePodsViolatingInterPodAntiAffinity:
		return true, "the scheduler honours its anti-affinity on " + to
	case policy.RemoveDuplicates:
		s, t := w.count(from, func(q *model.Pod) bool { return sameOwner(p, q) }), w.count(to, func(q *model.Pod) bool { return sameOwner(p, q) })
		if t+1 >= s {
			return false, fmt.Sprintf("%s would hold %d of its owner's pods, %s held %d", to, t+1, from, s)
		}
		return true, fmt.Sprintf("its owner's pods: %s %d → %d, %s %d → %d", from, s, s-1, to, t, t+1)
	case policy.RemovePodsViolatingTopologySpreadConstraint:
		for i := range p.TopologySpreadConstraints {
			c := &p.TopologySpreadConstraints[i]
			fv, fok := src.Labels[c.TopologyKey]
			tv, tok := dst.Labels[c.TopologyKey]
			if !fok || !tok {
				continue
			}
			if fv == tv {
				return false, fmt.Sprintf("%s is in the same %s domain %q", to, c.TopologyKey, fv)
			}
			match := func(q *model.Pod) bool { return q.Namespace == p.Namespace && selects(c.LabelSelector, q.Labels) }
			s, t := w.countDomain(c.TopologyKey, fv, match), w.countDomain(c.TopologyKey, tv, match)
			if t+1 >= s {
				return false, fmt.Sprintf("domain %s=%s would hold %d matching pods, %s held %d", c.TopologyKey, tv, t+1, fv, s)
			}
		}
		return true, "the spread's skew decreases"
	case policy.LowNodeUtilization, policy.HighNodeUtilization:
		req := model.ComputeRequests(p).Requests
		for _, name := range []string{model.ResourceCPU, model.ResourceMemory} {
			if req.Get(name) == 0 {
				continue
			}
			us, ut := w.used(from, name), w.used(to, name)
			cs, ct := float64(src.Allocatable[name]), float64(dst.Allocatable[name])
			if cs <= 0 || ct <= 0 {
				continue
			}
			ps, pt := float64(us)/cs*100, float64(ut+req.Get(name))/ct*100
			if strategy == policy.LowNodeUtilization && pt >= ps {
				return false, fmt.Sprintf("%s would use %.0f%% %s, more than %s's %.0f%%", to, pt, name, from, ps)
			}
			if strategy == policy.HighNodeUtilization && float64(ut)/ct*100 < ps {
				return false, fmt.Sprintf("%s uses %.0f%% %s, less than %s's %.0f%%: no compaction", to, float64(ut)/ct*100, name, from, ps)
			}
		}
		return true, "utilization evens out"
	}
	return true, "re-placed on " + to
}

func (w *world) count(node string, keep func(*model.Pod) bool) int {
	n := 0
	for _, q := range w.onNode[node] {
		if keep(q) {
			n++
		}
	}
	return n
}

func (w *world) countDomain(key, value string, keep func(*model.Pod) bool) int {
	n := 0
	for name, node := range w.nodes {
		if v, ok := node.Labels[key]; ok && v == value {
			n += w.count(name, keep)
		}
	}
	return n
}

func (w *world) used(node, name string) int64 {
	var sum int64
	for _, q := range w.onNode[node] {
		r := model.ComputeRequests(q).Requests
		sum += r.Get(name)
	}
	return sum
}

func prefWeight(p *model.Pod, n *model.Node) int32 {
	var sum int32
	for _, t := range p.Affinity.NodeAffinity.Preferred {
		if t.Preference.Matches(n) {
			sum += t.Weight
		}
	}
	return sum
}

func sameOwner(a, b *model.Pod) bool {
	if a.Namespace != b.Namespace || a.Runtime == nil || b.Runtime == nil || len(a.Runtime.Owners) == 0 || len(b.Runtime.Owners) == 0 {
		return false
	}
	return a.Runtime.Owners[0].UID == b.Runtime.Owners[0].UID && a.Runtime.Owners[0].Name == b.Runtime.Owners[0].Name
}

func selects(ls *model.LabelSelector, labels map[string]string) bool {
	if ls == nil {
		return false
	}
	sel, err := ls.Compile()
	return err == nil && sel.Matches(labels)
}
