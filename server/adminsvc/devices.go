package adminsvc

import (
	"context"
	"fmt"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// ListDeviceObjects lists the DRA objects of one kind, in the order the
// scheduler's view lists them (by namespace and name).
func (s *Service) ListDeviceObjects(_ context.Context, req *berthv1.ListDeviceObjectsRequest) (*berthv1.ListDeviceObjectsResponse, error) {
	ns := req.GetNamespace()
	kind := req.GetKind()
	if !convert.DeviceKind(kind) {
		return nil, errmap.Status(errmap.Field("kind", &convert.FieldError{Reason: fmt.Sprintf("%s is not a dynamic resource allocation kind", kind)}))
	}
	if ns != "" && !convert.Namespaced(kind) {
		return nil, errmap.Status(errmap.Field("namespace", &convert.FieldError{Reason: "must be empty for a " + kind.String()}))
	}
	resp := &berthv1.ListDeviceObjectsResponse{}
	add := func(o convert.Object) { resp.Objects = append(resp.Objects, convert.ObjectToProto(o)) }
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS:
		for _, c := range s.admin.DeviceClasses() {
			add(convert.Object{DeviceClass: c})
		}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE:
		for _, sl := range s.admin.ResourceSlices() {
			add(convert.Object{ResourceSlice: sl})
		}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE:
		for _, t := range s.admin.ClaimTemplates() {
			if ns == "" || t.Namespace == ns {
				add(convert.Object{ResourceClaimTemplate: t})
			}
		}
	case berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM:
		for _, c := range s.admin.Claims() {
			if ns == "" || c.Namespace == ns {
				add(convert.Object{ResourceClaim: c})
			}
		}
	case berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE:
		for _, r := range s.admin.DeviceTaintRules() {
			add(convert.Object{DeviceTaintRule: r})
		}
	}
	return resp, nil
}
