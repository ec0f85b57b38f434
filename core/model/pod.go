package model

import "time"

// PreemptionPolicy says whether a pending pod may evict lower-priority pods.
type PreemptionPolicy string

const (
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	PreemptNever         PreemptionPolicy = "Never"
)

// DefaultSchedulerName is the profile a pod that names none is scheduled by.
const DefaultSchedulerName = "default-scheduler"

// Pod is a workload to place or already placed. Treat it as immutable once
// handed to the scheduler.
type Pod struct {
	UID       string
	Namespace string
	Name      string
	Labels    map[string]string

	SchedulerName string
	// Priority is resolved at admission (core/priority) from the class, the
	// global default or RequestedPriority; the scheduler reads only this.
	Priority          int32
	PriorityClassName string
	// RequestedPriority is the priority the caller wrote, if any.
	RequestedPriority *int32
	PreemptionPolicy  PreemptionPolicy

	Containers     []Container
	InitContainers []Container // RestartAlways marks a sidecar
	Overhead       ResourceList

	NodeSelector              map[string]string
	Affinity                  *Affinity
	Tolerations               []Toleration
	TopologySpreadConstraints []TopologySpreadConstraint
	SchedulingGates           []string

	NodeName          string // set: the pod is bound (or running) there
	NominatedNodeName string // set by preemption; a reservation, not a binding

	CreationTime time.Time
	StartTime    time.Time // zero when not started; orders preemption victims
	Ready        bool      // counts as healthy for disruption budgets
	Terminating  bool      // being deleted: still occupies its node until gone
}

// Key is the pod's "namespace/name", the form used in traces and messages.
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// IsBound reports whether the pod has a node.
func (p *Pod) IsBound() bool { return p.NodeName != "" }

// EffectivePreemptionPolicy treats an unset policy as PreemptLowerPriority.
func (p *Pod) EffectivePreemptionPolicy() PreemptionPolicy {
	if p.PreemptionPolicy == "" {
		return PreemptLowerPriority
	}
	return p.PreemptionPolicy
}

// Container is the part of a container the scheduler needs.
type Container struct {
	Name          string
	Requests      ResourceList
	Ports         []ContainerPort
	RestartAlways bool // an init container with restartPolicy Always is a sidecar
}

// ContainerPort is a port a container exposes; only HostPort > 0 matters to
// scheduling.
type ContainerPort struct {
	ContainerPort int32
	HostPort      int32
	HostIP        string // "" means 0.0.0.0
	Protocol      string // "TCP" when empty
}

// PodRequests is what a pod asks of a node, computed once per pod.
type PodRequests struct {
	// Requests is the effective request used by the fit filter: containers
	// plus sidecars, at least the peak of any init container, plus overhead.
	Requests Resources
	// NonZeroMilliCPU and NonZeroMemory apply the scoring defaults to
	// containers that request no cpu or memory.
	NonZeroMilliCPU int64
	NonZeroMemory   int64
}

// ComputeRequests computes a pod's effective requests the way Kubernetes
// does: regular containers run together with sidecars; each ordinary init
// container runs alone beside the sidecars started before it; the pod needs
// the larger of the steady state and the worst init step; overhead is added
// on top.
func ComputeRequests(p *Pod) PodRequests {
	exact := effectiveRequests(p, false)
	nonZero := effectiveRequests(p, true)
	return PodRequests{
		Requests:        exact,
		NonZeroMilliCPU: nonZero.MilliCPU,
		NonZeroMemory:   nonZero.Memory,
	}
}

func effectiveRequests(p *Pod, nonZero bool) Resources {
	containerRequests := func(c *Container) Resources {
		r := ResourcesFromList(c.Requests)
		if nonZero {
			if _, ok := c.Requests[ResourceCPU]; !ok {
				r.MilliCPU = DefaultMilliCPURequest
			}
			if _, ok := c.Requests[ResourceMemory]; !ok {
				r.Memory = DefaultMemoryRequest
			}
		}
		return r
	}
	var steady Resources
	for i := range p.Containers {
		r := containerRequests(&p.Containers[i])
		steady.Add(&r)
	}
	var sidecars, initPeak Resources
	for i := range p.InitContainers {
		c := &p.InitContainers[i]
		r := containerRequests(c)
		var step Resources
		if c.RestartAlways {
			steady.Add(&r)
			sidecars.Add(&r)
			step = sidecars.Clone()
		} else {
			step = r
			step.Add(&sidecars)
		}
		initPeak.Max(&step)
	}
	steady.Max(&initPeak)
	if len(p.Overhead) > 0 {
		o := ResourcesFromList(p.Overhead)
		steady.Add(&o)
	}
	return steady
}
