package manifest

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
)

// draBuilder reads the resource.k8s.io/v1 objects into a dra.Objects.
type draBuilder struct {
	objs      *dra.Objects
	validator *dra.Validator
	// claimed lists, per pod, the template entries whose claim Berth makes
	// once every template is read.
	claimed []templateUse
}

type templateUse struct {
	at       *entry
	pod      *model.Pod
	entry    string // the pod's claim entry
	template string
	claim    string
}

func newDRABuilder() *draBuilder {
	return &draBuilder{objs: dra.NewObjects(), validator: dra.NewValidator()}
}

// addDRA validates, defaults and records one DRA object; ok is false when
// obj is not one.
func (b *builder) addDRA(e *entry, obj any) (ok bool, err error) {
	d := b.dra
	var fe error
	switch o := obj.(type) {
	case *resourcev1.DeviceClass:
		if fe = d.validator.DeviceClass(o); fe == nil {
			fe = unique(d.objs.Classes, o.Name, o)
		}
	case *resourcev1.ResourceSlice:
		if fe = d.validator.ResourceSlice(o); fe == nil {
			fe = unique(d.objs.Slices, o.Name, o)
		}
	case *resourcev1.ResourceClaim:
		defaultNamespace(&o.ObjectMeta)
		dra.DefaultClaimSpec(&o.Spec)
		if fe = d.validator.ResourceClaim(o); fe == nil {
			fe = unique(d.objs.Claims, dra.Key(o.Namespace, o.Name), o)
		}
	case *resourcev1.ResourceClaimTemplate:
		defaultNamespace(&o.ObjectMeta)
		dra.DefaultClaimSpec(&o.Spec.Spec)
		if fe = d.validator.ResourceClaimTemplate(o); fe == nil {
			fe = unique(d.objs.Templates, dra.Key(o.Namespace, o.Name), o)
		}
	case *resourcev1beta2.DeviceTaintRule:
		r := taintRule(o)
		if fe = d.validator.DeviceTaintRule(r); fe == nil {
			fe = unique(d.objs.TaintRules, r.Name, r)
		}
	default:
		return false, nil
	}
	return true, draFail(e, fe)
}

func defaultNamespace(m *metav1.ObjectMeta) {
	if m.Namespace == "" {
		m.Namespace = metav1.NamespaceDefault
	}
}

// unique adds v under key unless the key is taken.
func unique[T any](m map[string]*T, key string, v *T) error {
	if _, dup := m[key]; dup {
		return &dra.FieldError{Path: "metadata.name", Reason: fmt.Sprintf("duplicate %q", key)}
	}
	m[key] = v
	return nil
}

// draFail turns a dra.FieldError into the entry's error naming its field.
func draFail(e *entry, err error) error {
	if err == nil {
		return nil
	}
	var fe *dra.FieldError
	if errors.As(err, &fe) {
		return e.fail(fe.Path, errors.New(fe.Reason))
	}
	return e.fail("", err)
}

// podClaims converts a pod's spec.resourceClaims and checks that its
// containers' resources.claims name entries of it. An entry using a
// template gets the name of the claim made for the pod.
func podClaims(p *corev1.Pod) ([]model.PodResourceClaim, *fieldError) {
	if len(p.Spec.ResourceClaims) == 0 {
		return nil, checkContainerClaims(p, nil)
	}
	out := make([]model.PodResourceClaim, 0, len(p.Spec.ResourceClaims))
	names := make(map[string]bool, len(p.Spec.ResourceClaims))
	for i, c := range p.Spec.ResourceClaims {
		field := fmt.Sprintf("spec.resourceClaims[%d]", i)
		if errs := validation.IsDNS1123Label(c.Name); len(errs) > 0 {
			return nil, &fieldError{field: field + ".name", err: fmt.Errorf("%q: %s", c.Name, errs[0])}
		}
		if names[c.Name] {
			return nil, &fieldError{field: field + ".name", err: fmt.Errorf("duplicate %q", c.Name)}
		}
		names[c.Name] = true
		entry := model.PodResourceClaim{Name: c.Name}
		switch {
		case (c.ResourceClaimName == nil) == (c.ResourceClaimTemplateName == nil):
			return nil, &fieldError{field: field, err: errors.New("exactly one of resourceClaimName and resourceClaimTemplateName is required")}
		case c.ResourceClaimName != nil:
			entry.ClaimName = *c.ResourceClaimName
		default:
			entry.TemplateName = *c.ResourceClaimTemplateName
			entry.ClaimName = claimFromStatus(p, c.Name)
			if entry.ClaimName == "" {
				entry.ClaimName = dra.TemplateClaimName(p.Namespace, p.Name, c.Name)
			}
		}
		out = append(out, entry)
	}
	return out, checkContainerClaims(p, names)
}

// claimFromStatus is the claim the resourceclaim controller recorded for
// the entry in the pod's status, "" if none.
func claimFromStatus(p *corev1.Pod, entry string) string {
	for _, s := range p.Status.ResourceClaimStatuses {
		if s.Name == entry && s.ResourceClaimName != nil {
			return *s.ResourceClaimName
		}
	}
	return ""
}

func checkContainerClaims(p *corev1.Pod, names map[string]bool) *fieldError {
	for _, list := range []struct {
		field      string
		containers []corev1.Container
	}{{"spec.containers", p.Spec.Containers}, {"spec.initContainers", p.Spec.InitContainers}} {
		for i, c := range list.containers {
			for j, rc := range c.Resources.Claims {
				if !names[rc.Name] {
					return &fieldError{
						field: fmt.Sprintf("%s[%d].resources.claims[%d].name", list.field, i, j),
						err:   fmt.Errorf("no entry %q in spec.resourceClaims", rc.Name),
					}
				}
			}
		}
	}
	return nil
}

// noteTemplateClaims remembers the pod's template entries whose claim is
// not in the manifests, for makeTemplateClaims.
func (b *builder) noteTemplateClaims(e *entry, pod *model.Pod) {
	for _, c := range pod.ResourceClaims {
		if c.TemplateName != "" {
			b.dra.claimed = append(b.dra.claimed, templateUse{at: e, pod: pod, entry: c.Name, template: c.TemplateName, claim: c.ClaimName})
		}
	}
}

// makeTemplateClaims plays the resourceclaim controller: each pod's
// template entry gets its claim, a copy of the template's spec, unless a
// claim of that name was given. A missing template makes no claim: the pod
// waits for it, as in a cluster.
func (b *builder) makeTemplateClaims() error {
	objs := b.dra.objs
	for _, u := range b.dra.claimed {
		key := dra.Key(u.pod.Namespace, u.claim)
		if _, given := objs.Claims[key]; given {
			continue
		}
		t, ok := objs.Templates[dra.Key(u.pod.Namespace, u.template)]
		if !ok {
			continue
		}
		objs.Claims[key] = &resourcev1.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:   u.pod.Namespace,
				Name:        u.claim,
				Labels:      t.Spec.Labels,
				Annotations: map[string]string{resourcev1.PodResourceClaimAnnotation: u.entry},
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: u.pod.Name, UID: types.UID(u.pod.UID), Controller: new(true),
				}},
			},
			Spec: *t.Spec.Spec.DeepCopy(),
		}
	}
	// A claim or template may name a class no manifest defines, as in
	// kube: its pods are unschedulable ("device class X does not exist").
	return nil
}

// taintRule is a DeviceTaintRule as the scheduler reads it (its status is
// the eviction controller's and not read).
func taintRule(o *resourcev1beta2.DeviceTaintRule) *dra.DeviceTaintRule {
	r := &dra.DeviceTaintRule{Name: o.Name, Taint: resourcev1.DeviceTaint{
		Key: o.Spec.Taint.Key, Value: o.Spec.Taint.Value, Effect: resourcev1.DeviceTaintEffect(o.Spec.Taint.Effect), TimeAdded: o.Spec.Taint.TimeAdded,
	}}
	if sel := o.Spec.DeviceSelector; sel != nil {
		r.Selector = &dra.DeviceTaintSelector{Driver: sel.Driver, Pool: sel.Pool, Device: sel.Device}
	}
	return r
}
