package integrations

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

// Kueue's labels and annotations on an owner (a Job, a StatefulSet) that
// berthd reads from the owner's pods, since it sees pods and not their
// owners: the orchestrator (berthctl apply's expansion, or an adapter)
// copies them from the owner to each pod it sends.
const (
	// PriorityClassLabel names the WorkloadPriorityClass of an owner's
	// workload.
	PriorityClassLabel = "kueue.x-k8s.io/priority-class"
	// JobMinParallelismAnnotation is the fewest pods a Job may be
	// admitted with (partial admission).
	JobMinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism"
	// PodGroupTotalCountAnnotation is how many pods the owner's workload
	// asks for (a Job's min(parallelism, completions), a StatefulSet's
	// replicas); Kueue's plain pod groups carry it too. Without it, the
	// pods berthd holds are counted.
	PodGroupTotalCountAnnotation = "kueue.x-k8s.io/pod-group-total-count"
)

// Owner kinds whose pods Kueue's integrations make one workload of.
const (
	KindJob         = "Job"
	KindStatefulSet = "StatefulSet"
)

// ownerGroup is the API group of an owner kind (in Kueue's workload name
// hash); false for a kind that is not one.
func ownerGroup(kind string) (string, bool) {
	switch kind {
	case KindJob:
		return "batch", true
	case KindStatefulSet:
		return "apps", true
	}
	return "", false
}

// Owner is a queued Job or StatefulSet, as its pods describe it.
type Owner struct {
	Kind, Namespace, Name, UID string
	Queue                      string
	// Count is the pods its workload asks for; 0 counts the pods given.
	Count int32
	// MinCount is a Job's partial admission minimum (nil: none).
	MinCount *int32
	// WorkloadClass is its kueue.x-k8s.io/priority-class label.
	WorkloadClass string
}

// WorkloadName is Kueue's name of the owner's workload.
func (o Owner) WorkloadName() string {
	group, _ := ownerGroup(o.Kind)
	return Name(o.Kind, group, o.Name, o.UID)
}

// Key is the owner's workload key, namespace/name.
func (o Owner) Key() string { return o.Namespace + "/" + o.WorkloadName() }

// PodSetName is the name of the owner workload's one pod set for a pod of
// it: "main" for a Job (Kueue's Job integration), the pods' shape hash for
// a StatefulSet (its pods are a Kueue pod group).
func (o Owner) PodSetName(p *model.Pod) string {
	if o.Kind == KindJob {
		return MainPodSet
	}
	return PodSetName(p)
}

// OwnerOf is the queued owner a pod labelled with a queue name belongs to:
// its controller owner reference of kind Job or StatefulSet, the Kueue
// labels and annotations the pod carries (pod annotations are its
// Runtime's). False for any other pod (a plain pod, a Deployment's: a
// one-pod workload of its own). An annotation that is not a count is an
// error naming it.
func OwnerOf(p *model.Pod) (Owner, bool, error) {
	queue, ok := p.Labels[QueueNameLabel]
	if !ok || p.Runtime == nil {
		return Owner{}, false, nil
	}
	i := slices.IndexFunc(p.Runtime.Owners, func(o model.OwnerReference) bool { return o.Controller })
	if i < 0 {
		return Owner{}, false, nil
	}
	ref := p.Runtime.Owners[i]
	if _, known := ownerGroup(ref.Kind); !known {
		return Owner{}, false, nil
	}
	o := Owner{Kind: ref.Kind, Namespace: p.Namespace, Name: ref.Name, UID: ref.UID, Queue: queue, WorkloadClass: p.Labels[PriorityClassLabel]}
	ann := p.Runtime.Annotations
	if v, ok := ann[PodGroupTotalCountAnnotation]; ok {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 1 {
			return o, true, fmt.Errorf("annotation %s: must be a positive integer, got %q", PodGroupTotalCountAnnotation, v)
		}
		o.Count = int32(n)
	}
	if v, ok := ann[JobMinParallelismAnnotation]; ok && o.Kind == KindJob {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 0 {
			return o, true, fmt.Errorf("annotation %s: must be a non-negative integer, got %q", JobMinParallelismAnnotation, v)
		}
		m := int32(n)
		o.MinCount = &m
	}
	return o, true, nil
}

// ForOwner is the one Workload Kueue's integrations make of a queued Job
// or StatefulSet: template is a pod of it (its requests, node selector,
// tolerations, priority), pods its pods in order. A Job's is Kueue's Job
// integration's: one pod set "main" of Count pods, MinCount its partial
// admission minimum. A StatefulSet's is its pod group's: one pod set
// named by the pods' shape, of Count pods, admitted whole. Its priority is
// its WorkloadPriorityClass's, else the template's (spec.priority, its
// PriorityClass, the global default); its creation the earliest of its
// pods'. A MinCount above the count is its Error.
func ForOwner(o Owner, template *model.Pod, pods []*model.Pod, prio Priorities) *quota.Workload {
	count := o.Count
	if count == 0 {
		count = int32(len(pods))
	}
	w := &quota.Workload{Namespace: o.Namespace, Name: o.WorkloadName(), QueueName: o.Queue, Active: true}
	w.UID = UID(w.Namespace, w.Name)
	for _, p := range pods {
		w.Pods = append(w.Pods, p.Key())
		if w.Created.IsZero() || p.CreationTime.Before(w.Created) {
			w.Created = p.CreationTime
		}
	}
	ps := quota.PodSet{Name: o.PodSetName(template), Count: count, Requests: PodRequests(template), NodeSelector: template.NodeSelector, Tolerations: template.Tolerations}
	if o.MinCount != nil {
		mc := *o.MinCount
		ps.MinCount = &mc
		if mc > count {
			w.Error = fmt.Sprintf("annotation %s: %d is more than the job's %d pods", JobMinParallelismAnnotation, mc, count)
		}
	}
	w.PodSets = []quota.PodSet{ps}
	var err error
	switch {
	case o.WorkloadClass != "":
		err = prio.Resolve(w, o.WorkloadClass, KindWorkloadPriorityClass)
	case template.RequestedPriority != nil:
		w.Priority, w.HasPriority = *template.RequestedPriority, true
	default:
		err = prio.Resolve(w, template.PriorityClassName, KindPriorityClass)
	}
	if err != nil && w.Error == "" {
		w.Error = err.Error()
	}
	return w
}

// ReleaseOrder orders an owner workload's pods for release after a
// partial admission: those first says come first (bound, binding or
// released already), then by creation and name; the first admitted-count
// of them are released, the others stay gated (Kueue lowers a Job's
// parallelism to the count admitted).
func ReleaseOrder(pods []*model.Pod, first func(*model.Pod) bool) []*model.Pod {
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(a, b *model.Pod) int {
		pa, pb := first(a), first(b)
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return cmp.Or(a.CreationTime.Compare(b.CreationTime), cmp.Compare(a.Key(), b.Key()))
	})
	return out
}
