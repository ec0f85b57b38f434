package statesvc

import (
	"context"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/server/convert"
)

// upsertDeviceObjectLocked hands a converted DRA object to the cluster.
// convert validated it as kube-apiserver would; the scheduler checks what
// needs the objects it holds. A claim or template may name a DeviceClass
// not sent yet, as in kube: its pods are unschedulable ("device class X
// does not exist") until the class arrives and requeues them.
func (s *Service) upsertDeviceObjectLocked(ctx context.Context, obj convert.Object) error {
	return convert.DeviceError(obj.Kind(), s.cluster.UpsertDeviceObject(ctx, convert.DeviceObject(obj)))
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
