package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

// The Workloads Kueue's integrations make of what orchestrators send:
// pods (those of Deployments included: Kueue's Deployment integration
// gives them the Deployment's queue name), Jobs, StatefulSets and
// PodGroups labelled with a queue name.

// QueueNameLabel marks a pod as a one-pod workload of a LocalQueue
// (Kueue's pod integration).
const QueueNameLabel = integrations.QueueNameLabel

// podWorkloads makes a Workload of every pending pod labelled with a
// queue name, as Kueue's pod integration does (integrations.ForPod).
func (b *builder) podWorkloads() []*quota.Workload {
	var out []*quota.Workload
	for _, p := range b.cluster.Pods {
		q, ok := p.Labels[QueueNameLabel]
		if !ok || p.NodeName != "" || b.kueue.jobPods[p.Key()] || b.queuedGroupOf(p) {
			continue
		}
		out = append(out, integrations.ForPod(p, q, b.priorities()))
	}
	return out
}

// Kueue's Job annotations and labels.
const (
	jobMinParallelismAnnotation = integrations.JobMinParallelismAnnotation
	priorityClassLabel          = integrations.PriorityClassLabel
)

// queuedJob records a Job labelled with a queue name and its pods (made
// by the caller); they are held for admission as one workload.
func (b *builder) queuedJob(e *entry, j *batchv1.Job, pods []*model.Pod) {
	b.kueue.jobs = append(b.kueue.jobs, &kueueJob{e: e, job: j, pods: b.holdForAdmission(pods)})
}

// holdForAdmission marks pods as held by their owner's workload (not
// workloads of their own) and returns them.
func (b *builder) holdForAdmission(pods []*model.Pod) []*model.Pod {
	k := &b.kueue
	if k.jobPods == nil {
		k.jobPods = map[string]bool{}
	}
	for _, p := range pods {
		k.jobPods[p.Key()] = true
	}
	return slices.Clone(pods)
}

// ownerPods gives a queued owner's pods what berthd reads of the owner
// (integrations.OwnerOf), so that the pods berthctl apply sends make the
// workload simulate makes: the queue name and priority-class labels, the
// controller owner reference, the pod count and a Job's minimum as
// annotations. Written with a creation time, the owner made its pods
// then: the workload's creation is its pods' earliest, live as offline.
func ownerPods(o integrations.Owner, pods []*model.Pod, created metav1.Time) {
	for _, p := range pods {
		if !created.IsZero() {
			p.CreationTime = created.Time.UTC()
		}
		p.Labels = maps.Clone(p.Labels)
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[QueueNameLabel] = o.Queue
		if o.WorkloadClass != "" {
			p.Labels[priorityClassLabel] = o.WorkloadClass
		}
		if p.Runtime == nil {
			p.Runtime = &model.PodRuntime{}
		}
		p.Runtime.Owners = append(p.Runtime.Owners, model.OwnerReference{Kind: o.Kind, Name: o.Name, UID: o.UID, Controller: true})
		p.Runtime.Annotations = maps.Clone(p.Runtime.Annotations)
		if p.Runtime.Annotations == nil {
			p.Runtime.Annotations = map[string]string{}
		}
		p.Runtime.Annotations[integrations.PodGroupTotalCountAnnotation] = strconv.Itoa(int(o.Count))
		if o.MinCount != nil {
			p.Runtime.Annotations[jobMinParallelismAnnotation] = strconv.Itoa(int(*o.MinCount))
		}
	}
}

// ownerWorkload is integrations.ForOwner over an owner's template; a
// template that does not convert is the owner's entry's error.
func (b *builder) ownerWorkload(e *entry, o integrations.Owner, template *corev1.PodTemplateSpec, pods []*model.Pod) (*quota.Workload, error) {
	pod, ferr := convertPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name}, Spec: template.Spec})
	if ferr != nil {
		return nil, e.fail("spec.template"+ferr.field, ferr.err)
	}
	return integrations.ForOwner(o, pod, pods, b.priorities()), nil
}

// jobWorkload is the Workload Kueue's Job integration makes: one pod set
// "main" of min(parallelism, completions) pods of the template, minCount
// from the job-min-parallelism annotation, the priority of the
// kueue.x-k8s.io/priority-class label's WorkloadPriorityClass or of the
// template's PriorityClass (integrations.ForOwner).
func (b *builder) jobWorkload(kj *kueueJob) (*quota.Workload, error) {
	j, e := kj.job, kj.e
	n := int32(1)
	if j.Spec.Parallelism != nil {
		n = *j.Spec.Parallelism
	}
	if j.Spec.Completions != nil && *j.Spec.Completions < n {
		n = *j.Spec.Completions
	}
	o := integrations.Owner{Kind: integrations.KindJob, Namespace: namespaceOr(j.Namespace), Name: j.Name, UID: string(j.UID),
		Queue: j.Labels[QueueNameLabel], Count: n, WorkloadClass: j.Labels[priorityClassLabel]}
	if v, ok := j.Annotations[jobMinParallelismAnnotation]; ok {
		m, err := strconv.Atoi(v)
		if err != nil || m < 0 || int32(m) > n {
			return nil, e.fail("metadata.annotations["+jobMinParallelismAnnotation+"]", fmt.Errorf("must be an integer between 0 and the job's %d pods, got %q", n, v))
		}
		mc := int32(m)
		o.MinCount = &mc
	}
	ownerPods(o, kj.pods, j.CreationTimestamp)
	w, err := b.ownerWorkload(e, o, &j.Spec.Template, kj.pods)
	if err == nil && len(kj.pods) == 0 {
		w.Created = j.CreationTimestamp.Time.UTC()
	}
	return w, err
}

func (b *builder) queuedGroup(g *model.PodGroup, queue string) {
	b.kueue.groups = append(b.kueue.groups, queuedGroup{group: g, queue: queue})
}

func (b *builder) queuedGroupOf(p *model.Pod) bool {
	for _, g := range b.kueue.groups {
		if g.group.Key() == p.GroupKey() {
			return true
		}
	}
	return false
}

// groupWorkloads makes one Workload of every queued PodGroup's pending
// members, admitted and preempted whole (integrations.ForGroup).
func (b *builder) groupWorkloads() []*quota.Workload {
	var out []*quota.Workload
	for _, qg := range b.kueue.groups {
		var members []*model.Pod
		for _, p := range b.cluster.Pods {
			if p.GroupKey() == qg.group.Key() {
				members = append(members, p)
			}
		}
		if w := integrations.ForGroup(qg.group, qg.queue, members, b.priorities()); w != nil {
			out = append(out, w) // nil: every member runs already
		}
	}
	return out
}

// queuedStatefulSet records a StatefulSet labelled with a queue name and
// the pods (made by the caller) of its replicas.
func (b *builder) queuedStatefulSet(e *entry, s *appsv1.StatefulSet, pods []*model.Pod) {
	b.kueue.sets = append(b.kueue.sets, &kueueStatefulSet{e: e, set: s, pods: b.holdForAdmission(pods)})
}

// statefulSetWorkload is the Workload Kueue's StatefulSet integration
// makes: the replicas are one pod group, admitted and preempted whole
// (no partial admission), named after the StatefulSet as Kueue names an
// owner's workload, with one pod set (named by the pods' shape, as a pod
// group's) of all its replicas; the priority of its
// kueue.x-k8s.io/priority-class label's WorkloadPriorityClass or of the
// template's PriorityClass (integrations.ForOwner). Scaled to zero it has
// no pods and no workload.
func (b *builder) statefulSetWorkload(ks *kueueStatefulSet) (*quota.Workload, error) {
	s := ks.set
	o := integrations.Owner{Kind: integrations.KindStatefulSet, Namespace: namespaceOr(s.Namespace), Name: s.Name, UID: string(s.UID),
		Queue: s.Labels[QueueNameLabel], Count: int32(len(ks.pods)), WorkloadClass: s.Labels[priorityClassLabel]}
	ownerPods(o, ks.pods, s.CreationTimestamp)
	return b.ownerWorkload(ks.e, o, &s.Spec.Template, ks.pods)
}
