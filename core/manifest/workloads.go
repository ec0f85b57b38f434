package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/berthsched/berth/core/model"
)

// Workload controllers are expanded into the pods they would create, named
// and labelled as the controllers name and label them. The random suffixes
// of real controllers are replaced by deterministic ones derived from the
// owner's name and the replica index (the node name for a DaemonSet), so
// runs are repeatable. Pods written in the manifests that a workload of the
// manifests controls (ownerReferences with controller: true, by kind and
// name, and uid when both have one) count as already created: a ReplicaSet
// or ReplicationController creates only the replicas missing, a
// StatefulSet only the missing ordinals, a DaemonSet only on the nodes
// without one of its pods, and a Deployment whose ReplicaSet is in the
// manifests leaves the pods to it.
//
// The selector of a pod's ReplicaSet, StatefulSet or ReplicationController
// and those of the Services matching it become the pod's
// WorkloadSelectors, from which PodTopologySpread's cluster default
// constraints take their selector, as kube-scheduler takes it from those
// objects.

// ownerKey names a workload of the manifests.
type ownerKey struct{ kind, namespace, name string }

// workload is what the index knows of a workload of the manifests.
type workload struct {
	uid      string
	selector *model.LabelSelector // nil when absent or invalid (the conversion pass reports it)
	compiled model.Selector
	// spreads: kube-scheduler derives default spreading from this kind.
	spreads bool
	// owned counts the active pods of the manifests it controls;
	// ownedNodes are their nodes, or the nodes their affinity pins them to
	// (DaemonSets).
	owned      int
	ownedNodes map[string]bool
	// ownedIndexes are the completion indexes of its pods (Indexed Jobs).
	ownedIndexes map[string]bool
	// hasReplicaSet: a Deployment whose ReplicaSet is in the manifests.
	hasReplicaSet bool
}

// podRef is a pod of the manifests with a controller.
type podRef struct {
	owner  ownerKey
	uid    string
	labels map[string]string
	node   string
	active bool
}

// service is a Service of the manifests.
type service struct {
	e        *entry
	ns       string
	selector map[string]string
}

type workloads struct {
	byKey    map[ownerKey]*workload
	refs     []podRef
	rsOwners []podRef // ReplicaSets' controllers (Deployments)
	services []*service
	// explicit holds the keys (namespace/name) of the pods written in the
	// manifests, so workloads do not create them again.
	explicit map[string]bool
}

func newWorkloads() workloads {
	return workloads{byKey: map[ownerKey]*workload{}, explicit: map[string]bool{}}
}

// controllerOf returns the key of an object's controller, if any.
func controllerOf(meta *metav1.ObjectMeta) (ownerKey, string, bool) {
	ref := metav1.GetControllerOfNoCopy(meta)
	if ref == nil {
		return ownerKey{}, "", false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return ownerKey{}, "", false
	}
	switch {
	case gv.Group == appsv1.GroupName && (ref.Kind == "ReplicaSet" || ref.Kind == "StatefulSet" || ref.Kind == "DaemonSet" || ref.Kind == "Deployment"),
		gv.Group == corev1.GroupName && ref.Kind == "ReplicationController",
		gv.Group == batchv1.GroupName && ref.Kind == "Job":
		return ownerKey{ref.Kind, namespaceOr(meta.Namespace), ref.Name}, string(ref.UID), true
	}
	return ownerKey{}, "", false
}

func (b *builder) indexPod(p *corev1.Pod) {
	ns := namespaceOr(p.Namespace)
	b.explicit[ns+"/"+p.Name] = true
	key, uid, ok := controllerOf(&p.ObjectMeta)
	if !ok {
		return
	}
	active := p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
	node := p.Spec.NodeName
	if node == "" {
		node = pinnedNode(p.Spec.Affinity)
	}
	b.refs = append(b.refs, podRef{owner: key, uid: uid, labels: p.Labels, node: node, active: active})
}

// pinnedNode is the node a pod's required node affinity pins it to, as the
// DaemonSet controller pins its pods ("" when it does not).
func pinnedNode(a *corev1.Affinity) string {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) != 1 || len(terms[0].MatchFields) != 1 {
		return ""
	}
	f := terms[0].MatchFields[0]
	if f.Key != metav1.ObjectNameField || f.Operator != corev1.NodeSelectorOpIn || len(f.Values) != 1 {
		return ""
	}
	return f.Values[0]
}

func (b *builder) indexService(e *entry, s *corev1.Service) {
	b.services = append(b.services, &service{e: e, ns: namespaceOr(s.Namespace), selector: s.Spec.Selector})
}

// indexWorkload records a workload with its selector.
func (b *builder) indexWorkload(obj any) {
	var (
		meta     *metav1.ObjectMeta
		kind     string
		selector *model.LabelSelector
		spreads  bool
	)
	switch o := obj.(type) {
	case *appsv1.Deployment:
		meta, kind = &o.ObjectMeta, "Deployment"
	case *appsv1.ReplicaSet:
		meta, kind, spreads = &o.ObjectMeta, "ReplicaSet", true
		selector, _ = labelSelector(o.Spec.Selector)
		if key, uid, ok := controllerOf(&o.ObjectMeta); ok && key.kind == "Deployment" {
			b.rsOwners = append(b.rsOwners, podRef{owner: key, uid: uid, labels: o.Labels, active: true})
		}
	case *appsv1.StatefulSet:
		meta, kind, spreads = &o.ObjectMeta, "StatefulSet", true
		selector, _ = labelSelector(o.Spec.Selector)
	case *appsv1.DaemonSet:
		meta, kind = &o.ObjectMeta, "DaemonSet"
		selector, _ = labelSelector(o.Spec.Selector)
	case *corev1.ReplicationController:
		meta, kind, spreads = &o.ObjectMeta, "ReplicationController", true
		selector = &model.LabelSelector{MatchLabels: rcSelector(o)}
	case *batchv1.Job:
		meta, kind = &o.ObjectMeta, "Job"
	default:
		return
	}
	w := &workload{uid: string(meta.UID), selector: selector, spreads: spreads, compiled: model.Everything(), ownedNodes: map[string]bool{}, ownedIndexes: map[string]bool{}}
	if selector != nil {
		if c, err := selector.Compile(); err == nil {
			w.compiled = c
		} else {
			w.selector = nil
		}
	}
	b.byKey[ownerKey{kind, namespaceOr(meta.Namespace), meta.Name}] = w
}

// resolveOwned counts the pods each workload already controls.
func (b *builder) resolveOwned() {
	for _, r := range b.refs {
		w := b.owning(r)
		if w == nil || !r.active {
			continue
		}
		w.owned++
		if r.node != "" {
			w.ownedNodes[r.node] = true
		}
		if i, ok := r.labels[batchv1.JobCompletionIndexAnnotation]; ok {
			w.ownedIndexes[i] = true
		}
	}
	for _, r := range b.rsOwners {
		if w := b.owning(r); w != nil {
			w.hasReplicaSet = true
		}
	}
}

// owning returns the workload of the manifests controlling a pod (or a
// ReplicaSet), nil when it is not there, has another uid, or no longer
// selects the pod (its controller would release it).
func (b *builder) owning(r podRef) *workload {
	w := b.byKey[r.owner]
	if w == nil || (r.uid != "" && w.uid != "" && r.uid != w.uid) || !w.compiled.Matches(r.labels) {
		return nil
	}
	return w
}

// ownerSelector is the workload selector a pod of the manifests gets from
// its controller: a ReplicaSet, StatefulSet or ReplicationController of
// the manifests that selects it.
func (b *builder) ownerSelector(p *corev1.Pod) *model.LabelSelector {
	key, uid, ok := controllerOf(&p.ObjectMeta)
	if !ok {
		return nil
	}
	w := b.owning(podRef{owner: key, uid: uid, labels: p.Labels})
	if w == nil || !w.spreads || w.selector == nil {
		return nil
	}
	return w.selector
}

// applyServices gives every pod the selectors of the Services matching it;
// a Service matching no pod does not affect scheduling.
func (b *builder) applyServices() {
	for _, s := range b.services {
		if len(s.selector) == 0 {
			b.ignore(s.e, "has no selector: it selects no pod, and does not affect scheduling")
			continue
		}
		sel := model.SelectorFromSet(s.selector)
		used := false
		for _, p := range b.cluster.Pods {
			if p.Namespace == s.ns && sel.Matches(p.Labels) {
				p.WorkloadSelectors = append(p.WorkloadSelectors, model.LabelSelector{MatchLabels: copyMap(s.selector)})
				used = true
			}
		}
		if !used {
			b.ignore(s.e, "selects no pod of the manifests, so it does not affect scheduling")
		}
	}
}

// controllerSelector validates a workload's selector as the API server
// does: required, not empty, valid, and matching the template's labels.
func controllerSelector(e *entry, sel *metav1.LabelSelector, template *corev1.PodTemplateSpec, kind string) (*model.LabelSelector, error) {
	if sel == nil {
		return nil, e.fail("spec.selector", fmt.Errorf("required"))
	}
	out, ferr := labelSelector(sel)
	if ferr != nil {
		return nil, e.fail("spec.selector"+ferr.field, ferr.err)
	}
	if len(out.MatchLabels) == 0 && len(out.MatchExpressions) == 0 {
		return nil, e.fail("spec.selector", fmt.Errorf("empty selector is invalid for a %s", kind))
	}
	if !out.MustCompile().Matches(template.Labels) {
		return nil, e.fail("spec.template.metadata.labels", fmt.Errorf("`selector` does not match template `labels`"))
	}
	return out, nil
}

// replicaCount validates spec.replicas; unset means 1.
func replicaCount(e *entry, r *int32) (int, error) {
	if r == nil {
		return 1, nil
	}
	if *r < 0 {
		return 0, e.fail("spec.replicas", fmt.Errorf("must be greater than or equal to 0, got %d", *r))
	}
	return int(*r), nil
}

func (b *builder) addDeployment(e *entry, d *appsv1.Deployment) error {
	sel, err := controllerSelector(e, d.Spec.Selector, &d.Spec.Template, "Deployment")
	if err != nil {
		return err
	}
	n, err := replicaCount(e, d.Spec.Replicas)
	if err != nil {
		return err
	}
	if w := b.byKey[ownerKey{"Deployment", namespaceOr(d.Namespace), d.Name}]; w != nil && w.hasReplicaSet {
		b.ignore(e, "its ReplicaSet is in the manifests and makes the pods")
		return nil
	}
	// The Deployment controller makes a ReplicaSet named after the template
	// hash, whose selector and pods carry the hash as pod-template-hash.
	hash := templateHash(&d.Spec.Template)
	rsName := d.Name + "-" + hash
	rsSel := &model.LabelSelector{MatchLabels: copyMap(sel.MatchLabels), MatchExpressions: sel.MatchExpressions}
	if rsSel.MatchLabels == nil {
		rsSel.MatchLabels = map[string]string{}
	}
	rsSel.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	extra := map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: hash}
	// Kueue's Deployment integration copies the Deployment's queue name to
	// its pod template: every pod is then a one-pod workload of Kueue's pod
	// integration (scaling up adds workloads, scaling down removes them).
	if q, ok := d.Labels[QueueNameLabel]; ok {
		extra[QueueNameLabel] = q
	}
	return b.expand(e, d.Namespace, &d.Spec.Template, n, rsSel, func(i int) (string, map[string]string) {
		return rsName + "-" + suffix(rsName, strconv.Itoa(i)), extra
	})
}

func (b *builder) addReplicaSet(e *entry, rs *appsv1.ReplicaSet) error {
	sel, err := controllerSelector(e, rs.Spec.Selector, &rs.Spec.Template, "ReplicaSet")
	if err != nil {
		return err
	}
	n, err := replicaCount(e, rs.Spec.Replicas)
	if err != nil {
		return err
	}
	if w := b.byKey[ownerKey{"ReplicaSet", namespaceOr(rs.Namespace), rs.Name}]; w != nil {
		n = max(0, n-w.owned)
	}
	return b.expand(e, rs.Namespace, &rs.Spec.Template, n, sel, func(i int) (string, map[string]string) {
		return rs.Name + "-" + suffix(rs.Name, strconv.Itoa(i)), nil
	})
}

// rcSelector is a ReplicationController's selector, defaulted to the
// template's labels as the API server does.
func rcSelector(rc *corev1.ReplicationController) map[string]string {
	if len(rc.Spec.Selector) == 0 && rc.Spec.Template != nil {
		return copyMap(rc.Spec.Template.Labels)
	}
	return copyMap(rc.Spec.Selector)
}

func (b *builder) addReplicationController(e *entry, rc *corev1.ReplicationController) error {
	if rc.Spec.Template == nil {
		return e.fail("spec.template", fmt.Errorf("required"))
	}
	selector := rcSelector(rc)
	if len(selector) == 0 {
		return e.fail("spec.selector", fmt.Errorf("required: the template has no labels to default it from"))
	}
	sel, ferr := labelSelector(&metav1.LabelSelector{MatchLabels: selector})
	if ferr != nil {
		return e.fail("spec.selector"+ferr.field, ferr.err)
	}
	if !sel.MustCompile().Matches(rc.Spec.Template.Labels) {
		return e.fail("spec.template.metadata.labels", fmt.Errorf("`selector` does not match template `labels`"))
	}
	n, err := replicaCount(e, rc.Spec.Replicas)
	if err != nil {
		return err
	}
	if w := b.byKey[ownerKey{"ReplicationController", namespaceOr(rc.Namespace), rc.Name}]; w != nil {
		n = max(0, n-w.owned)
	}
	return b.expand(e, rc.Namespace, rc.Spec.Template, n, sel, func(i int) (string, map[string]string) {
		return rc.Name + "-" + suffix(rc.Name, strconv.Itoa(i)), nil
	})
}

func (b *builder) addStatefulSet(e *entry, s *appsv1.StatefulSet) error {
	sel, err := controllerSelector(e, s.Spec.Selector, &s.Spec.Template, "StatefulSet")
	if err != nil {
		return err
	}
	n, err := replicaCount(e, s.Spec.Replicas)
	if err != nil {
		return err
	}
	start := 0
	if s.Spec.Ordinals != nil {
		if s.Spec.Ordinals.Start < 0 {
			return e.fail("spec.ordinals.start", fmt.Errorf("must be greater than or equal to 0, got %d", s.Spec.Ordinals.Start))
		}
		start = int(s.Spec.Ordinals.Start)
	}
	// Ordinals whose pod is written in the manifests exist already.
	var ordinals []int
	for i := start; i < start+n; i++ {
		if !b.explicit[namespaceOr(s.Namespace)+"/"+s.Name+"-"+strconv.Itoa(i)] {
			ordinals = append(ordinals, i)
		}
	}
	revision := s.Name + "-" + templateHash(&s.Spec.Template)
	queue, queued := s.Labels[QueueNameLabel]
	if queued && len(ordinals) < n {
		return e.fail("metadata.labels["+QueueNameLabel+"]", errors.New("a queued StatefulSet with pods already written in the manifests is not supported yet (Kueue admits its replicas as one workload)"))
	}
	first := len(b.cluster.Pods)
	err = b.expand(e, s.Namespace, &s.Spec.Template, len(ordinals), sel, func(i int) (string, map[string]string) {
		ordinal := strconv.Itoa(ordinals[i])
		name := s.Name + "-" + ordinal
		labels := map[string]string{
			appsv1.StatefulSetPodNameLabel:        name,
			appsv1.PodIndexLabel:                  ordinal,
			appsv1.ControllerRevisionHashLabelKey: revision,
		}
		if queued {
			labels[QueueNameLabel] = queue
		}
		return name, labels
	})
	if err == nil && queued && len(ordinals) > 0 {
		b.queuedStatefulSet(e, s, b.cluster.Pods[first:])
	}
	return err
}

func (b *builder) addJob(e *entry, j *batchv1.Job) error {
	indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	switch {
	case j.Spec.Parallelism != nil && *j.Spec.Parallelism < 0:
		return e.fail("spec.parallelism", fmt.Errorf("must be greater than or equal to 0, got %d", *j.Spec.Parallelism))
	case j.Spec.Completions != nil && *j.Spec.Completions < 0:
		return e.fail("spec.completions", fmt.Errorf("must be greater than or equal to 0, got %d", *j.Spec.Completions))
	case indexed && j.Spec.Completions == nil:
		return e.fail("spec.completions", fmt.Errorf("required when completionMode is Indexed"))
	case j.Spec.Template.Spec.RestartPolicy != "" && j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever && j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure:
		return e.fail("spec.template.spec.restartPolicy", fmt.Errorf("must be Never or OnFailure for a Job, got %q", j.Spec.Template.Spec.RestartPolicy))
	}
	_, queued := j.Labels[QueueNameLabel]
	if j.Spec.Suspend != nil && *j.Spec.Suspend && !queued {
		b.ignore(e, "suspended: the Job controller creates no pods until it is resumed")
		return nil
	}
	// A job runs min(parallelism, completions) pods at once; those are the
	// pods waiting to be scheduled. Pods of the manifests it controls are
	// running already.
	n := int32(1)
	if j.Spec.Parallelism != nil {
		n = *j.Spec.Parallelism
	}
	if j.Spec.Completions != nil && *j.Spec.Completions < n {
		n = *j.Spec.Completions
	}
	count := int(n)
	var indexes []int // Indexed: the completion indexes to run, those of owned pods left out
	w := b.byKey[ownerKey{"Job", namespaceOr(j.Namespace), j.Name}]
	if w != nil {
		if queued && w.owned > 0 {
			return e.fail("metadata.labels["+QueueNameLabel+"]", errors.New("a queued Job with pods already running is not supported yet (their quota cannot be known)"))
		}
		count = max(0, count-w.owned)
	}
	if indexed {
		for i := 0; len(indexes) < count && i < int(*j.Spec.Completions); i++ {
			if w == nil || !w.ownedIndexes[strconv.Itoa(i)] {
				indexes = append(indexes, i)
			}
		}
		count = len(indexes)
	}
	uid := string(j.UID)
	if uid == "" {
		uid = "job-" + namespaceOr(j.Namespace) + "-" + j.Name
	}
	first := len(b.cluster.Pods)
	err := b.expand(e, j.Namespace, &j.Spec.Template, count, nil, func(i int) (string, map[string]string) {
		labels := map[string]string{
			batchv1.JobNameLabel: j.Name, "job-name": j.Name,
			batchv1.ControllerUidLabel: uid, "controller-uid": uid,
		}
		name := j.Name + "-" + suffix(j.Name, strconv.Itoa(i))
		if indexed {
			index := strconv.Itoa(indexes[i])
			labels[batchv1.JobCompletionIndexAnnotation] = index
			name = j.Name + "-" + index + "-" + suffix(j.Name, index)
		}
		return name, labels
	})
	if err == nil && queued {
		b.queuedJob(e, j, b.cluster.Pods[first:])
	}
	return err
}

// expand adds count pods made from template, each named and given extra
// labels by name(i); selector, when not nil, is their controller's (their
// first workload selector).
func (b *builder) expand(e *entry, namespace string, template *corev1.PodTemplateSpec, count int, selector *model.LabelSelector, name func(i int) (string, map[string]string)) error {
	for i := range count {
		podName, extra := name(i)
		pod := podFromTemplate(template, namespace, podName, extra)
		added, err := b.addPodOf(e, pod, "spec.template")
		if err != nil {
			return err
		}
		if added != nil && selector != nil {
			added.WorkloadSelectors = append(added.WorkloadSelectors, *selector)
		}
	}
	return nil
}

// podFromTemplate is the pod a controller creates from its template.
func podFromTemplate(template *corev1.PodTemplateSpec, namespace, name string, extraLabels map[string]string) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: *template.ObjectMeta.DeepCopy(), Spec: *template.Spec.DeepCopy()}
	pod.Name, pod.Namespace = name, namespaceOr(namespace)
	pod.CreationTimestamp = metav1.Time{}
	if len(extraLabels) > 0 && pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	for k, v := range extraLabels {
		pod.Labels[k] = v
	}
	return pod
}

func namespaceOr(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

// safeAlphabet is the alphabet Kubernetes uses for generated name parts: no
// vowels (no accidental words) and no easily confused characters.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func encode(h uint32, n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = safeAlphabet[h%uint32(len(safeAlphabet))]
		h /= uint32(len(safeAlphabet))
		if h == 0 {
			h = uint32(i+1) * 2654435761
		}
	}
	return string(out)
}

// templateHash is a stable hash of a pod template, like pod-template-hash.
func templateHash(t *corev1.PodTemplateSpec) string {
	data, _ := json.Marshal(t) // a PodTemplateSpec always marshals
	h := fnv.New32a()
	h.Write(data)
	return encode(h.Sum32(), 10)
}

// suffix is a deterministic stand-in for a controller's random 5-letter
// suffix: a hash of the owner's name and the replica's index (or node).
func suffix(owner, which string) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%s", owner, which)
	return encode(h.Sum32(), 5)
}
