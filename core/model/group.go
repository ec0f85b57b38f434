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
	// PriorityClassName names the group's PriorityClass (kube 1.37's
	// spec.priorityClassName); RequestedPriority is a spec.priority given
	// with it. Admission resolves them into Priority as kube's Priority
	// admission does for PodGroups: the class's value, else the global
	// default class's, else 0. Every member must have this priority.
	PriorityClassName string
	RequestedPriority *int32
	Priority          int32
	// PreemptionPolicy is the group's own (spec.preemptionPolicy), ""
	// when unset. Only the alpha PodGroupPreemptionPolicy gate makes it the
	// group's (unset: PreemptLowerPriority); without it the members'
	// common policy is.
	PreemptionPolicy PreemptionPolicy
	// DisruptionAll is spec.disruptionMode all: when one member is
	// preempted the group's other members go with it. Single (the
	// default) lets members be preempted one by one.
	DisruptionAll bool
	// Labels are the group's metadata.labels; Kueue's queue-name label
	// makes the group one workload of that LocalQueue.
	Labels map[string]string
	// Parent names the CompositePodGroup (in the group's namespace) the
	// group is a child of, "" for none (kube 1.37's
	// spec.parentCompositePodGroupName). It counts only with the alpha
	// CompositePodGroup gate.
	Parent string
}

// ParentKey is the key of the group's parent composite group, "" for none.
func (g *PodGroup) ParentKey() string {
	if g.Parent == "" {
		return ""
	}
	return g.Namespace + "/" + g.Parent
}

// CompositePodGroup is a tree of pod groups (kube 1.37's alpha
// CompositePodGroup): its children are the PodGroups and composite groups
// naming it as Parent. A tree is placed from its root (the composite
// group without a parent) in one cycle; a composite group counts as placed
// when MinGroupCount of its children are. The spec is fixed at creation.
type CompositePodGroup struct {
	Namespace string
	Name      string
	// Parent is the composite group this one is a child of, "" for a root.
	Parent string
	// MinGroupCount is how many children must be placed (gang
	// minGroupCount; 1 for the basic policy); at least 1.
	MinGroupCount int32
	// PriorityClassName, RequestedPriority and Priority are as a
	// PodGroup's: the root's Priority is the tree's, which every member of
	// the tree must have.
	PriorityClassName string
	RequestedPriority *int32
	Priority          int32
}

// Key is "namespace/name".
func (c *CompositePodGroup) Key() string { return c.Namespace + "/" + c.Name }

// ParentKey is the key of the parent composite group, "" for a root.
func (c *CompositePodGroup) ParentKey() string {
	if c.Parent == "" {
		return ""
	}
	return c.Namespace + "/" + c.Parent
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
