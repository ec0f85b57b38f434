package manifest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
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
	jobMinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism"
	priorityClassLabel          = "kueue.x-k8s.io/priority-class"
)

// workloadName is Kueue's name for an owner's Workload (integrations.Name).
func workloadName(kind, group, name, uid string) string {
	return integrations.Name(kind, group, name, uid)
}

// queuedJob records a Job labelled with a queue name and its pods (made
// by the caller); they are held for admission as one workload.
func (b *builder) queuedJob(e *entry, j *batchv1.Job, pods []*model.Pod) {
	b.kueue.jobs = append(b.kueue.jobs, &kueueJob{e: e, job: j, pods: b.holdForAdmission(pods)})
}

// holdForAdmission marks pods as held by their owner's workload (not
// workloads of their own) and returns their keys.
func (b *builder) holdForAdmission(pods []*model.Pod) []string {
	k := &b.kueue
	if k.jobPods == nil {
		k.jobPods = map[string]bool{}
	}
	keys := make([]string, 0, len(pods))
	for _, p := range pods {
		keys = append(keys, p.Key())
		k.jobPods[p.Key()] = true
	}
	return keys
}

// jobWorkload is the Workload Kueue's Job integration makes: one pod set
// "main" of min(parallelism, completions) pods of the template, minCount
// from the job-min-parallelism annotation, the priority of the
// kueue.x-k8s.io/priority-class label's WorkloadPriorityClass or of the
// template's PriorityClass.
func (b *builder) jobWorkload(kj *kueueJob) (*quota.Workload, error) {
	j, e := kj.job, kj.e
	ns := namespaceOr(j.Namespace)
	n := int32(1)
	if j.Spec.Parallelism != nil {
		n = *j.Spec.Parallelism
	}
	if j.Spec.Completions != nil && *j.Spec.Completions < n {
		n = *j.Spec.Completions
	}
	w := &quota.Workload{Namespace: ns, Name: workloadName("Job", "batch", j.Name, string(j.UID)), QueueName: j.Labels[QueueNameLabel], Active: true, Pods: kj.pods}
	w.UID = "wl-" + ns + "-" + w.Name
	w.Created = j.CreationTimestamp.Time.UTC()
	if w.Created.IsZero() && len(kj.pods) > 0 {
		for _, p := range b.cluster.Pods {
			if p.Key() == kj.pods[0] {
				w.Created = p.CreationTime
			}
		}
	}
	pod, ferr := convertPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: j.Name}, Spec: j.Spec.Template.Spec})
	if ferr != nil {
		return nil, e.fail("spec.template"+ferr.field, ferr.err)
	}
	ps := quota.PodSet{Name: "main", Count: n, Requests: workloadPodRequests(pod), NodeSelector: pod.NodeSelector, Tolerations: pod.Tolerations}
	if v, ok := j.Annotations[jobMinParallelismAnnotation]; ok {
		m, err := strconv.Atoi(v)
		if err != nil || m < 0 || int32(m) > n {
			return nil, e.fail("metadata.annotations["+jobMinParallelismAnnotation+"]", fmt.Errorf("must be an integer between 0 and the job's %d pods, got %q", n, v))
		}
		mc := int32(m)
		ps.MinCount = &mc
	}
	w.PodSets = []quota.PodSet{ps}
	var err error
	switch {
	case j.Labels[priorityClassLabel] != "":
		err = b.resolveWorkloadPriority(w, j.Labels[priorityClassLabel], "WorkloadPriorityClass")
	case pod.RequestedPriority != nil:
		w.Priority, w.HasPriority = *pod.RequestedPriority, true
	default:
		err = b.resolveWorkloadPriority(w, pod.PriorityClassName, "PriorityClass")
	}
	if err != nil {
		w.Error = err.Error()
	}
	return w, nil
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

// podShape is a canonical text of what makes pods one pod set
// (integrations.PodShape).
func podShape(req model.ResourceList, p *model.Pod) string { return integrations.PodShape(req, p) }

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
// template's PriorityClass. Scaled to zero it has no pods and no
// workload.
func (b *builder) statefulSetWorkload(ks *kueueStatefulSet) (*quota.Workload, error) {
	s, e := ks.set, ks.e
	ns := namespaceOr(s.Namespace)
	w := &quota.Workload{Namespace: ns, Name: workloadName("StatefulSet", "apps", s.Name, string(s.UID)), QueueName: s.Labels[QueueNameLabel], Active: true, Pods: ks.pods}
	w.UID = "wl-" + ns + "-" + w.Name
	w.Created = s.CreationTimestamp.Time.UTC()
	for _, p := range b.cluster.Pods {
		if p.Key() == ks.pods[0] && w.Created.IsZero() {
			w.Created = p.CreationTime
		}
	}
	pod, ferr := convertPod(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: s.Name}, Spec: s.Spec.Template.Spec})
	if ferr != nil {
		return nil, e.fail("spec.template"+ferr.field, ferr.err)
	}
	req := workloadPodRequests(pod)
	h := sha1.Sum([]byte(podShape(req, pod)))
	w.PodSets = []quota.PodSet{{Name: hex.EncodeToString(h[:])[:8], Count: int32(len(ks.pods)), Requests: req, NodeSelector: pod.NodeSelector, Tolerations: pod.Tolerations}}
	var err error
	switch {
	case s.Labels[priorityClassLabel] != "":
		err = b.resolveWorkloadPriority(w, s.Labels[priorityClassLabel], "WorkloadPriorityClass")
	case pod.RequestedPriority != nil:
		w.Priority, w.HasPriority = *pod.RequestedPriority, true
	default:
		err = b.resolveWorkloadPriority(w, pod.PriorityClassName, "PriorityClass")
	}
	if err != nil {
		w.Error = err.Error()
	}
	return w, nil
}
