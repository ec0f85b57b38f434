package statesvc

import (
	"context"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// upsertDeviceObjectLocked hands a converted DRA object to the cluster.
// convert validated it as kube-apiserver would; the scheduler checks what
// needs the objects it holds.
func (s *Service) upsertDeviceObjectLocked(ctx context.Context, obj convert.Object) error {
	var err error
	switch {
	case obj.ResourceClaim != nil:
		err = s.checkClassesLocked(obj.Kind(), &obj.ResourceClaim.Spec)
	case obj.ResourceClaimTemplate != nil:
		err = s.checkClassesLocked(obj.Kind(), &obj.ResourceClaimTemplate.Spec.Spec)
	}
	if err != nil {
		return err
	}
	return convert.DeviceError(obj.Kind(), s.cluster.UpsertDeviceObject(ctx, convert.DeviceObject(obj)))
}

// checkClassesLocked refuses a claim or template whose requests name a
// DeviceClass Berth does not hold (FAILED_PRECONDITION naming the field):
// the caller sends classes before the claims that use them. (kube-apiserver
// takes such a claim and its pods stay unschedulable; a class deleted
// later has that effect in Berth too.)
func (s *Service) checkClassesLocked(kind berthv1.ObjectKind, spec *resourceapi.ResourceClaimSpec) error {
	classes := map[string]bool{}
	for _, c := range s.cluster.DeviceClasses() {
		classes[c.Name] = true
	}
	unknown := func(path, name string) error {
		return errmap.Field(convert.DevicePath(kind, path), fmt.Errorf("no DeviceClass %q; send the class first: %w", name, errmap.ErrUnknownDeviceClass))
	}
	for i, r := range spec.Devices.Requests {
		if r.Exactly != nil && !classes[r.Exactly.DeviceClassName] {
			return unknown(fmt.Sprintf("spec.devices.requests[%d].exactly.deviceClassName", i), r.Exactly.DeviceClassName)
		}
		for j, sub := range r.FirstAvailable {
			if !classes[sub.DeviceClassName] {
				return unknown(fmt.Sprintf("spec.devices.requests[%d].firstAvailable[%d].deviceClassName", i, j), sub.DeviceClassName)
			}
		}
	}
	return nil
}

// draKind is core/dra's name of a wire kind; false for other kinds.
func draKind(kind berthv1.ObjectKind) (string, bool) {
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS:
		return dra.KindDeviceClass, true
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE:
		return dra.KindResourceSlice, true
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM:
		return dra.KindResourceClaim, true
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE:
		return dra.KindResourceClaimTemplate, true
	}
	return "", false
}

// heldDeviceObjects lists the DRA objects of kind a resync may delete:
// every class, slice and template, and the claims but those Berth made
// from templates for pods (they go with their pods).
func (s *Service) heldDeviceObjects(kind berthv1.ObjectKind) []convert.Ref {
	var out []convert.Ref
	add := func(m metav1.ObjectMeta) {
		out = append(out, convert.Ref{Kind: kind, Namespace: m.Namespace, Name: m.Name})
	}
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS:
		for _, c := range s.cluster.DeviceClasses() {
			add(c.ObjectMeta)
		}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE:
		for _, sl := range s.cluster.ResourceSlices() {
			add(sl.ObjectMeta)
		}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE:
		for _, t := range s.cluster.ClaimTemplates() {
			add(t.ObjectMeta)
		}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM:
		for _, c := range s.cluster.Claims() {
			if metav1.GetControllerOf(c) == nil {
				add(c.ObjectMeta)
			}
		}
	}
	return out
}
