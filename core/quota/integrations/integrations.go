// Package integrations makes Kueue's Workloads of what orchestrators send, as
// Kueue's integrations make them: a pod labelled with a queue name is a
// one-pod workload, a queued PodGroup one workload of its members, a
// queued Job's or StatefulSet's pods one workload of their owner (known
// from the pods alone: their controller owner reference and Kueue's
// labels and annotations, owners.go), a running pod an admitted workload
// holding its flavors' quota. It is pure:
// the manifest builder (berthctl simulate) and berthd's admission
// controller (server/queuesvc) both call it, so offline simulation and
// berthd derive the same workloads.
package integrations

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

// QueueNameLabel marks a pod (or an owner) as a workload of a LocalQueue.
const QueueNameLabel = "kueue.x-k8s.io/queue-name"

// MainPodSet is the name of the pod set of a one-pod workload.
const MainPodSet = "main"

// Name is Kueue's name for an owner's Workload:
// "<kind>-<name>-<first 5 hex of sha1(kind, group, name, uid)>".
func Name(kind, group, name, uid string) string {
	h := sha1.New()
	h.Write([]byte(kind + "\n" + group + "\n" + name + "\n" + uid))
	prefix := strings.ToLower(kind) + "-" + name
	if len(prefix) > 253-6 {
		prefix = prefix[:253-6]
	}
	return prefix + "-" + hex.EncodeToString(h.Sum(nil))[:5]
}

// UID is the uid Berth gives a workload it derived (Kueue's are the API
// server's): stable across runs, so admission messages that name it are.
func UID(namespace, name string) string { return "wl-" + namespace + "-" + name }

// PodRequests is what one pod of a workload asks of quota: its containers'
// requests as the scheduler aggregates them, pod-level requests in their
// place, plus the overhead.
func PodRequests(p *model.Pod) model.ResourceList {
	out := model.AggregateContainerRequests(p)
	for r, v := range p.PodLevelRequests {
		out[r] = v
	}
	for r, v := range p.Overhead {
		out[r] += v
	}
	return out
}

// Priorities resolves a workload's priority from the classes known.
type Priorities struct {
	PriorityClasses []*model.PriorityClass
	WorkloadClasses []*quota.WorkloadPriorityClass
}

// Class kinds a priority is resolved from.
const (
	KindPriorityClass         = "PriorityClass"
	KindWorkloadPriorityClass = "WorkloadPriorityClass"
)

// Resolve sets w's priority from the class of kind named name, unless w
// has one already; without a name, from the global default PriorityClass
// (the lowest of them), if any. A class not found is an error naming it.
func (p Priorities) Resolve(w *quota.Workload, name, kind string) error {
	if w.HasPriority {
		return nil
	}
	if name == "" {
		var def *model.PriorityClass
		for _, pc := range p.PriorityClasses {
			if pc.GlobalDefault && (def == nil || pc.Value < def.Value) {
				def = pc
			}
		}
		if def != nil {
			w.Priority, w.HasPriority, w.PriorityClass = def.Value, true, def.Name
		}
		return nil
	}
	switch kind {
	case KindWorkloadPriorityClass:
		for _, c := range p.WorkloadClasses {
			if c.Name == name {
				w.Priority, w.HasPriority = c.Value, true
				return nil
			}
		}
		return fmt.Errorf("WorkloadPriorityClass %q not found", name)
	case KindPriorityClass:
		for _, c := range p.PriorityClasses {
			if c.Name == name {
				w.Priority, w.HasPriority = c.Value, true
				return nil
			}
		}
		return fmt.Errorf("PriorityClass %q not found", name)
	}
	return fmt.Errorf("unsupported priorityClassRef kind %q", kind)
}

// podPriority gives w the pod's priority: its spec.priority, else its
// PriorityClass's; a class not found is w's Error.
func (p Priorities) podPriority(w *quota.Workload, pod *model.Pod) {
	if pod.RequestedPriority != nil {
		w.Priority, w.HasPriority = *pod.RequestedPriority, true
	} else if err := p.Resolve(w, pod.PriorityClassName, KindPriorityClass); err != nil {
		w.Error = err.Error()
	}
	w.PriorityClass = pod.PriorityClassName
}

// ForPod is the Workload Kueue's pod integration makes of a pending pod
// labelled with queue: one pod set "main" of one pod, the pod's requests,
// node selector and tolerations, its priority.
func ForPod(p *model.Pod, queue string, prio Priorities) *quota.Workload {
	w := &quota.Workload{
		Namespace: p.Namespace, Name: Name("Pod", "", p.Name, p.UID), QueueName: queue, Active: true,
		Created: p.CreationTime, Pods: []string{p.Key()},
		PodSets: []quota.PodSet{{Name: MainPodSet, Count: 1, Requests: PodRequests(p), NodeSelector: p.NodeSelector, Tolerations: p.Tolerations}},
	}
	w.UID = UID(w.Namespace, w.Name)
	prio.podPriority(w, p)
	return w
}

// ForRunningPod is the admitted Workload of a pod labelled with queue that
// runs already (Kueue admitted it, so it holds its ClusterQueue's quota and
// can be preempted): its flavors are, per resource group of the
// ClusterQueue, the first flavor whose node labels nodeLabels have (the
// labels of the pod's node, or its node selector when the node is not
// known), as Kueue injected them. A LocalQueue, ClusterQueue or flavor
// that cannot be found is the workload's Error, naming what is missing.
func ForRunningPod(p *model.Pod, queue string, nodeLabels map[string]string, queues *Queues, prio Priorities) *quota.Workload {
	req := PodRequests(p)
	w := &quota.Workload{
		Namespace: p.Namespace, Name: Name("Pod", "", p.Name, p.UID), QueueName: queue, Active: true, Created: p.CreationTime,
		PodSets: []quota.PodSet{{Name: MainPodSet, Count: 1, Requests: req, NodeSelector: p.NodeSelector, Tolerations: p.Tolerations}},
	}
	w.UID = UID(w.Namespace, w.Name)
	prio.podPriority(w, p)
	if w.Error != "" {
		return w
	}
	a, err := queues.RunningAdmission(p.Namespace, queue, req, nodeLabels)
	if err != nil {
		w.Error = fmt.Sprintf("running pod %s on node %s: %v", p.Key(), p.NodeName, err)
		return w
	}
	a.Reserved = p.CreationTime
	w.Admission, w.Running = a, []string{p.Key()}
	return w
}

// Queues indexes the LocalQueues, ClusterQueues and flavors of an input
// by name, for RunningAdmission.
type Queues struct {
	lqs     map[string]*quota.LocalQueue
	cqs     map[string]*quota.ClusterQueue
	flavors map[string]*quota.ResourceFlavor
}

// NewQueues indexes objs.
func NewQueues(objs *quota.Objects) *Queues {
	q := &Queues{lqs: map[string]*quota.LocalQueue{}, cqs: map[string]*quota.ClusterQueue{}, flavors: map[string]*quota.ResourceFlavor{}}
	for _, lq := range objs.LocalQueues {
		q.lqs[lq.Key()] = lq
	}
	for _, cq := range objs.ClusterQueues {
		q.cqs[cq.Name] = cq
	}
	for _, f := range objs.Flavors {
		q.flavors[f.Name] = f
	}
	return q
}

// RunningAdmission is the admission a running pod of LocalQueue
// namespace/queue holds, its flavors read from its node's labels.
func (q *Queues) RunningAdmission(namespace, queue string, req model.ResourceList, nodeLabels map[string]string) (*quota.Admission, error) {
	lq := q.lqs[namespace+"/"+queue]
	if lq == nil {
		return nil, fmt.Errorf("its LocalQueue does not exist")
	}
	cq := q.cqs[lq.ClusterQueue]
	if cq == nil {
		return nil, fmt.Errorf("ClusterQueue %s (of LocalQueue %s) does not exist", lq.ClusterQueue, lq.Key())
	}
	flavors := q.flavors
	psa := quota.PodSetAssignment{Name: MainPodSet, Count: 1, Flavors: map[string]string{}}
	for _, rg := range cq.ResourceGroups {
		used := slices.ContainsFunc(rg.CoveredResources, func(r string) bool { return req[r] > 0 || r == model.ResourcePods })
		if !used {
			continue
		}
		i := slices.IndexFunc(rg.Flavors, func(fq quota.FlavorQuotas) bool {
			f := flavors[fq.Name]
			return f != nil && labelsHave(nodeLabels, f.NodeLabels)
		})
		if i < 0 {
			return nil, fmt.Errorf("no flavor of ClusterQueue %s for %v has the node's labels", cq.Name, rg.CoveredResources)
		}
		for _, r := range rg.CoveredResources {
			if req[r] > 0 || r == model.ResourcePods {
				psa.Flavors[r] = rg.Flavors[i].Name
			}
		}
	}
	return &quota.Admission{ClusterQueue: cq.Name, PodSetAssignments: []quota.PodSetAssignment{psa}}, nil
}

// labelsHave says whether have holds every label of want.
func labelsHave(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// ForGroup is the one Workload of a queued PodGroup's pending members
// (members not bound: NodeName empty), admitted and preempted whole: a
// pod set per distinct member shape (requests, node selector,
// tolerations), named by the shape's hash as Kueue names a pod group's
// roles, counted by its members, in members' order; the group's priority
// (its class's, resolved as for its members). Nil when no member is
// pending.
func ForGroup(g *model.PodGroup, queue string, members []*model.Pod, prio Priorities) *quota.Workload {
	w := &quota.Workload{Namespace: g.Namespace, Name: g.Name, QueueName: queue, Active: true}
	w.UID = UID(w.Namespace, w.Name)
	index := map[string]int{}
	for _, p := range members {
		if p.NodeName != "" {
			continue
		}
		if w.Created.IsZero() || p.CreationTime.Before(w.Created) {
			w.Created = p.CreationTime
		}
		w.Pods = append(w.Pods, p.Key())
		req := PodRequests(p)
		shape := PodShape(req, p)
		i, ok := index[shape]
		if !ok {
			i = len(w.PodSets)
			index[shape] = i
			w.PodSets = append(w.PodSets, quota.PodSet{Name: shapeName(shape), Requests: req, NodeSelector: p.NodeSelector, Tolerations: p.Tolerations})
		}
		w.PodSets[i].Count++
		if w.PodSetOf == nil {
			w.PodSetOf = map[string]string{}
		}
		w.PodSetOf[p.Key()] = w.PodSets[i].Name
	}
	if len(w.PodSets) == 0 {
		return nil
	}
	if g.RequestedPriority != nil {
		w.Priority, w.HasPriority = *g.RequestedPriority, true
	} else if err := prio.Resolve(w, g.PriorityClassName, KindPriorityClass); err != nil {
		w.Error = err.Error()
	}
	return w
}

// PodSetName is the name of the pod set a member of a queued PodGroup is
// in: its shape's hash, as ForGroup names them.
func PodSetName(p *model.Pod) string { return shapeName(PodShape(PodRequests(p), p)) }

func shapeName(shape string) string {
	h := sha1.Sum([]byte(shape))
	return hex.EncodeToString(h[:])[:8]
}

// PodShape is a canonical text of what makes pods one pod set: their
// requests, node selector and tolerations.
func PodShape(req model.ResourceList, p *model.Pod) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(req)) {
		fmt.Fprintf(&b, "%s=%d;", k, req[k])
	}
	b.WriteString("|")
	for _, k := range slices.Sorted(maps.Keys(p.NodeSelector)) {
		fmt.Fprintf(&b, "%s=%s;", k, p.NodeSelector[k])
	}
	b.WriteString("|")
	for _, t := range p.Tolerations {
		secs := "-"
		if t.TolerationSeconds != nil {
			secs = strconv.FormatInt(*t.TolerationSeconds, 10)
		}
		fmt.Fprintf(&b, "%s/%s/%s/%s/%s;", t.Key, t.Operator, t.Value, t.Effect, secs)
	}
	return b.String()
}
