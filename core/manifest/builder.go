package manifest

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
)

// builder turns decoded documents into a Cluster. Documents are first all
// read (add), then converted in three passes (finish): nodes and the
// workload index (which workloads exist, which pods they already own),
// then every other object in input order (workloads expanded in place),
// then what needs every pod (Services, creation times, namespaces).
type builder struct {
	dec     *decoder
	cluster Cluster
	kueue   kueueInput
	entries []*entry
	// untimed marks the pods that had no creationTimestamp, by index in
	// cluster.Pods.
	untimed  map[int]bool
	nodeSeen map[string]bool
	podSeen  map[string]bool
	nsSeen   map[string]bool
	// files numbers the sources in input order, to sort Ignored.
	files map[string]int
	// templates are the Workloads' pod-group templates (groups.go).
	templates map[templateKey]schedulingv1alpha2.PodGroupTemplate
	workloads
	dra *draBuilder
	// volumes are the storage objects read (volumes.go).
	volumes *volume.Objects
}

func newBuilder() (*builder, error) {
	dec, err := newDecoder()
	if err != nil {
		return nil, err
	}
	return &builder{
		dec:      dec,
		cluster:  Cluster{Origins: map[any]Location{}},
		untimed:  map[int]bool{},
		nodeSeen: map[string]bool{}, podSeen: map[string]bool{}, nsSeen: map[string]bool{},
		files:     map[string]int{},
		workloads: newWorkloads(),
		dra:       newDRABuilder(),
		volumes:   volume.NewObjects(),
	}, nil
}

// finish converts the documents read.
func (b *builder) finish() (*Cluster, error) {
	for _, e := range b.entries {
		if err := b.index(e); err != nil {
			return nil, err
		}
	}
	b.resolveOwned()
	for _, e := range b.entries {
		if err := b.convert(e); err != nil {
			return nil, err
		}
	}
	if err := b.makeTemplateClaims(); err != nil {
		return nil, err
	}
	b.cluster.Devices = b.dra.objs
	b.cluster.Volumes = b.volumes
	b.applyServices()
	slices.SortStableFunc(b.cluster.Ignored, func(x, y Ignored) int {
		return cmp.Or(cmp.Compare(b.files[x.File], b.files[y.File]), cmp.Compare(x.Document, y.Document))
	})
	for i, p := range b.cluster.Pods {
		if b.untimed[i] {
			p.CreationTime = baseTime().Add(time.Duration(i+1) * time.Second)
			if p.NodeName != "" && p.StartTime.IsZero() {
				p.StartTime = p.CreationTime
			}
		}
	}
	if err := b.finishKueue(); err != nil {
		return nil, err
	}
	ensure := func(ns string) {
		if ns != "" && !b.nsSeen[ns] {
			b.nsSeen[ns] = true
			b.cluster.Namespaces = append(b.cluster.Namespaces, &model.Namespace{Name: ns, Labels: map[string]string{metadataNameLabel: ns}})
		}
	}
	ensure(metav1.NamespaceDefault)
	for _, p := range b.cluster.Pods {
		ensure(p.Namespace)
	}
	for _, p := range b.cluster.PDBs {
		ensure(p.Namespace)
	}
	c := b.cluster
	return &c, nil
}

// index is the first pass: nodes are converted (workloads placed per node
// need them all), workloads and Services recorded, pods' owners noted.
func (b *builder) index(e *entry) error {
	switch o := e.obj.(type) {
	case *corev1.Node:
		return b.addNode(e, o)
	case *corev1.Service:
		b.indexService(e, o)
	case *corev1.Pod:
		b.indexPod(o)
	case *schedulingv1alpha2.Workload:
		b.indexWorkloadTemplates(o)
	default:
		b.indexWorkload(o)
	}
	return nil
}

// convert is the second pass: every object but nodes, in input order.
func (b *builder) convert(e *entry) error {
	switch o := e.obj.(type) {
	case *corev1.Node, *corev1.Service:
		return nil
	case *corev1.Pod:
		return b.addPod(e, o, "")
	case *corev1.Namespace:
		return b.addNamespace(e, o)
	case *schedulingv1.PriorityClass:
		return b.addPriorityClass(e, o)
	case *policyv1.PodDisruptionBudget:
		return b.addPDB(e, o)
	case *appsv1.Deployment:
		return b.addDeployment(e, o)
	case *appsv1.ReplicaSet:
		return b.addReplicaSet(e, o)
	case *appsv1.StatefulSet:
		return b.addStatefulSet(e, o)
	case *appsv1.DaemonSet:
		return b.addDaemonSet(e, o)
	case *corev1.ReplicationController:
		return b.addReplicationController(e, o)
	case *batchv1.Job:
		return b.addJob(e, o)
	case *schedulingv1alpha2.PodGroup:
		return b.addPodGroup(e, o)
	case *compositeGroupDoc:
		return b.addCompositeGroup(e, o)
	case *schedulingv1alpha2.Workload:
		return nil // read for its templates (index)
	}
	if ok, err := b.addDRA(e, e.obj); ok {
		return err
	}
	if ok, err := b.addVolume(e, e.obj); ok {
		return err
	}
	kind := e.obj.GetObjectKind().GroupVersionKind()
	if ignoredKind(kind.Kind) {
		b.ignore(e, notAffecting)
		return nil
	}
	return e.fail("kind", fmt.Errorf("%w %s %s: %s", ErrUnknownKind, kind.GroupVersion(), kind.Kind, kindsRead))
}

const metadataNameLabel = "kubernetes.io/metadata.name"

func (b *builder) addNamespace(e *entry, ns *corev1.Namespace) error {
	if ns.Name == "" {
		return e.fail("metadata.name", fmt.Errorf("required"))
	}
	if err := validLabels(ns.Labels); err != nil {
		return e.fail("metadata.labels"+err.field, err.err)
	}
	if b.nsSeen[ns.Name] {
		return nil
	}
	b.nsSeen[ns.Name] = true
	labels := copyMap(ns.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[metadataNameLabel] = ns.Name
	out := &model.Namespace{Name: ns.Name, Labels: labels}
	b.cluster.Namespaces = append(b.cluster.Namespaces, out)
	b.cluster.Origins[out] = e.at
	return nil
}

func (b *builder) addNode(e *entry, n *corev1.Node) error {
	if n.Name == "" {
		return e.fail("metadata.name", fmt.Errorf("required"))
	}
	if b.nodeSeen[n.Name] {
		return e.fail("metadata.name", fmt.Errorf("duplicate node %q", n.Name))
	}
	b.nodeSeen[n.Name] = true
	if err := validLabels(n.Labels); err != nil {
		return e.fail("metadata.labels"+err.field, err.err)
	}
	alloc := n.Status.Allocatable
	field := "status.allocatable"
	if alloc == nil {
		alloc, field = n.Status.Capacity, "status.capacity"
	}
	list, err := resourceList(alloc)
	if err != nil {
		return e.fail(field+err.field, err.err)
	}
	node := &model.Node{
		Name:          n.Name,
		Labels:        copyMap(n.Labels),
		Allocatable:   list,
		Unschedulable: n.Spec.Unschedulable,
	}
	for i, t := range n.Spec.Taints {
		if err := validEffect(t.Effect, false); err != nil {
			return e.fail(fmt.Sprintf("spec.taints[%d].effect", i), err)
		}
		node.Taints = append(node.Taints, model.Taint{Key: t.Key, Value: t.Value, Effect: model.TaintEffect(t.Effect)})
	}
	conds, cerr := nodeConditions(n.Status.Conditions)
	if cerr != nil {
		return e.fail("status.conditions"+cerr.field, cerr.err)
	}
	node.Conditions = conds
	images, ierr := nodeImages(n.Status.Images)
	if ierr != nil {
		return e.fail("status.images"+ierr.field, ierr.err)
	}
	node.Images = images
	b.cluster.Nodes = append(b.cluster.Nodes, node)
	b.cluster.Origins[node] = e.at
	return nil
}

// addPod converts a pod written in the manifests (prefix "") or made from
// a workload's template (prefix "spec.template": the field paths of
// errors are the workload's). It returns the pod added, nil for a finished
// pod.
func (b *builder) addPod(e *entry, p *corev1.Pod, prefix string) error {
	_, err := b.addPodOf(e, p, prefix)
	return err
}

func (b *builder) addPodOf(e *entry, p *corev1.Pod, prefix string) (*model.Pod, error) {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		b.addFinished(p)
		return nil, nil // finished pods hold nothing
	}
	fail := func(field string, err error) error { return e.fail(joinField(prefix, field), err) }
	if p.Namespace == "" {
		p.Namespace = metav1.NamespaceDefault
	}
	if p.Name == "" {
		return nil, fail("metadata.name", fmt.Errorf("required"))
	}
	key := p.Namespace + "/" + p.Name
	if b.podSeen[key] {
		return nil, e.fail("metadata.name", fmt.Errorf("duplicate pod %q", key))
	}
	b.podSeen[key] = true
	if ferr := validLabels(p.Labels); ferr != nil {
		return nil, fail("metadata.labels"+ferr.field, ferr.err)
	}
	pod, ferr := convertPod(p)
	if ferr == nil {
		pod.ResourceClaims, ferr = podClaims(p)
	}
	if ferr == nil {
		pod.Volumes, ferr = podVolumes(p)
	}
	if ferr != nil {
		return nil, fail(ferr.field, ferr.err)
	}
	b.noteTemplateClaims(e, pod)
	if prefix == "" {
		if sel := b.ownerSelector(p); sel != nil {
			pod.WorkloadSelectors = append(pod.WorkloadSelectors, *sel)
		}
	}
	if p.CreationTimestamp.IsZero() {
		b.untimed[len(b.cluster.Pods)] = true
	}
	b.cluster.Pods = append(b.cluster.Pods, pod)
	b.cluster.Origins[pod] = e.at
	return pod, nil
}

func (b *builder) addPriorityClass(e *entry, pc *schedulingv1.PriorityClass) error {
	if pc.Name == "" {
		return e.fail("metadata.name", fmt.Errorf("required"))
	}
	out := &model.PriorityClass{Name: pc.Name, Value: pc.Value, GlobalDefault: pc.GlobalDefault, Description: pc.Description}
	if pc.PreemptionPolicy != nil {
		pol, err := preemptionPolicy(*pc.PreemptionPolicy)
		if err != nil {
			return e.fail("preemptionPolicy", err)
		}
		out.PreemptionPolicy = pol
	}
	b.cluster.PriorityClasses = append(b.cluster.PriorityClasses, out)
	b.cluster.Origins[out] = e.at
	return nil
}

func (b *builder) addPDB(e *entry, p *policyv1.PodDisruptionBudget) error {
	if p.Namespace == "" {
		p.Namespace = metav1.NamespaceDefault
	}
	out := &model.PodDisruptionBudget{Namespace: p.Namespace, Name: p.Name}
	sel, ferr := labelSelector(p.Spec.Selector)
	if ferr != nil {
		return e.fail("spec.selector"+ferr.field, ferr.err)
	}
	out.Selector = sel
	var err error
	if p.Spec.MinAvailable != nil && p.Spec.MaxUnavailable != nil {
		return e.fail("spec", fmt.Errorf("minAvailable and maxUnavailable are mutually exclusive"))
	}
	if out.MinAvailable, err = intOrPercent(p.Spec.MinAvailable); err != nil {
		return e.fail("spec.minAvailable", err)
	}
	if out.MaxUnavailable, err = intOrPercent(p.Spec.MaxUnavailable); err != nil {
		return e.fail("spec.maxUnavailable", err)
	}
	switch pol := p.Spec.UnhealthyPodEvictionPolicy; {
	case pol == nil:
	case *pol == policyv1.IfHealthyBudget:
		out.UnhealthyPodEvictionPolicy = model.UnhealthyPodEvictionIfHealthyBudget
	case *pol == policyv1.AlwaysAllow:
		out.UnhealthyPodEvictionPolicy = model.UnhealthyPodEvictionAlwaysAllow
	default:
		return e.fail("spec.unhealthyPodEvictionPolicy", fmt.Errorf("unknown policy %q", *pol))
	}
	st := p.Status
	// A status written in the manifest is the caller's figure (as the
	// oracle takes it: any field set, disruptedPods included, means a
	// status); otherwise Berth computes the allowance from the pods it
	// knows.
	if st.DisruptionsAllowed != 0 || st.CurrentHealthy != 0 || st.DesiredHealthy != 0 || st.ExpectedPods != 0 || st.ObservedGeneration != 0 || len(st.DisruptedPods) != 0 {
		allowed := st.DisruptionsAllowed
		out.DisruptionsAllowed = &allowed
	}
	for name, at := range st.DisruptedPods {
		if out.DisruptedPods == nil {
			out.DisruptedPods = make(map[string]time.Time, len(st.DisruptedPods))
		}
		out.DisruptedPods[name] = at.Time.UTC()
	}
	b.cluster.PDBs = append(b.cluster.PDBs, out)
	b.cluster.Origins[out] = e.at
	return nil
}

func intOrPercent(v *intstr.IntOrString) (*model.IntOrPercent, error) {
	if v == nil {
		return nil, nil
	}
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			return nil, fmt.Errorf("must be non-negative, got %d", v.IntVal)
		}
		return &model.IntOrPercent{Value: v.IntVal}, nil
	}
	s := v.StrVal
	if !strings.HasSuffix(s, "%") {
		return nil, fmt.Errorf("must be an integer or a percentage like \"50%%\", got %q", s)
	}
	n, err := strconv.Atoi(strings.TrimSuffix(s, "%"))
	if err != nil || n < 0 || n > 100 {
		return nil, fmt.Errorf("percentage must be 0%%..100%%, got %q", s)
	}
	return &model.IntOrPercent{Value: int32(n), IsPercent: true}, nil
}

// fieldError is a conversion problem relative to the object being converted.
type fieldError struct {
	field string // with a leading "." when relative
	err   error
}

// resourceList converts quantities to canonical integers: cpu in
// millicores, everything else in whole units (bytes, counts), rounded up as
// Kubernetes' Value() does.
func resourceList(l corev1.ResourceList) (model.ResourceList, *fieldError) {
	if len(l) == 0 {
		return model.ResourceList{}, nil
	}
	out := make(model.ResourceList, len(l))
	for name, q := range l {
		if err := model.CheckResourceName(string(name)); err != nil {
			return nil, &fieldError{field: "[" + string(name) + "]", err: err}
		}
		if q.Sign() < 0 {
			return nil, &fieldError{field: "[" + string(name) + "]", err: fmt.Errorf("must be non-negative, got %s", q.String())}
		}
		out[string(name)] = quantityValue(string(name), q)
	}
	return out, nil
}

func quantityValue(name string, q resource.Quantity) int64 {
	if name == model.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

func preemptionPolicy(p corev1.PreemptionPolicy) (model.PreemptionPolicy, error) {
	switch p {
	case corev1.PreemptLowerPriority:
		return model.PreemptLowerPriority, nil
	case corev1.PreemptNever:
		return model.PreemptNever, nil
	}
	return "", fmt.Errorf("must be PreemptLowerPriority or Never, got %q", p)
}

func validEffect(e corev1.TaintEffect, allowEmpty bool) error {
	switch e {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return nil
	case "":
		if allowEmpty {
			return nil
		}
	}
	return fmt.Errorf("must be NoSchedule, PreferNoSchedule or NoExecute, got %q", e)
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// nodeConditions reads the conditions Berth models (Ready and the
// pressure and network ones; others, such as a kubelet's custom ones, are
// left out), at most one of each type.
func nodeConditions(in []corev1.NodeCondition) ([]model.NodeCondition, *fieldError) {
	var out []model.NodeCondition
	for i, c := range in {
		switch model.NodeConditionType(c.Type) {
		case model.NodeReady, model.NodeMemoryPressure, model.NodeDiskPressure, model.NodePIDPressure, model.NodeNetworkUnavailable:
		default:
			continue
		}
		switch model.ConditionStatus(c.Status) {
		case model.ConditionTrue, model.ConditionFalse, model.ConditionUnknown:
		default:
			return nil, &fieldError{field: fmt.Sprintf("[%d].status", i), err: fmt.Errorf("must be True, False or Unknown, got %q", c.Status)}
		}
		for _, prev := range out {
			if prev.Type == model.NodeConditionType(c.Type) {
				return nil, &fieldError{field: fmt.Sprintf("[%d].type", i), err: fmt.Errorf("duplicate condition %s", c.Type)}
			}
		}
		out = append(out, model.NodeCondition{
			Type: model.NodeConditionType(c.Type), Status: model.ConditionStatus(c.Status),
			LastTransitionTime: c.LastTransitionTime.Time.UTC(), Reason: c.Reason, Message: c.Message,
		})
	}
	return out, nil
}

// addFinished keeps a bound pod that finished (Succeeded, Failed) for
// descheduling, which looks at such pods; one that does not convert is
// skipped as before, since finished pods never mattered to scheduling.
func (b *builder) addFinished(p *corev1.Pod) {
	if p.Spec.NodeName == "" || p.Name == "" {
		return
	}
	if p.Namespace == "" {
		p.Namespace = metav1.NamespaceDefault
	}
	pod, ferr := convertPod(p)
	if ferr != nil {
		return
	}
	b.cluster.FinishedPods = append(b.cluster.FinishedPods, pod)
}

// Bounds on image names, as the API's (server/convert).
const (
	maxNodeImages      = 1024
	maxImageNames      = 64
	maxImageNameLength = 4096
)

// nodeImages reads status.images. Kubernetes' API server checks none of
// it; Berth refuses, as its API does, what no kubelet reports: an image
// without names, an empty or padded name, a negative size.
func nodeImages(in []corev1.ContainerImage) ([]model.ContainerImage, *fieldError) {
	if len(in) > maxNodeImages {
		return nil, &fieldError{err: fmt.Errorf("must have at most %d entries, has %d", maxNodeImages, len(in))}
	}
	var out []model.ContainerImage
	for i, img := range in {
		at := fmt.Sprintf("[%d]", i)
		switch {
		case len(img.Names) == 0:
			return nil, &fieldError{field: at + ".names", err: fmt.Errorf("required: an image has at least one name")}
		case len(img.Names) > maxImageNames:
			return nil, &fieldError{field: at + ".names", err: fmt.Errorf("must have at most %d entries, has %d", maxImageNames, len(img.Names))}
		case img.SizeBytes < 0:
			return nil, &fieldError{field: at + ".sizeBytes", err: fmt.Errorf("must be at least 0, got %d", img.SizeBytes)}
		}
		for j, name := range img.Names {
			if err := validImage(name, true); err != nil {
				return nil, &fieldError{field: fmt.Sprintf("%s.names[%d]", at, j), err: err}
			}
		}
		out = append(out, model.ContainerImage{Names: slices.Clone(img.Names), SizeBytes: img.SizeBytes})
	}
	return out, nil
}

// validImage checks an image reference as kube-apiserver checks a
// container's: no leading or trailing whitespace (and a bounded length).
func validImage(v string, required bool) error {
	switch {
	case v == "" && required:
		return fmt.Errorf("required")
	case len(v) > maxImageNameLength:
		return fmt.Errorf("must be at most %d bytes, got %d", maxImageNameLength, len(v))
	case strings.TrimSpace(v) != v:
		return fmt.Errorf("invalid value %q: must not have leading or trailing whitespace", v)
	}
	return nil
}
