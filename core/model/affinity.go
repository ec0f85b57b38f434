package model

// Affinity groups a pod's node, pod and anti-pod affinity rules.
type Affinity struct {
	NodeAffinity    *NodeAffinity
	PodAffinity     *PodAffinity
	PodAntiAffinity *PodAntiAffinity
}

// NodeAffinity constrains which nodes a pod may run on (Required) and which
// it prefers (Preferred, summed by weight).
type NodeAffinity struct {
	Required  *NodeSelector
	Preferred []PreferredSchedulingTerm
}

// PreferredSchedulingTerm adds Weight (1..100) to nodes matching Preference.
type PreferredSchedulingTerm struct {
	Weight     int32
	Preference NodeSelectorTerm
}

// PodAffinity attracts a pod to topology domains running matching pods.
type PodAffinity struct {
	Required  []PodAffinityTerm
	Preferred []WeightedPodAffinityTerm
}

// PodAntiAffinity keeps a pod away from topology domains running matching pods.
type PodAntiAffinity struct {
	Required  []PodAffinityTerm
	Preferred []WeightedPodAffinityTerm
}

// PodAffinityTerm selects pods (by labels, in namespaces) whose topology
// domain, named by the node label TopologyKey, the term refers to.
type PodAffinityTerm struct {
	LabelSelector *LabelSelector
	// Namespaces and NamespaceSelector are unioned; both empty means the
	// pod's own namespace. An empty (non-nil) NamespaceSelector means all.
	Namespaces        []string
	NamespaceSelector *LabelSelector
	TopologyKey       string
	// MatchLabelKeys / MismatchLabelKeys name labels of the incoming pod
	// whose values are ANDed into LabelSelector as key In / NotIn (value).
	MatchLabelKeys    []string
	MismatchLabelKeys []string
}

// WeightedPodAffinityTerm is a preferred term with weight 1..100.
type WeightedPodAffinityTerm struct {
	Weight int32
	Term   PodAffinityTerm
}

// HasPodAffinityConstraints reports whether the pod declares pod affinity or
// anti-affinity of any kind.
func (p *Pod) HasPodAffinityConstraints() bool {
	a := p.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

// HasRequiredAntiAffinity reports whether the pod declares required pod
// anti-affinity terms.
func (p *Pod) HasRequiredAntiAffinity() bool {
	a := p.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.Required) > 0
}
