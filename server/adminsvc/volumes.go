package adminsvc

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/volume"
	"github.com/berthsched/berth/server/convert"
	"github.com/berthsched/berth/server/errmap"
)

// ListVolumeObjects lists the storage objects of one kind, by namespace
// and name.
func (s *Service) ListVolumeObjects(_ context.Context, req *berthv1.ListVolumeObjectsRequest) (*berthv1.ListVolumeObjectsResponse, error) {
	ns := req.GetNamespace()
	kind := req.GetKind()
	if _, ok := convert.VolumeKind(kind); !ok {
		return nil, errmap.Status(errmap.Field("kind", &convert.FieldError{Reason: fmt.Sprintf("%s is not a storage kind", kind)}))
	}
	if ns != "" && !convert.Namespaced(kind) {
		return nil, errmap.Status(errmap.Field("namespace", &convert.FieldError{Reason: "must be empty for a " + kind.String()}))
	}
	resp := &berthv1.ListVolumeObjectsResponse{}
	for _, o := range s.volumeObjects(kind) {
		if ns == "" || o.(metav1.Object).GetNamespace() == ns {
			resp.Objects = append(resp.Objects, convert.VolumeObjectToProto(o))
		}
	}
	return resp, nil
}

// volumeObjects lists the storage objects of a kind the scheduler holds.
func (s *Service) volumeObjects(kind berthv1.ObjectKind) []any {
	var out []any
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME:
		out = appendAll(out, s.admin.PersistentVolumes())
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM:
		out = appendAll(out, s.admin.PersistentVolumeClaims())
	case berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS:
		out = appendAll(out, s.admin.StorageClasses())
	case berthv1.ObjectKind_OBJECT_KIND_CSI_NODE:
		out = appendAll(out, s.admin.CSINodes())
	case berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER:
		out = appendAll(out, s.admin.CSIDrivers())
	case berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY:
		out = appendAll(out, s.admin.CSIStorageCapacities())
	}
	return out
}

func appendAll[T any](out []any, in []T) []any {
	for _, v := range in {
		out = append(out, v)
	}
	return out
}

// liveVolumes copies the storage objects the live scheduler holds (claims
// made for ephemeral volumes included), for Simulate.
func liveVolumes(admin Admin) *volume.Objects {
	objs := volume.NewObjects()
	for _, v := range admin.PersistentVolumes() {
		objs.Volumes[v.Name] = v
	}
	for _, c := range admin.PersistentVolumeClaims() {
		objs.Claims[volume.Key(c.Namespace, c.Name)] = c
	}
	for _, c := range admin.StorageClasses() {
		objs.Classes[c.Name] = c
	}
	for _, n := range admin.CSINodes() {
		objs.CSINodes[n.Name] = n
	}
	for _, d := range admin.CSIDrivers() {
		objs.Drivers[d.Name] = d
	}
	for _, c := range admin.CSIStorageCapacities() {
		objs.Capacities[volume.Key(c.Namespace, c.Name)] = c
	}
	return objs
}
