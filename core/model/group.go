package model

// PodGroup is a gang (Kubernetes' PodGroup with a gang policy): at least
// MinCount of its pods are placed together or none is. Pods join it with
// Pod.SchedulingGroup. The spec (MinCount, TopologyKey) is fixed at
// creation.
type PodGroup struct {
	Namespace string
	Name      string
	// MinCount is how many members must be placed together; at least 1.
	MinCount int32
	// TopologyKey, when set, is a node label key: the members a group
	// cycle places all have one value of it.
	TopologyKey string
}

// Key is "namespace/name".
func (g *PodGroup) Key() string { return g.Namespace + "/" + g.Name }

// GroupKey is the key of the group a pod names, "" for none.
func (p *Pod) GroupKey() string {
	if p.SchedulingGroup == "" {
		return ""
	}
	return p.Namespace + "/" + p.SchedulingGroup
}
