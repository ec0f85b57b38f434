package statesvc

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
)

// heldVolumeObjects lists the storage objects of kind a resync may delete:
// all of them but the claims Berth made for pods' ephemeral volumes (they
// go with their pods).
func (s *Service) heldVolumeObjects(kind berthv1.ObjectKind) []convert.Ref {
	var out []convert.Ref
	add := func(m metav1.ObjectMeta) {
		out = append(out, convert.Ref{Kind: kind, Namespace: m.Namespace, Name: m.Name})
	}
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME:
		for _, o := range s.cluster.PersistentVolumes() {
			add(o.ObjectMeta)
		}
	case berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM:
		for _, o := range s.cluster.PersistentVolumeClaims() {
			if metav1.GetControllerOf(o) == nil {
				add(o.ObjectMeta)
			}
		}
	case berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS:
		for _, o := range s.cluster.StorageClasses() {
			add(o.ObjectMeta)
		}
	case berthv1.ObjectKind_OBJECT_KIND_CSI_NODE:
		for _, o := range s.cluster.CSINodes() {
			add(o.ObjectMeta)
		}
	case berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER:
		for _, o := range s.cluster.CSIDrivers() {
			add(o.ObjectMeta)
		}
	case berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY:
		for _, o := range s.cluster.CSIStorageCapacities() {
			add(o.ObjectMeta)
		}
	}
	return out
}
