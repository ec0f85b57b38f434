// Package workloadpods makes the pods Berth holds for an explicit Kueue
// Workload sent with hold_pods (issue 31): for each pod set, count pods
// made from its template. It is pure: server/heldpods keeps them in the
// object store, server/queuesvc reads which workload and pod set a held
// pod is of (Of), and the decision log names it in the pod's Bind.
//
// A held pod is a function of its Workload alone, so that a restart (or a
// new leader) re-derives the same pods, names and uids from the Workload
// re-listed: nothing of them is orchestrator state.
package workloadpods

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

// PodSetLabel names, on a held pod, the pod set it was made from (the
// label Kueue puts on the pods of a pod set).
const PodSetLabel = "kueue.x-k8s.io/podset"

// OwnerKind is the kind of a held pod's controller owner reference.
const OwnerKind = "Workload"

// ContainerName is the name of a held pod's one container, which carries
// the template's requests.
const ContainerName = "main"

// Ref says which pod of which workload a held pod is.
type Ref struct {
	Namespace, Workload, WorkloadUID string
	PodSet                           string
	Index                            int32
}

// WorkloadKey is the workload's "namespace/name".
func (r Ref) WorkloadKey() string { return r.Namespace + "/" + r.Workload }

// PodName is the name of a workload's index-th pod of podSet.
func PodName(workload, podSet string, index int32) string {
	return workload + "-" + podSet + "-" + strconv.Itoa(int(index))
}

// baseUID is what held pods' uids derive from: the Workload's uid, or
// the uid Berth gives workloads sent without one.
func baseUID(w *quota.Workload) string {
	if w.UID != "" {
		return w.UID
	}
	return integrations.UID(w.Namespace, w.Name)
}

// PodUID is the uid of a workload's index-th pod of podSet.
func PodUID(w *quota.Workload, podSet string, index int32) string {
	return baseUID(w) + "-" + podSet + "-" + strconv.Itoa(int(index))
}

// Pods are the pods w holds, pod set by pod set in order, each set's in
// index order; none when w does not hold pods (HoldPods unset).
func Pods(w *quota.Workload) []*model.Pod {
	if !w.HoldPods {
		return nil
	}
	var out []*model.Pod
	for _, ps := range w.PodSets {
		for i := range ps.Count {
			out = append(out, Pod(w, ps, i))
		}
	}
	return out
}

// Pod is the index-th pod of w's pod set ps: the template's requests in
// one container, its node selector and tolerations, the workload's queue
// (kueue.x-k8s.io/queue-name, empty when it has none) and pod set as
// labels, the Workload as controller owner, the
// workload's priority if it sets one, its creation time.
func Pod(w *quota.Workload, ps quota.PodSet, index int32) *model.Pod {
	// The queue label even when empty: Kueue's gate holds every pod of a
	// workload not admitted, and a workload in no queue is never admitted.
	labels := map[string]string{PodSetLabel: ps.Name, integrations.QueueNameLabel: w.QueueName}
	p := &model.Pod{
		UID: PodUID(w, ps.Name, index), Namespace: w.Namespace, Name: PodName(w.Name, ps.Name, index),
		Labels:       labels,
		Containers:   []model.Container{{Name: ContainerName, Requests: maps.Clone(ps.Requests)}},
		NodeSelector: maps.Clone(ps.NodeSelector), Tolerations: slices.Clone(ps.Tolerations),
		CreationTime: w.Created,
		Runtime: &model.PodRuntime{Owners: []model.OwnerReference{
			{Kind: OwnerKind, Name: w.Name, UID: w.UID, Controller: true},
		}},
	}
	if w.HasPriority {
		// A value sent on the Workload; a WorkloadPriorityClass alone is
		// admission's (Kueue's), not the pods' scheduling priority.
		prio := w.Priority
		p.RequestedPriority = &prio
	}
	return p
}

// Of says which held pod p is: its controller owner reference of kind
// Workload, its pod set label and the index its name ends with. False for
// any other pod (and for a pod whose name is not its pod set's).
func Of(p *model.Pod) (Ref, bool) {
	if p == nil || p.Runtime == nil {
		return Ref{}, false
	}
	i := slices.IndexFunc(p.Runtime.Owners, func(o model.OwnerReference) bool { return o.Controller })
	if i < 0 || p.Runtime.Owners[i].Kind != OwnerKind {
		return Ref{}, false
	}
	owner := p.Runtime.Owners[i]
	podSet, ok := p.Labels[PodSetLabel]
	if !ok {
		return Ref{}, false
	}
	rest, ok := strings.CutPrefix(p.Name, owner.Name+"-"+podSet+"-")
	if !ok {
		return Ref{}, false
	}
	n, err := strconv.ParseInt(rest, 10, 32)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != rest {
		return Ref{}, false
	}
	return Ref{Namespace: p.Namespace, Workload: owner.Name, WorkloadUID: owner.UID, PodSet: podSet, Index: int32(n)}, true
}

// Changed says whether a Workload re-sent changes the pods it holds in a
// way Kueue forbids once it is admitted (its pod sets are immutable while
// it holds quota): the path of the first pod set field that differs
// ("pod_sets" when their number or names differ, "pod_sets[i].count",
// "pod_sets[i].min_count", "pod_sets[i].template"), or "" when none does.
func Changed(old, cur *quota.Workload) string {
	if len(old.PodSets) != len(cur.PodSets) {
		return "pod_sets"
	}
	for i := range old.PodSets {
		a, b := old.PodSets[i], cur.PodSets[i]
		at := func(f string) string { return fmt.Sprintf("pod_sets[%d].%s", i, f) }
		switch {
		case a.Name != b.Name:
			return at("name")
		case a.Count != b.Count:
			return at("count")
		case !equalPtr(a.MinCount, b.MinCount):
			return at("min_count")
		case !maps.Equal(a.Requests, b.Requests) || !maps.Equal(a.NodeSelector, b.NodeSelector) || !slices.EqualFunc(a.Tolerations, b.Tolerations, equalToleration):
			return at("template")
		}
	}
	return ""
}

func equalPtr(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func equalToleration(a, b model.Toleration) bool {
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect &&
		equalPtr64(a.TolerationSeconds, b.TolerationSeconds)
}

func equalPtr64(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
