package simulate

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/volume"
)

// loadVolumes upserts the storage objects: classes first (claims without
// a class take the default one), then drivers, CSINodes, capacities,
// volumes and claims, each kind by name.
func (e *Engine) loadVolumes(ctx context.Context, objs *volume.Objects) error {
	if objs == nil {
		return nil
	}
	var all []any
	for _, list := range [][]any{
		anys(volumeList(objs.Classes)), anys(volumeList(objs.Drivers)), anys(volumeList(objs.CSINodes)),
		anys(volumeList(objs.Capacities)), anys(volumeList(objs.Volumes)), anys(volumeList(objs.Claims)),
	} {
		all = append(all, list...)
	}
	for _, o := range all {
		if err := e.s.Upsert(ctx, o); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
	}
	return nil
}

func volumeList[T any](m map[string]*T) []*T {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*T, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}

func anys[T any](in []T) []any {
	out := make([]any, 0, len(in))
	for _, v := range in {
		out = append(out, v)
	}
	return out
}

// volumeKind is core/volume's kind of a storage object and its identity.
func volumeKind(obj any) (string, metav1.Object, bool) {
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		return volume.KindPersistentVolume, o, true
	case *corev1.PersistentVolumeClaim:
		return volume.KindPersistentVolumeClaim, o, true
	case *storagev1.StorageClass:
		return volume.KindStorageClass, o, true
	case *storagev1.CSINode:
		return volume.KindCSINode, o, true
	case *storagev1.CSIDriver:
		return volume.KindCSIDriver, o, true
	case *storagev1.CSIStorageCapacity:
		return volume.KindCSIStorageCapacity, o, true
	}
	return "", nil, false
}

// takeVolumes returns the volume bindings of the Bind since the last call.
func (s *sink) takeVolumes() []framework.VolumeBinding {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.volumes
	s.volumes = nil
	return out
}
