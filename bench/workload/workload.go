package workload

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/berthsched/berth/core/model"
)

// Names of the workloads, in the order the suite runs them.
const (
	Basic             = "basic"
	Spread            = "spread"
	Affinity          = "affinity"
	Preemption        = "preemption"
	PreferredAffinity = "preferred"
	Unschedulable     = "unschedulable"
	MixedChurn        = "mixedchurn"
	// Gang: pending pods in pod groups of GangSize, each needing all its
	// members placed together (scheduler_perf's GangScheduling).
	Gang = "gang"
	// GangSize is the size (and min_count) of the Gang workload's groups.
	GangSize = 3
)

// Names lists every workload Generate knows.
func Names() []string {
	return []string{Basic, Spread, Affinity, Preemption, PreferredAffinity, Unschedulable, MixedChurn, Gang, DRA, Volumes, VolumesBound, Queueing}
}

// Oracle reports whether `kubeoracle throughput --workload NAME` generates
// the workload itself; for the others it is given WriteYAML's file (-f),
// except MixedChurn, whose churn a file cannot express.
func Oracle(name string) bool {
	switch name {
	case Basic, Spread, Affinity, Preemption:
		return true
	}
	return false
}

// ErrUnknown is returned for a workload name Generate does not know.
var ErrUnknown = errors.New("unknown workload")

// Spec sizes a workload.
type Spec struct {
	Nodes int
	Pods  int // pending pods, the ones measured
	// Existing is the number of pods running before the clock starts: for
	// Preemption 0 means nodes×8 (every node full), for MixedChurn 0 means
	// one per node; for the others running pods as kubeoracle's
	// --existing-pods.
	Existing int
}

// Op is the kind of an Event.
type Op int

// Operations of an Event.
const (
	AddNode Op = iota
	DeleteNode
	AddPod
	DeletePod
)

func (o Op) String() string {
	switch o {
	case AddNode:
		return "AddNode"
	case DeleteNode:
		return "DeleteNode"
	case AddPod:
		return "AddPod"
	case DeletePod:
		return "DeletePod"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Event is one state change a driver sends once the clock runs. Node is
// set for AddNode and DeleteNode, Pod for AddPod and DeletePod.
type Event struct {
	Op   Op
	Node *model.Node
	Pod  *model.Pod
}

// Workload is a generated cluster and what happens to it.
type Workload struct {
	Name            string
	Spec            Spec
	Nodes           []*model.Node
	PriorityClasses []*model.PriorityClass
	// PodGroups are sent before the pods (Gang).
	PodGroups []*model.PodGroup
	// Existing pods are bound (NodeName set) before the clock starts.
	Existing []*model.Pod
	// Pending pods, in creation order: every one of them must be decided
	// (bound, or reported unschedulable) for a run to end.
	Pending []*model.Pod
	// Devices are the DRA objects, sent after the nodes (DRA); nil for
	// the other workloads.
	Devices *Devices
	// Storage are the storage objects, sent after the nodes (Volumes);
	// nil for the other workloads.
	Storage *Storage
	// Queues are the Kueue objects, sent after the nodes (Queueing); nil
	// for the other workloads.
	Queues *Queues
	// HeldByQuota counts the pending pods whose workloads quota keeps
	// waiting (Queueing): the run ends when the others are bound.
	HeldByQuota int
	// Stream is what a driver sends once the clock starts, in order: an
	// AddPod for every pending pod, interleaved with churn for MixedChurn.
	Stream []Event
	// NeverFit counts the pending pods no node can take (Unschedulable):
	// they end as unschedulable, the others bound.
	NeverFit int
}

// Shape of every synthetic node and of the pods, as kubeoracle's.
const (
	NodeMilliCPU = 32000
	NodeMemory   = 128 << 30
	NodePods     = 110
	Zones        = 10

	podMilliCPU = 100
	podMemory   = 256 << 20
	bigMilliCPU = 4000 // preemption pods: 8 fill a node
	bigMemory   = 16 << 30
	// hugeMilliCPU is more than any node has: the Unschedulable workload's
	// pods that never fit.
	hugeMilliCPU = 64000
)

// Priority classes of the Preemption workload.
const (
	LowPriority  = 100
	HighPriority = 1000
)

// baseTime is kubeoracle's creation time origin: the i-th pod of a
// workload (existing ones first) is created at baseTime + (i+1)s.
func baseTime() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }

// Generate builds the named workload.
func Generate(name string, spec Spec) (*Workload, error) {
	if spec.Nodes <= 0 || spec.Pods < 0 || spec.Existing < 0 {
		return nil, fmt.Errorf("workload %s: nodes must be > 0, pods and existing >= 0 (got %d, %d, %d)",
			name, spec.Nodes, spec.Pods, spec.Existing)
	}
	g := &gen{w: &Workload{Name: name, Spec: spec}}
	g.w.Nodes = make([]*model.Node, 0, spec.Nodes)
	for i := range spec.Nodes {
		g.w.Nodes = append(g.w.Nodes, NewNode(fmt.Sprintf("node-%05d", i), i))
	}
	switch name {
	case Basic, Spread, Affinity, PreferredAffinity, Unschedulable:
		g.existing(spec.Existing, "existing", podMilliCPU, podMemory, "")
		for i := range spec.Pods {
			g.pending(g.target(name, i))
		}
	case Preemption:
		g.w.PriorityClasses = []*model.PriorityClass{{Name: "low", Value: LowPriority}, {Name: "high", Value: HighPriority}}
		fill := spec.Existing
		if fill == 0 {
			fill = spec.Nodes * 8
		}
		g.existing(fill, "low", bigMilliCPU, bigMemory, "low")
		for i := range spec.Pods {
			p := g.pod(fmt.Sprintf("high-%06d", i), "high", bigMilliCPU, bigMemory)
			p.PriorityClassName = "high"
			g.pending(p)
		}
	case MixedChurn:
		g.churn(spec)
	case DRA:
		g.existing(spec.Existing, "existing", podMilliCPU, podMemory, "")
		g.dra(spec)
	case Volumes, VolumesBound:
		g.existing(spec.Existing, "existing", podMilliCPU, podMemory, "")
		g.volumes(spec, name == VolumesBound)
	case Queueing:
		g.existing(spec.Existing, "existing", podMilliCPU, podMemory, "")
		g.queueing(spec)
	case Gang:
		g.existing(spec.Existing, "existing", podMilliCPU, podMemory, "")
		for i := range spec.Pods {
			group := fmt.Sprintf("gang-%06d", i/GangSize)
			if i%GangSize == 0 {
				// The last group may be smaller: it needs all it has.
				size := int32(min(GangSize, spec.Pods-i))
				g.w.PodGroups = append(g.w.PodGroups, &model.PodGroup{Namespace: "default", Name: group, MinCount: size})
			}
			p := g.pod(fmt.Sprintf("pod-%06d", i), "gang", podMilliCPU, podMemory)
			p.SchedulingGroup = group
			g.pending(p)
		}
	default:
		return nil, fmt.Errorf("workload %q: %w (known: %v)", name, ErrUnknown, Names())
	}
	return g.w, nil
}

// NewNode is the synthetic node called name, in zone i%Zones.
func NewNode(name string, i int) *model.Node {
	return &model.Node{
		Name: name,
		Labels: map[string]string{
			model.LabelHostname:       name,
			model.LabelZone:           fmt.Sprintf("zone-%d", i%Zones),
			model.LabelRegion:         "region-1",
			"kubernetes.io/os":        "linux",
			"kubernetes.io/arch":      "amd64",
			"node.kubernetes.io/pool": "default",
		},
		Allocatable: model.ResourceList{model.ResourceCPU: NodeMilliCPU, model.ResourceMemory: NodeMemory, model.ResourcePods: NodePods},
		// Ready, as its manifest says (writeNode).
		Conditions: []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}},
	}
}

type gen struct {
	w   *Workload
	idx int // pods created so far: orders creation times
}

// pauseImage is every generated container's image, as kubeoracle gen
// writes it.
const pauseImage = "registry.k8s.io/pause:3.10"

// pod is a pod as kubeoracle makes them, created after the previous one.
func (g *gen) pod(name, app string, milliCPU, memory int64) *model.Pod {
	g.idx++
	return &model.Pod{
		UID:           "pod-default-" + name,
		Namespace:     "default",
		Name:          name,
		Labels:        map[string]string{"app": app},
		SchedulerName: model.DefaultSchedulerName,
		Containers: []model.Container{{Name: "c", Image: pauseImage, Requests: model.ResourceList{
			model.ResourceCPU: milliCPU, model.ResourceMemory: memory,
		}}},
		Tolerations:  defaultTolerations(),
		CreationTime: baseTime().Add(time.Duration(g.idx) * time.Second),
		Ready:        true,
	}
}

// defaultTolerations are those Kubernetes' DefaultTolerationSeconds
// admission adds to every pod (and core/manifest too).
func defaultTolerations() []model.Toleration {
	secs := func() *int64 { v := int64(300); return &v }
	return []model.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: model.TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: secs()},
		{Key: "node.kubernetes.io/unreachable", Operator: model.TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: secs()},
	}
}

// existing adds n running pods, bound round-robin to the nodes.
func (g *gen) existing(n int, prefix string, milliCPU, memory int64, class string) {
	for i := range n {
		p := g.pod(fmt.Sprintf("%s-%06d", prefix, i), prefix, milliCPU, memory)
		p.PriorityClassName = class
		p.NodeName = g.w.Nodes[i%len(g.w.Nodes)].Name
		p.StartTime = p.CreationTime
		g.w.Existing = append(g.w.Existing, p)
	}
}

func (g *gen) pending(p *model.Pod) {
	g.w.Pending = append(g.w.Pending, p)
	g.w.Stream = append(g.w.Stream, Event{Op: AddPod, Pod: p})
}

// target is the i-th pending pod of the single-kind workloads.
func (g *gen) target(name string, i int) *model.Pod {
	podName := fmt.Sprintf("pod-%06d", i)
	group := fmt.Sprintf("g%d", i%10)
	switch name {
	case Spread:
		p := g.pod(podName, "spread", podMilliCPU, podMemory)
		p.TopologySpreadConstraints = []model.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: model.LabelZone, WhenUnsatisfiable: model.DoNotSchedule,
			LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
		}}
		return p
	case Affinity:
		p := g.pod(podName, "affinity", podMilliCPU, podMemory)
		p.Labels["group"] = group
		p.Affinity = &model.Affinity{PodAntiAffinity: &model.PodAntiAffinity{Required: []model.PodAffinityTerm{{
			LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"group": group}},
			TopologyKey:   model.LabelHostname,
		}}}}
		return p
	case PreferredAffinity:
		// scheduler_perf's preferred pod affinity: each pod would rather
		// share a zone with its group (10 groups) and not a host.
		p := g.pod(podName, "preferred", podMilliCPU, podMemory)
		p.Labels["group"] = group
		sel := &model.LabelSelector{MatchLabels: map[string]string{"group": group}}
		p.Affinity = &model.Affinity{
			PodAffinity: &model.PodAffinity{Preferred: []model.WeightedPodAffinityTerm{{
				Weight: 100, Term: model.PodAffinityTerm{LabelSelector: sel, TopologyKey: model.LabelZone},
			}}},
			PodAntiAffinity: &model.PodAntiAffinity{Preferred: []model.WeightedPodAffinityTerm{{
				Weight: 10, Term: model.PodAffinityTerm{LabelSelector: sel, TopologyKey: model.LabelHostname},
			}}},
		}
		return p
	case Unschedulable:
		// Every tenth pod asks for more cpu than any node has.
		if i%10 == 9 {
			g.w.NeverFit++
			return g.pod(podName, "huge", hugeMilliCPU, podMemory)
		}
		return g.pod(podName, "fits", podMilliCPU, podMemory)
	}
	return g.pod(podName, "basic", podMilliCPU, podMemory)
}

// churn builds MixedChurn: basic pods arrive while nodes and pods come and
// go. A tenth more nodes than asked start cordoned, each running one pod
// ("drain"); every other node runs one pod ("existing"). After every 10th
// pending pod a new node joins and one existing pod ends; after every 20th
// a cordoned node's pod ends and the node leaves. Every pending pod fits.
func (g *gen) churn(spec Spec) {
	existing := spec.Existing
	if existing == 0 {
		existing = spec.Nodes
	}
	g.existing(existing, "existing", podMilliCPU, podMemory, "")
	drained := make([]*model.Node, 0, spec.Nodes/10)
	var drainPods []*model.Pod
	for i := range spec.Nodes / 10 {
		n := NewNode(fmt.Sprintf("drain-%05d", i), i)
		n.Unschedulable = true
		drained = append(drained, n)
		p := g.pod(fmt.Sprintf("drain-%06d", i), "drain", podMilliCPU, podMemory)
		p.NodeName, p.StartTime = n.Name, p.CreationTime
		drainPods = append(drainPods, p)
	}
	g.w.Nodes = append(g.w.Nodes, drained...)
	g.w.Existing = append(g.w.Existing, drainPods...)
	added, ended := 0, 0
	for i := range spec.Pods {
		g.pending(g.pod(fmt.Sprintf("pod-%06d", i), "basic", podMilliCPU, podMemory))
		k := i + 1
		if k%10 == 0 {
			n := NewNode(fmt.Sprintf("extra-%05d", added), spec.Nodes+added)
			added++
			g.w.Stream = append(g.w.Stream, Event{Op: AddNode, Node: n})
			if ended < existing {
				g.w.Stream = append(g.w.Stream, Event{Op: DeletePod, Pod: g.w.Existing[ended]})
				ended++
			}
		}
		if k%20 == 0 && len(drained) > 0 {
			g.w.Stream = append(g.w.Stream,
				Event{Op: DeletePod, Pod: drainPods[0]},
				Event{Op: DeleteNode, Node: drained[0]})
			drained, drainPods = drained[1:], drainPods[1:]
		}
	}
}

// Bound returns a copy of p bound to node, as the orchestrator reports it
// once the bind is done.
func Bound(p *model.Pod, node string) *model.Pod {
	c := *p
	c.NodeName = node
	c.NominatedNodeName = ""
	return &c
}

// Sizes are the cluster sizes of the suite.
func Sizes() []int { return []int{500, 5000} }

// CostSizes are the cluster sizes of the cost growth benchmark.
func CostSizes() []int { return []int{500, 1000, 5000, 15000} }

// DefaultPods is the number of pending pods the suite uses for a cluster
// of n nodes: two per node, as kubeoracle's measurements (5000 nodes,
// 10000 pods).
func DefaultPods(name string, nodes int) int {
	if name == Preemption {
		return nodes / 5 // each preemptor evicts; kube manages ~30-60/s
	}
	return 2 * nodes
}

// PendingUIDs returns the UIDs of the pending pods, sorted.
func (w *Workload) PendingUIDs() []string {
	out := make([]string, len(w.Pending))
	for i, p := range w.Pending {
		out[i] = p.UID
	}
	slices.Sort(out)
	return out
}

// Fits reports whether a synthetic node can take p at all: false for the
// Unschedulable workload's pods that ask for more than a node has.
func Fits(p *model.Pod) bool {
	r := model.ComputeRequests(p).Requests
	return r.MilliCPU <= NodeMilliCPU && r.Memory <= NodeMemory
}
