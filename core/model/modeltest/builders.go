// Package modeltest has fluent builders of model objects for tests.
package modeltest

import (
	"time"

	"github.com/berthsched/berth/core/model"
)

// PodBuilder builds a *model.Pod.
type PodBuilder struct{ p model.Pod }

// MakePod starts a pod in namespace "default" with uid "uid-<name>".
func MakePod(name string) *PodBuilder {
	return &PodBuilder{p: model.Pod{
		Name: name, Namespace: "default", UID: "uid-" + name,
		SchedulerName: model.DefaultSchedulerName,
		CreationTime:  time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
	}}
}

// Obj returns the built pod.
func (b *PodBuilder) Obj() *model.Pod { p := b.p; return &p }

func (b *PodBuilder) Namespace(ns string) *PodBuilder { b.p.Namespace = ns; return b }
func (b *PodBuilder) UID(uid string) *PodBuilder      { b.p.UID = uid; return b }
func (b *PodBuilder) Node(n string) *PodBuilder       { b.p.NodeName = n; return b }
func (b *PodBuilder) Nominated(n string) *PodBuilder  { b.p.NominatedNodeName = n; return b }
func (b *PodBuilder) Priority(v int32) *PodBuilder    { b.p.Priority = v; return b }
func (b *PodBuilder) SchedulerName(s string) *PodBuilder {
	b.p.SchedulerName = s
	return b
}
func (b *PodBuilder) PreemptionPolicy(p model.PreemptionPolicy) *PodBuilder {
	b.p.PreemptionPolicy = p
	return b
}
func (b *PodBuilder) Created(t time.Time) *PodBuilder { b.p.CreationTime = t; return b }
func (b *PodBuilder) Started(t time.Time) *PodBuilder { b.p.StartTime = t; return b }
func (b *PodBuilder) Ready() *PodBuilder              { b.p.Ready = true; return b }
func (b *PodBuilder) Terminating() *PodBuilder        { b.p.Terminating = true; return b }
func (b *PodBuilder) Preempted() *PodBuilder          { b.p.Preempted = true; return b }
func (b *PodBuilder) Group(name string) *PodBuilder   { b.p.SchedulingGroup = name; return b }

// Label adds a label.
func (b *PodBuilder) Label(k, v string) *PodBuilder {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	b.p.Labels[k] = v
	return b
}

// Req adds a container with the given requests.
func (b *PodBuilder) Req(reqs model.ResourceList) *PodBuilder {
	b.p.Containers = append(b.p.Containers, model.Container{Name: "c" + itoa(len(b.p.Containers)), Requests: reqs})
	return b
}

// Init adds an init container; sidecar marks restartPolicy Always.
func (b *PodBuilder) Init(reqs model.ResourceList, sidecar bool) *PodBuilder {
	b.p.InitContainers = append(b.p.InitContainers, model.Container{Name: "i" + itoa(len(b.p.InitContainers)), Requests: reqs, RestartAlways: sidecar})
	return b
}

// HostPort adds a container exposing a host port.
func (b *PodBuilder) HostPort(port int32, protocol, ip string) *PodBuilder {
	b.p.Containers = append(b.p.Containers, model.Container{
		Name:  "p" + itoa(len(b.p.Containers)),
		Ports: []model.ContainerPort{{ContainerPort: port, HostPort: port, Protocol: protocol, HostIP: ip}},
	})
	return b
}

// Workload adds a workload selector matching the given labels.
func (b *PodBuilder) Workload(matchLabels map[string]string) *PodBuilder {
	b.p.WorkloadSelectors = append(b.p.WorkloadSelectors, model.LabelSelector{MatchLabels: matchLabels})
	return b
}

// PodLevel sets the pod-level requests.
func (b *PodBuilder) PodLevel(reqs model.ResourceList) *PodBuilder {
	b.p.PodLevelRequests = reqs
	return b
}

func (b *PodBuilder) Overhead(o model.ResourceList) *PodBuilder { b.p.Overhead = o; return b }

// NodeSelector adds a nodeSelector pair.
func (b *PodBuilder) NodeSelector(k, v string) *PodBuilder {
	if b.p.NodeSelector == nil {
		b.p.NodeSelector = map[string]string{}
	}
	b.p.NodeSelector[k] = v
	return b
}

func (b *PodBuilder) Toleration(t model.Toleration) *PodBuilder {
	b.p.Tolerations = append(b.p.Tolerations, t)
	return b
}

func (b *PodBuilder) Gate(name string) *PodBuilder {
	b.p.SchedulingGates = append(b.p.SchedulingGates, name)
	return b
}

func (b *PodBuilder) Spread(c model.TopologySpreadConstraint) *PodBuilder {
	b.p.TopologySpreadConstraints = append(b.p.TopologySpreadConstraints, c)
	return b
}

func (b *PodBuilder) affinity() *model.Affinity {
	if b.p.Affinity == nil {
		b.p.Affinity = &model.Affinity{}
	}
	return b.p.Affinity
}

// RequiredNodeAffinity sets the required node selector.
func (b *PodBuilder) RequiredNodeAffinity(terms ...model.NodeSelectorTerm) *PodBuilder {
	a := b.affinity()
	if a.NodeAffinity == nil {
		a.NodeAffinity = &model.NodeAffinity{}
	}
	a.NodeAffinity.Required = &model.NodeSelector{Terms: terms}
	return b
}

// PreferredNodeAffinity adds a preferred node term.
func (b *PodBuilder) PreferredNodeAffinity(weight int32, term model.NodeSelectorTerm) *PodBuilder {
	a := b.affinity()
	if a.NodeAffinity == nil {
		a.NodeAffinity = &model.NodeAffinity{}
	}
	a.NodeAffinity.Preferred = append(a.NodeAffinity.Preferred, model.PreferredSchedulingTerm{Weight: weight, Preference: term})
	return b
}

// PodAffinity adds a required (weight 0) or preferred pod affinity term.
func (b *PodBuilder) PodAffinity(weight int32, term model.PodAffinityTerm) *PodBuilder {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &model.PodAffinity{}
	}
	if weight == 0 {
		a.PodAffinity.Required = append(a.PodAffinity.Required, term)
	} else {
		a.PodAffinity.Preferred = append(a.PodAffinity.Preferred, model.WeightedPodAffinityTerm{Weight: weight, Term: term})
	}
	return b
}

// PodAntiAffinity adds a required (weight 0) or preferred anti-affinity term.
func (b *PodBuilder) PodAntiAffinity(weight int32, term model.PodAffinityTerm) *PodBuilder {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &model.PodAntiAffinity{}
	}
	if weight == 0 {
		a.PodAntiAffinity.Required = append(a.PodAntiAffinity.Required, term)
	} else {
		a.PodAntiAffinity.Preferred = append(a.PodAntiAffinity.Preferred, model.WeightedPodAffinityTerm{Weight: weight, Term: term})
	}
	return b
}

// NodeBuilder builds a *model.Node.
type NodeBuilder struct{ n model.Node }

// MakeNode starts a node labelled with its hostname.
func MakeNode(name string) *NodeBuilder {
	return &NodeBuilder{n: model.Node{Name: name, Labels: map[string]string{model.LabelHostname: name}, Allocatable: model.ResourceList{}}}
}

// Obj returns the built node.
func (b *NodeBuilder) Obj() *model.Node { n := b.n; return &n }

func (b *NodeBuilder) Label(k, v string) *NodeBuilder { b.n.Labels[k] = v; return b }
func (b *NodeBuilder) Zone(z string) *NodeBuilder     { return b.Label(model.LabelZone, z) }
func (b *NodeBuilder) Unschedulable() *NodeBuilder    { b.n.Unschedulable = true; return b }

// Capacity sets allocatable amounts (cpu in millicores, memory in bytes);
// pods defaults to 110 when not given.
func (b *NodeBuilder) Capacity(l model.ResourceList) *NodeBuilder {
	for k, v := range l {
		b.n.Allocatable[k] = v
	}
	if _, ok := b.n.Allocatable[model.ResourcePods]; !ok {
		b.n.Allocatable[model.ResourcePods] = 110
	}
	return b
}

func (b *NodeBuilder) Taint(key, value string, effect model.TaintEffect) *NodeBuilder {
	b.n.Taints = append(b.n.Taints, model.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Res is shorthand for a ResourceList of cpu millicores and memory bytes.
func Res(milliCPU, memory int64) model.ResourceList {
	return model.ResourceList{model.ResourceCPU: milliCPU, model.ResourceMemory: memory}
}

// Gi and Mi are byte multipliers.
const (
	Mi int64 = 1024 * 1024
	Gi int64 = 1024 * Mi
)

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
