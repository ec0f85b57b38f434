package volume

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// FieldError is a refused object: the field, as a path relative to the
// object in Kubernetes' JSON names ("spec.accessModes[0]"), and why, in
// kube-apiserver's words.
type FieldError struct {
	Path   string
	Reason string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Reason }

// first turns the first of kube's field errors into a FieldError.
func first(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return &FieldError{Path: errs[0].Field, Reason: errs[0].ErrorBody()}
}

var supportedAccessModes = []string{
	string(corev1.ReadOnlyMany), string(corev1.ReadWriteMany), string(corev1.ReadWriteOnce), string(corev1.ReadWriteOncePod),
}

// Validate checks an object as kube-apiserver does, for the fields the
// scheduler reads; obj is one of the kinds Tracker.Set takes.
func Validate(obj any) error {
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		return first(validatePV(o))
	case *corev1.PersistentVolumeClaim:
		return first(validatePVC(o))
	case *storagev1.StorageClass:
		return first(validateClass(o))
	case *storagev1.CSINode:
		return first(validateCSINode(o))
	case *storagev1.CSIDriver:
		return first(validateMeta(&o.ObjectMeta, false))
	case *storagev1.CSIStorageCapacity:
		return first(validateCapacity(o))
	}
	return fmt.Errorf("%T is not a storage object", obj)
}

func validateMeta(m *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	p := field.NewPath("metadata")
	var errs field.ErrorList
	if m.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "name or generateName is required"))
	} else {
		for _, msg := range validation.IsDNS1123Subdomain(m.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), m.Name, msg))
		}
	}
	if namespaced {
		for _, msg := range validation.IsDNS1123Label(m.Namespace) {
			errs = append(errs, field.Invalid(p.Child("namespace"), m.Namespace, msg))
		}
	}
	return append(errs, metavalidation.ValidateLabels(m.Labels, p.Child("labels"))...)
}

func validateAccessModes(modes []corev1.PersistentVolumeAccessMode, p *field.Path) field.ErrorList {
	if len(modes) == 0 {
		return field.ErrorList{field.Required(p, "at least 1 access mode is required")}
	}
	var errs field.ErrorList
	for i, m := range modes {
		if !slices.Contains(supportedAccessModes, string(m)) {
			errs = append(errs, field.NotSupported(p.Index(i), m, supportedAccessModes))
		}
	}
	if len(modes) > 1 && slices.Contains(modes, corev1.ReadWriteOncePod) {
		errs = append(errs, field.Forbidden(p, "may not use ReadWriteOncePod with other access modes"))
	}
	return errs
}

func validateVolumeMode(m *corev1.PersistentVolumeMode, p *field.Path) field.ErrorList {
	if m == nil || *m == corev1.PersistentVolumeFilesystem || *m == corev1.PersistentVolumeBlock {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, *m, []string{string(corev1.PersistentVolumeBlock), string(corev1.PersistentVolumeFilesystem)})}
}

func validateStorageQuantity(q resource.Quantity, ok bool, p *field.Path) field.ErrorList {
	if !ok {
		return field.ErrorList{field.Required(p, "")}
	}
	if q.Sign() <= 0 {
		return field.ErrorList{field.Invalid(p, q.String(), "must be greater than zero")}
	}
	return nil
}

func validateClassName(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		return nil
	}
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

func validatePV(pv *corev1.PersistentVolume) field.ErrorList {
	errs := validateMeta(&pv.ObjectMeta, false)
	spec := field.NewPath("spec")
	errs = append(errs, validateAccessModes(pv.Spec.AccessModes, spec.Child("accessModes"))...)
	q, ok := pv.Spec.Capacity[corev1.ResourceStorage]
	errs = append(errs, validateStorageQuantity(q, ok, spec.Child("capacity").Key(string(corev1.ResourceStorage)))...)
	errs = append(errs, validateClassName(pv.Spec.StorageClassName, spec.Child("storageClassName"))...)
	errs = append(errs, validateVolumeMode(pv.Spec.VolumeMode, spec.Child("volumeMode"))...)
	if ref := pv.Spec.ClaimRef; ref != nil {
		p := spec.Child("claimRef")
		if ref.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if ref.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	}
	if na := pv.Spec.NodeAffinity; na != nil {
		p := spec.Child("nodeAffinity", "required")
		switch {
		case na.Required == nil:
			errs = append(errs, field.Required(p, "must specify required node constraints"))
		case len(na.Required.NodeSelectorTerms) == 0:
			errs = append(errs, field.Required(p.Child("nodeSelectorTerms"), "must have at least one node selector term"))
		default:
			errs = append(errs, nodeSelectorErrors(na.Required, p)...)
		}
	}
	if csi := pv.Spec.CSI; csi != nil {
		p := spec.Child("csi")
		errs = append(errs, validateDriverName(csi.Driver, p.Child("driver"))...)
		if csi.VolumeHandle == "" {
			errs = append(errs, field.Required(p.Child("volumeHandle"), ""))
		}
	}
	return errs
}

// nodeSelectorErrors checks a node selector as the scheduler parses it
// (component-helpers' nodeaffinity names the field of each error).
func nodeSelectorErrors(ns *corev1.NodeSelector, p *field.Path) field.ErrorList {
	_, err := nodeaffinity.NewNodeSelector(ns, field.WithPath(p))
	if err == nil {
		return nil
	}
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		for _, e := range agg.Errors() {
			var fe *field.Error
			if errors.As(e, &fe) {
				return field.ErrorList{fe}
			}
		}
	}
	return field.ErrorList{field.Invalid(p, "", err.Error())}
}

func validateDriverName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(name) > 63 {
		errs = append(errs, field.TooLong(p, name, 63))
	}
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

func validatePVC(c *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := validateMeta(&c.ObjectMeta, true)
	spec := field.NewPath("spec")
	errs = append(errs, validateAccessModes(c.Spec.AccessModes, spec.Child("accessModes"))...)
	q, ok := c.Spec.Resources.Requests[corev1.ResourceStorage]
	errs = append(errs, validateStorageQuantity(q, ok, spec.Child("resources").Child("requests").Key(string(corev1.ResourceStorage)))...)
	if c.Spec.StorageClassName != nil {
		errs = append(errs, validateClassName(*c.Spec.StorageClassName, spec.Child("storageClassName"))...)
	}
	errs = append(errs, validateVolumeMode(c.Spec.VolumeMode, spec.Child("volumeMode"))...)
	if c.Spec.Selector != nil {
		errs = append(errs, metavalidation.ValidateLabelSelector(c.Spec.Selector, metavalidation.LabelSelectorValidationOptions{}, spec.Child("selector"))...)
	}
	return errs
}

func validateClass(c *storagev1.StorageClass) field.ErrorList {
	errs := validateMeta(&c.ObjectMeta, false)
	p := field.NewPath("provisioner")
	if c.Provisioner == "" {
		errs = append(errs, field.Required(p, ""))
	} else {
		for _, msg := range validation.IsQualifiedName(c.Provisioner) {
			errs = append(errs, field.Invalid(p, c.Provisioner, msg))
		}
	}
	if m := c.VolumeBindingMode; m != nil && *m != storagev1.VolumeBindingImmediate && *m != storagev1.VolumeBindingWaitForFirstConsumer {
		errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), *m,
			[]string{string(storagev1.VolumeBindingImmediate), string(storagev1.VolumeBindingWaitForFirstConsumer)}))
	}
	tp := field.NewPath("allowedTopologies")
	for i, term := range c.AllowedTopologies {
		ip := tp.Index(i)
		if len(term.MatchLabelExpressions) == 0 {
			errs = append(errs, field.Required(ip.Child("matchLabelExpressions"), "must have at least one label requirement"))
		}
		for j, r := range term.MatchLabelExpressions {
			rp := ip.Child("matchLabelExpressions").Index(j)
			errs = append(errs, metavalidation.ValidateLabelName(r.Key, rp.Child("key"))...)
			if len(r.Values) == 0 {
				errs = append(errs, field.Required(rp.Child("values"), "must specify as least one value"))
			}
			seen := map[string]bool{}
			for k, v := range r.Values {
				if seen[v] {
					errs = append(errs, field.Duplicate(rp.Child("values").Index(k), v))
				}
				seen[v] = true
			}
		}
	}
	return errs
}

func validateCSINode(n *storagev1.CSINode) field.ErrorList {
	errs := validateMeta(&n.ObjectMeta, false)
	dp := field.NewPath("spec", "drivers")
	seen := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		p := dp.Index(i)
		errs = append(errs, validateDriverName(d.Name, p.Child("name"))...)
		if seen[d.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), d.Name))
		}
		seen[d.Name] = true
		if d.NodeID == "" {
			errs = append(errs, field.Required(p.Child("nodeID"), ""))
		}
		if a := d.Allocatable; a != nil && a.Count != nil && *a.Count < 0 {
			errs = append(errs, field.Invalid(p.Child("allocatable", "count"), *a.Count, "must be greater than or equal to 0"))
		}
	}
	return errs
}

func validateCapacity(c *storagev1.CSIStorageCapacity) field.ErrorList {
	errs := validateMeta(&c.ObjectMeta, true)
	p := field.NewPath("storageClassName")
	if c.StorageClassName == "" {
		errs = append(errs, field.Required(p, ""))
	} else {
		errs = append(errs, validateClassName(c.StorageClassName, p)...)
	}
	if c.NodeTopology != nil {
		errs = append(errs, metavalidation.ValidateLabelSelector(c.NodeTopology, metavalidation.LabelSelectorValidationOptions{}, field.NewPath("nodeTopology"))...)
	}
	for _, f := range []struct {
		name string
		q    *resource.Quantity
	}{{"capacity", c.Capacity}, {"maximumVolumeSize", c.MaximumVolumeSize}} {
		if f.q != nil && f.q.Sign() < 0 {
			errs = append(errs, field.Invalid(field.NewPath(f.name), f.q.String(), "must be greater than or equal to 0"))
		}
	}
	return errs
}
