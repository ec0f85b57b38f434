package deschedule

import (
	"sort"

	"github.com/berthsched/berth/core/model"
)

// Cluster is the snapshot a pass looks at. Pods holds every pod: pending
// ones (counted by minReplicas), bound ones and finished ones (Runtime
// phase Succeeded or Failed, which strategies listing all pods see).
type Cluster struct {
	Nodes      []*model.Node
	Pods       []*model.Pod
	Namespaces []*model.Namespace
	PDBs       []*model.PodDisruptionBudget
}

// state is the cluster as the pass changes it: evicted pods leave it.
type state struct {
	nodes      map[string]*model.Node
	byNode     map[string][]*model.Pod // in namespace/name order
	all        []*model.Pod
	gone       map[*model.Pod]bool
	namespaces map[string]*model.Namespace
}

func newState(c *Cluster) *state {
	s := &state{
		nodes:      map[string]*model.Node{},
		byNode:     map[string][]*model.Pod{},
		gone:       map[*model.Pod]bool{},
		namespaces: map[string]*model.Namespace{},
	}
	for _, n := range c.Nodes {
		s.nodes[n.Name] = n
	}
	for _, ns := range c.Namespaces {
		s.namespaces[ns.Name] = ns
	}
	s.all = append(s.all, c.Pods...)
	for _, p := range c.Pods {
		if p.NodeName != "" {
			s.byNode[p.NodeName] = append(s.byNode[p.NodeName], p)
		}
	}
	for _, pods := range s.byNode {
		sort.SliceStable(pods, func(i, j int) bool { return pods[i].Key() < pods[j].Key() })
	}
	return s
}

// allPodsOn lists the node's pods, finished ones included, for which keep
// holds (nil: all).
func (s *state) allPodsOn(node string, keep func(*model.Pod) bool) []*model.Pod {
	var out []*model.Pod
	for _, p := range s.byNode[node] {
		if !s.gone[p] && (keep == nil || keep(p)) {
			out = append(out, p)
		}
	}
	return out
}

// podsOn lists the node's pods that have not finished.
func (s *state) podsOn(node string, keep func(*model.Pod) bool) []*model.Pod {
	return s.allPodsOn(node, func(p *model.Pod) bool {
		return !finished(p) && (keep == nil || keep(p))
	})
}

func (s *state) remove(p *model.Pod) { s.gone[p] = true }

func finished(p *model.Pod) bool {
	ph := p.Runtime.EffectivePhase()
	return ph == model.PodSucceeded || ph == model.PodFailed
}

// ready is the Descheduler's node readiness: no Ready condition other
// than True.
func ready(n *model.Node) bool {
	for _, c := range n.Conditions {
		if c.Type == model.NodeReady && c.Status != model.ConditionTrue {
			return false
		}
	}
	return true
}

// sentTaints are the node's taints without those Berth derived from its
// conditions (the Descheduler sees the node's spec.taints).
func sentTaints(n *model.Node) []model.Taint {
	if len(n.DerivedTaints) == 0 {
		return n.Taints
	}
	var out []model.Taint
	for _, t := range n.Taints {
		derived := false
		for _, d := range n.DerivedTaints {
			if d == t {
				derived = true
				break
			}
		}
		if !derived {
			out = append(out, t)
		}
	}
	return out
}

func owners(p *model.Pod) []model.OwnerReference {
	if p.Runtime == nil {
		return nil
	}
	return p.Runtime.Owners
}

func annotation(p *model.Pod, key string) (string, bool) {
	if p.Runtime == nil {
		return "", false
	}
	v, ok := p.Runtime.Annotations[key]
	return v, ok
}

func qos(p *model.Pod) model.QOSClass {
	if p.Runtime == nil || p.Runtime.QOSClass == "" {
		return model.QOSBestEffort
	}
	return p.Runtime.QOSClass
}

// requests is what the Descheduler counts for a pod: kube's effective
// requests (containers, init peak, pod level, overhead).
func requests(p *model.Pod) model.Resources { return model.ComputeRequests(p).Requests }
