package model

import (
	"strings"
	"time"
)

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
	// PodLevelRequests are the requests of the pod as a whole (Kubernetes'
	// spec.resources.requests, PodLevelResources). Only cpu, memory and
	// hugepages-* count at pod level: each one present replaces the
	// containers' aggregate for that resource. Nil when not set.
	PodLevelRequests ResourceList
	Overhead         ResourceList

	NodeSelector              map[string]string
	Affinity                  *Affinity
	Tolerations               []Toleration
	TopologySpreadConstraints []TopologySpreadConstraint
	SchedulingGates           []string
	// WorkloadSelectors are the label selectors of the workloads that own
	// or select the pod: its controller (ReplicaSet, StatefulSet,
	// ReplicationController) and the Services whose selector matches it.
	// Together (ANDed) they select the pod's siblings, which cluster default
	// topology spreading spreads the pod among, as kube-scheduler builds
	// that selector from those objects. Empty: no default spreading.
	WorkloadSelectors []LabelSelector
	// ResourceClaims are the pod's device claims (spec.resourceClaims),
	// each resolved to the ResourceClaim it uses. Nil: none.
	ResourceClaims []PodResourceClaim
	// Volumes are the pod's volumes (spec.volumes). Nil: none.
	Volumes []PodVolume

	NodeName          string // set: the pod is bound (or running) there
	NominatedNodeName string // set by preemption; a reservation, not a binding

	CreationTime time.Time
	StartTime    time.Time // zero when not started; orders preemption victims
	Ready        bool      // counts as healthy for disruption budgets
	Terminating  bool      // being deleted: still occupies its node until gone
	// Preempted says a scheduler preempted the pod (kube: its
	// DisruptionTarget condition is True with reason PreemptionByScheduler).
	// It matters with Terminating: see TerminatingByPreemption.
	Preempted bool
	// SchedulingGroup names the PodGroup (in the pod's namespace) the pod
	// belongs to; empty for a pod on its own. Fixed at admission.
	SchedulingGroup string
	// Runtime is what the pod's owners and kubelet report of it, read by
	// descheduling only; nil when unknown.
	Runtime *PodRuntime
}

// TerminatingByPreemption reports whether the pod is being deleted because
// a scheduler preempted it. A preemptor nominated to a node waits for such
// lower-priority pods to go instead of preempting again; pods terminating
// for other reasons (scale-down, drain) do not hold it back, as in kube.
func (p *Pod) TerminatingByPreemption() bool { return p.Terminating && p.Preempted }

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
	// Claims are the entries of the pod's ResourceClaims the container
	// uses (resources.claims); carried, not read by the scheduler.
	Claims []string
	// Image is the container's image as written, read by the ImageLocality
	// score.
	Image string
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
	// plus sidecars, at least the peak of any init container, replaced by
	// the pod-level request where there is one, plus overhead.
	Requests Resources
	// NonZeroMilliCPU and NonZeroMemory are what the pod counts for on its
	// node when nodes are scored (NodeInfo's non-zero requested): cpu and
	// memory nobody requests get the scoring defaults.
	NonZeroMilliCPU int64
	NonZeroMemory   int64
	// FitScore is what NodeResourcesFit's scoring strategies ask of the
	// pod being scored when that is not Requests with the NonZero cpu and
	// memory: kube-scheduler builds that scorer without pod-level
	// resources, so for a pod with pod-level requests it is the containers'
	// aggregate with the scoring defaults for every container lacking cpu
	// or memory, plus overhead. Nil for pods without pod-level requests.
	FitScore *Resources
}

// IsPodLevelResource reports whether a resource may be requested at pod
// level: cpu, memory and hugepages-*.
func IsPodLevelResource(name string) bool {
	return name == ResourceCPU || name == ResourceMemory || strings.HasPrefix(name, ResourceHugePagesPrefix)
}

// HasPodLevelRequests reports whether the pod requests any resource at pod
// level.
func (p *Pod) HasPodLevelRequests() bool {
	for name := range p.PodLevelRequests {
		if IsPodLevelResource(name) {
			return true
		}
	}
	return false
}

// ComputeRequests computes a pod's effective requests the way Kubernetes
// does: regular containers run together with sidecars; each ordinary init
// container runs alone beside the sidecars started before it; the pod needs
// the larger of the steady state and the worst init step; a pod-level
// request replaces that aggregate for its resource; overhead is added on
// top.
func ComputeRequests(p *Pod) PodRequests {
	exact, hasCPU, hasMemory := aggregateRequests(p, false, false)
	podLevel := p.HasPodLevelRequests()
	if podLevel {
		for name, v := range p.PodLevelRequests {
			if IsPodLevelResource(name) {
				exact.Set(name, v)
				hasCPU = hasCPU || name == ResourceCPU
				hasMemory = hasMemory || name == ResourceMemory
			}
		}
	}
	if len(p.Overhead) > 0 {
		o := ResourcesFromList(p.Overhead)
		exact.Add(&o)
		_, cpu := p.Overhead[ResourceCPU]
		_, mem := p.Overhead[ResourceMemory]
		hasCPU, hasMemory = hasCPU || cpu, hasMemory || mem
	}
	out := PodRequests{Requests: exact}
	if !podLevel {
		nz := withDefaults(p, exact, true, true)
		out.NonZeroMilliCPU, out.NonZeroMemory = nz.MilliCPU, nz.Memory
		return out
	}
	// Pod-level requests: a resource that the containers, the pod level or
	// the overhead request keeps its request on the node; one nobody
	// requests is defaulted per container.
	nz := withDefaults(p, exact, !hasCPU, !hasMemory)
	out.NonZeroMilliCPU, out.NonZeroMemory = nz.MilliCPU, nz.Memory
	fit, _, _ := aggregateRequests(p, true, true)
	if len(p.Overhead) > 0 {
		o := ResourcesFromList(p.Overhead)
		fit.Add(&o)
	}
	out.FitScore = &fit
	return out
}

// AggregateContainerRequests is the containers' share of a pod's request
// (regular containers, sidecars and the init peak; no pod-level requests,
// no overhead). A resource is in the list when some container names it.
func AggregateContainerRequests(p *Pod) ResourceList {
	r, _, _ := aggregateRequests(p, false, false)
	out := ResourceList{}
	for _, cs := range [][]Container{p.Containers, p.InitContainers} {
		for i := range cs {
			for name := range cs[i].Requests {
				out[name] = r.Get(name)
			}
		}
	}
	return out
}

// withDefaults recomputes cpu and memory with the scoring defaults given to
// the containers that lack them (per resource, as asked), then the
// pod-level requests and the overhead.
func withDefaults(p *Pod, exact Resources, cpu, memory bool) Resources {
	if !cpu && !memory {
		return exact
	}
	r, _, _ := aggregateRequests(p, cpu, memory)
	out := Resources{MilliCPU: r.MilliCPU, Memory: r.Memory}
	if v, ok := p.PodLevelRequests[ResourceCPU]; ok {
		out.MilliCPU = v
	}
	if v, ok := p.PodLevelRequests[ResourceMemory]; ok {
		out.Memory = v
	}
	out.MilliCPU += p.Overhead[ResourceCPU]
	out.Memory += p.Overhead[ResourceMemory]
	return out
}

// aggregateRequests sums the containers' requests (sidecar rules
// included); defaultCPU and defaultMemory give a container lacking that
// request the scoring default. It also reports whether any container
// mentions cpu and memory.
func aggregateRequests(p *Pod, defaultCPU, defaultMemory bool) (r Resources, hasCPU, hasMemory bool) {
	containerRequests := func(c *Container) Resources {
		r := ResourcesFromList(c.Requests)
		_, cpu := c.Requests[ResourceCPU]
		_, mem := c.Requests[ResourceMemory]
		hasCPU, hasMemory = hasCPU || cpu, hasMemory || mem
		if defaultCPU && !cpu {
			r.MilliCPU = DefaultMilliCPURequest
		}
		if defaultMemory && !mem {
			r.Memory = DefaultMemoryRequest
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
	return steady, hasCPU, hasMemory
}

// PodResourceClaim is one entry of a pod's spec.resourceClaims: the claim
// named directly, or the claim made for the pod from a template.
type PodResourceClaim struct {
	Name string // the entry's name, which containers' resources.claims use
	// ClaimName is the ResourceClaim (in the pod's namespace) the entry
	// uses: resourceClaimName, or the name of the claim made from
	// TemplateName for this pod.
	ClaimName    string
	TemplateName string // set when the claim is made from a template
}

// PodVolume is one entry of a pod's spec.volumes, with what scheduling
// reads of it: the claim it uses, an inline CSI driver, or nothing.
type PodVolume struct {
	Name string
	// ClaimName is the PersistentVolumeClaim (in the pod's namespace) the
	// volume uses: persistentVolumeClaim.claimName, or "<pod>-<volume>"
	// for an ephemeral volume. Empty for volumes without a claim.
	ClaimName string
	ReadOnly  bool
	// Ephemeral is the claim template of an ephemeral volume, nil for the
	// other kinds.
	Ephemeral *ClaimTemplate
	// CSIDriver is the driver of an inline CSI volume.
	CSIDriver string
	// Other names the kind of a volume scheduling ignores ("emptyDir").
	Other string
}

// ClaimTemplate is the PersistentVolumeClaim an ephemeral volume makes
// for its pod: the parts of the claim's spec scheduling reads.
type ClaimTemplate struct {
	Labels       map[string]string
	RequestBytes int64
	// AccessModes are Kubernetes' names ("ReadWriteOnce").
	AccessModes []string
	// StorageClassName nil: the default class.
	StorageClassName *string
	Selector         *LabelSelector
	// VolumeMode is "Filesystem" or "Block"; empty is Filesystem.
	VolumeMode string
}
