package manifest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/berthsched/berth/core/model"
)

type builder struct {
	dec     *decoder
	cluster Cluster
	// pending timestamps: pods that had no creationTimestamp, by index in
	// cluster.Pods.
	untimed    map[int]bool
	nodeSeen   map[string]bool
	podSeen    map[string]bool
	nsSeen     map[string]bool
	decodeErr  error
	podSources []*corev1.Pod
}

func newBuilder() *builder {
	dec, err := newDecoder()
	return &builder{
		dec: dec, decodeErr: err,
		untimed:  map[int]bool{},
		nodeSeen: map[string]bool{}, podSeen: map[string]bool{}, nsSeen: map[string]bool{},
	}
}

// finish applies what needs the whole input: creation times in input order
// and the namespaces pods live in.
func (b *builder) finish() (*Cluster, error) {
	if b.decodeErr != nil {
		return nil, b.decodeErr
	}
	for i, p := range b.cluster.Pods {
		if b.untimed[i] {
			p.CreationTime = baseTime().Add(time.Duration(i+1) * time.Second)
			if p.NodeName != "" && p.StartTime.IsZero() {
				p.StartTime = p.CreationTime
			}
		}
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

const metadataNameLabel = "kubernetes.io/metadata.name"

func (b *builder) addNamespace(ns *corev1.Namespace) {
	if b.nsSeen[ns.Name] {
		return
	}
	b.nsSeen[ns.Name] = true
	labels := copyMap(ns.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[metadataNameLabel] = ns.Name
	b.cluster.Namespaces = append(b.cluster.Namespaces, &model.Namespace{Name: ns.Name, Labels: labels})
}

func (b *builder) addNode(n *corev1.Node, fail func(string, error) error) error {
	if n.Name == "" {
		return fail("metadata.name", fmt.Errorf("required"))
	}
	if b.nodeSeen[n.Name] {
		return fail("metadata.name", fmt.Errorf("duplicate node %q", n.Name))
	}
	b.nodeSeen[n.Name] = true
	alloc := n.Status.Allocatable
	field := "status.allocatable"
	if alloc == nil {
		alloc, field = n.Status.Capacity, "status.capacity"
	}
	list, err := resourceList(alloc)
	if err != nil {
		return fail(field+err.field, err.err)
	}
	node := &model.Node{
		Name:          n.Name,
		Labels:        copyMap(n.Labels),
		Allocatable:   list,
		Unschedulable: n.Spec.Unschedulable,
	}
	for i, t := range n.Spec.Taints {
		if err := validEffect(t.Effect, false); err != nil {
			return fail(fmt.Sprintf("spec.taints[%d].effect", i), err)
		}
		node.Taints = append(node.Taints, model.Taint{Key: t.Key, Value: t.Value, Effect: model.TaintEffect(t.Effect)})
	}
	b.cluster.Nodes = append(b.cluster.Nodes, node)
	return nil
}

func (b *builder) addPod(p *corev1.Pod, fail func(string, error) error) error {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return nil // finished pods hold nothing
	}
	if p.Namespace == "" {
		p.Namespace = metav1.NamespaceDefault
	}
	if p.Name == "" {
		return fail("metadata.name", fmt.Errorf("required"))
	}
	key := p.Namespace + "/" + p.Name
	if b.podSeen[key] {
		return fail("metadata.name", fmt.Errorf("duplicate pod %q", key))
	}
	b.podSeen[key] = true
	pod, err := convertPod(p)
	if err != nil {
		return fail(err.field, err.err)
	}
	if p.CreationTimestamp.IsZero() {
		b.untimed[len(b.cluster.Pods)] = true
	}
	b.cluster.Pods = append(b.cluster.Pods, pod)
	return nil
}

func (b *builder) addPriorityClass(pc *schedulingv1.PriorityClass, fail func(string, error) error) error {
	if pc.Name == "" {
		return fail("metadata.name", fmt.Errorf("required"))
	}
	out := &model.PriorityClass{Name: pc.Name, Value: pc.Value, GlobalDefault: pc.GlobalDefault, Description: pc.Description}
	if pc.PreemptionPolicy != nil {
		pol, err := preemptionPolicy(*pc.PreemptionPolicy)
		if err != nil {
			return fail("preemptionPolicy", err)
		}
		out.PreemptionPolicy = pol
	}
	b.cluster.PriorityClasses = append(b.cluster.PriorityClasses, out)
	return nil
}

func (b *builder) addPDB(p *policyv1.PodDisruptionBudget, fail func(string, error) error) error {
	if p.Namespace == "" {
		p.Namespace = metav1.NamespaceDefault
	}
	out := &model.PodDisruptionBudget{Namespace: p.Namespace, Name: p.Name}
	sel, ferr := labelSelector(p.Spec.Selector)
	if ferr != nil {
		return fail("spec.selector"+ferr.field, ferr.err)
	}
	out.Selector = sel
	var err error
	if p.Spec.MinAvailable != nil && p.Spec.MaxUnavailable != nil {
		return fail("spec", fmt.Errorf("minAvailable and maxUnavailable are mutually exclusive"))
	}
	if out.MinAvailable, err = intOrPercent(p.Spec.MinAvailable); err != nil {
		return fail("spec.minAvailable", err)
	}
	if out.MaxUnavailable, err = intOrPercent(p.Spec.MaxUnavailable); err != nil {
		return fail("spec.maxUnavailable", err)
	}
	st := p.Status
	// A status written in the manifest is the caller's figure; otherwise
	// Berth computes the allowance from the pods it knows.
	if st.DisruptionsAllowed != 0 || st.CurrentHealthy != 0 || st.DesiredHealthy != 0 || st.ExpectedPods != 0 || st.ObservedGeneration != 0 {
		allowed := st.DisruptionsAllowed
		out.DisruptionsAllowed = &allowed
	}
	b.cluster.PDBs = append(b.cluster.PDBs, out)
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
