package manifest

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
)

// addVolume validates and records one storage object (v1
// PersistentVolume, PersistentVolumeClaim, storage.k8s.io/v1
// StorageClass, CSINode, CSIDriver, CSIStorageCapacity); ok is false when
// obj is not one.
func (b *builder) addVolume(e *entry, obj any) (ok bool, err error) {
	objs := b.volumes
	var key string
	var dup bool
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		key = o.Name
		_, dup = objs.Volumes[key]
	case *corev1.PersistentVolumeClaim:
		defaultNamespace(&o.ObjectMeta)
		key = volume.Key(o.Namespace, o.Name)
		_, dup = objs.Claims[key]
	case *storagev1.StorageClass:
		key = o.Name
		_, dup = objs.Classes[key]
	case *storagev1.CSINode:
		key = o.Name
		_, dup = objs.CSINodes[key]
	case *storagev1.CSIDriver:
		key = o.Name
		_, dup = objs.Drivers[key]
	case *storagev1.CSIStorageCapacity:
		defaultNamespace(&o.ObjectMeta)
		key = volume.Key(o.Namespace, o.Name)
		_, dup = objs.Capacities[key]
	default:
		return false, nil
	}
	if err := volume.Validate(obj); err != nil {
		var fe *volume.FieldError
		if errors.As(err, &fe) {
			return true, e.fail(fe.Path, errors.New(fe.Reason))
		}
		return true, e.fail("", err)
	}
	if dup {
		return true, e.fail("metadata.name", fmt.Errorf("duplicate %q", key))
	}
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		objs.Volumes[key] = o
	case *corev1.PersistentVolumeClaim:
		objs.Claims[key] = o
	case *storagev1.StorageClass:
		objs.Classes[key] = o
	case *storagev1.CSINode:
		objs.CSINodes[key] = o
	case *storagev1.CSIDriver:
		objs.Drivers[key] = o
	case *storagev1.CSIStorageCapacity:
		objs.Capacities[key] = o
	}
	return true, nil
}

// podVolumes converts a pod's spec.volumes: claims, ephemeral volumes (the
// claim named "<pod>-<volume>", made by the scheduler as the
// ephemeral-volume controller does), inline CSI volumes, and the other
// kinds by name only.
func podVolumes(p *corev1.Pod) ([]model.PodVolume, *fieldError) {
	if len(p.Spec.Volumes) == 0 {
		return nil, nil
	}
	out := make([]model.PodVolume, 0, len(p.Spec.Volumes))
	names := make(map[string]bool, len(p.Spec.Volumes))
	for i, v := range p.Spec.Volumes {
		field := fmt.Sprintf("spec.volumes[%d]", i)
		if errs := validation.IsDNS1123Label(v.Name); len(errs) > 0 {
			return nil, &fieldError{field: field + ".name", err: fmt.Errorf("%q: %s", v.Name, errs[0])}
		}
		if names[v.Name] {
			return nil, &fieldError{field: field + ".name", err: fmt.Errorf("duplicate %q", v.Name)}
		}
		names[v.Name] = true
		pv := model.PodVolume{Name: v.Name}
		switch {
		case v.PersistentVolumeClaim != nil:
			if v.PersistentVolumeClaim.ClaimName == "" {
				return nil, &fieldError{field: field + ".persistentVolumeClaim.claimName", err: errors.New("required")}
			}
			pv.ClaimName, pv.ReadOnly = v.PersistentVolumeClaim.ClaimName, v.PersistentVolumeClaim.ReadOnly
		case v.Ephemeral != nil:
			tp := field + ".ephemeral.volumeClaimTemplate"
			tm := v.Ephemeral.VolumeClaimTemplate
			if tm == nil {
				return nil, &fieldError{field: tp, err: errors.New("required")}
			}
			name := volume.EphemeralClaimName(p.Name, v.Name)
			check := &corev1.PersistentVolumeClaim{ObjectMeta: tm.ObjectMeta, Spec: tm.Spec}
			check.Name, check.Namespace = name, "default"
			if err := volume.Validate(check); err != nil {
				var fe *volume.FieldError
				if errors.As(err, &fe) {
					return nil, &fieldError{field: tp + "." + fe.Path, err: errors.New(fe.Reason)}
				}
				return nil, &fieldError{field: tp, err: err}
			}
			pv.ClaimName = name
			ct, ferr := claimTemplate(tm)
			if ferr != nil {
				return nil, &fieldError{field: tp + ".spec.selector" + ferr.field, err: ferr.err}
			}
			pv.Ephemeral = ct
		case v.CSI != nil:
			if v.CSI.Driver == "" {
				return nil, &fieldError{field: field + ".csi.driver", err: errors.New("required")}
			}
			pv.CSIDriver = v.CSI.Driver
		default:
			pv.Other = otherVolumeKind(v.VolumeSource)
		}
		out = append(out, pv)
	}
	return out, nil
}

func claimTemplate(tm *corev1.PersistentVolumeClaimTemplate) (*model.ClaimTemplate, *fieldError) {
	q := tm.Spec.Resources.Requests[corev1.ResourceStorage]
	ct := &model.ClaimTemplate{Labels: tm.Labels, RequestBytes: q.Value(), StorageClassName: tm.Spec.StorageClassName}
	for _, m := range tm.Spec.AccessModes {
		ct.AccessModes = append(ct.AccessModes, string(m))
	}
	if tm.Spec.VolumeMode != nil {
		ct.VolumeMode = string(*tm.Spec.VolumeMode)
	}
	if tm.Spec.Selector != nil {
		sel, ferr := labelSelector(tm.Spec.Selector)
		if ferr != nil {
			return nil, ferr
		}
		ct.Selector = sel
	}
	return ct, nil
}

// otherVolumeKind names a volume source scheduling ignores.
func otherVolumeKind(s corev1.VolumeSource) string {
	switch {
	case s.EmptyDir != nil:
		return "emptyDir"
	case s.HostPath != nil:
		return "hostPath"
	case s.ConfigMap != nil:
		return "configMap"
	case s.Secret != nil:
		return "secret"
	case s.Projected != nil:
		return "projected"
	case s.DownwardAPI != nil:
		return "downwardAPI"
	case s.NFS != nil:
		return "nfs"
	case s.Image != nil:
		return "image"
	}
	return "other"
}
