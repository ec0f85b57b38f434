package scheduler

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
)

// ErrVolumeObjectNotFound: a delete names a storage object the scheduler
// does not hold.
var ErrVolumeObjectNotFound = fmt.Errorf("storage object %w", ErrNotFound)

// upsertVolumeObject adds or replaces a storage object: a
// *corev1.PersistentVolume, *corev1.PersistentVolumeClaim,
// *storagev1.StorageClass, *storagev1.CSINode, *storagev1.CSIDriver or
// *storagev1.CSIStorageCapacity (not modified; a namespaced object
// without a namespace is put in "default"). A claim without a class gets
// the default class, if one is held, as kube-apiserver's admission gives
// it. An invalid object is refused with an error wrapping ErrInvalid and
// the *volume.FieldError naming the field. Pods waiting for the object
// are requeued by the volume plugins' queueing hints.
func (s *Scheduler) upsertVolumeObject(ctx context.Context, obj any) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	obj, kind, name, ok := s.prepareVolumeObject(obj)
	if !ok {
		return fmt.Errorf("upsert storage object: %T is not a PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver or CSIStorageCapacity: %w", obj, ErrInvalid)
	}
	if err := volume.Validate(obj); err != nil {
		return invalidVolume(kind, name, err)
	}
	old, err := s.volumes.Set(obj)
	if err != nil {
		return fmt.Errorf("upsert %s %s: %w: %w", kind, name, ErrInvalid, err)
	}
	s.volumeEvent(ctx, kind, old, obj)
	return nil
}

// prepareVolumeObject copies and defaults obj as kube-apiserver would
// before validation; ok is false for a type that is not a storage object.
func (s *Scheduler) prepareVolumeObject(obj any) (out any, kind, name string, ok bool) {
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		if o != nil {
			return o, volume.KindPersistentVolume, o.Name, true
		}
	case *corev1.PersistentVolumeClaim:
		if o != nil {
			c := o.DeepCopy()
			defaultNamespace(&c.ObjectMeta)
			if c.UID == "" {
				c.UID = types.UID("pvc-" + c.Namespace + "-" + c.Name)
			}
			if c.Spec.StorageClassName == nil {
				if def, ok := s.volumes.DefaultClass(); ok {
					c.Spec.StorageClassName = &def
				}
			}
			return c, volume.KindPersistentVolumeClaim, volume.Key(c.Namespace, c.Name), true
		}
	case *storagev1.StorageClass:
		if o != nil {
			return o, volume.KindStorageClass, o.Name, true
		}
	case *storagev1.CSINode:
		if o != nil {
			return o, volume.KindCSINode, o.Name, true
		}
	case *storagev1.CSIDriver:
		if o != nil {
			return o, volume.KindCSIDriver, o.Name, true
		}
	case *storagev1.CSIStorageCapacity:
		if o != nil {
			c := o.DeepCopy()
			defaultNamespace(&c.ObjectMeta)
			return c, volume.KindCSIStorageCapacity, volume.Key(c.Namespace, c.Name), true
		}
	}
	return obj, "", "", false
}

// deleteVolumeObject removes a storage object by kind (volume.Kind*),
// namespace (claims and capacities; "" means "default") and name. An
// unknown object is ErrVolumeObjectNotFound, an unknown kind ErrInvalid.
func (s *Scheduler) deleteVolumeObject(ctx context.Context, kind, namespace, name string) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	old, err := s.volumes.Delete(kind, namespace, name)
	if err != nil {
		return fmt.Errorf("delete storage object: %w: %w", ErrInvalid, err)
	}
	if old == nil {
		return fmt.Errorf("delete %s %s: %w", kind, volumeName(kind, namespace, name), ErrVolumeObjectNotFound)
	}
	s.volumeEvent(ctx, kind, old, nil)
	return nil
}

// addPodVolumeClaimsLocked makes the claims of the pod's ephemeral volumes
// that do not exist yet, as the ephemeral-volume controller does. A claim
// of the name that exists and is not the pod's stays (the pod is then
// unschedulable, as in kube).
func (s *Scheduler) addPodVolumeClaimsLocked(ctx context.Context, pod *model.Pod) {
	for _, v := range pod.Volumes {
		if v.Ephemeral == nil {
			continue
		}
		if _, ok := s.volumes.Claim(pod.Namespace, v.ClaimName); ok {
			continue
		}
		c := volume.EphemeralClaim(pod, v)
		if def, ok := s.volumes.DefaultClass(); ok && c.Spec.StorageClassName == nil {
			c.Spec.StorageClassName = &def
		}
		if err := volume.Validate(c); err != nil {
			// convert and manifest validated the template: log, do not fail the pod.
			s.logger.Error("ephemeral volume claim refused", "pod", pod.Key(), "volume", v.Name, "err", err)
			continue
		}
		if _, err := s.volumes.Set(c); err == nil {
			s.volumeEvent(ctx, volume.KindPersistentVolumeClaim, nil, c)
		}
	}
}

// removePodVolumeClaimsLocked deletes the claims made for the pod's
// ephemeral volumes (kube's garbage collector deletes them with their
// owner).
func (s *Scheduler) removePodVolumeClaimsLocked(ctx context.Context, pod *model.Pod) {
	s.volumes.DropPod(pod.UID)
	for _, v := range pod.Volumes {
		if v.Ephemeral == nil {
			continue
		}
		c, ok := s.volumes.Claim(pod.Namespace, v.ClaimName)
		if !ok || !volume.OwnedBy(c, pod.UID) {
			continue
		}
		if old, _ := s.volumes.Delete(volume.KindPersistentVolumeClaim, pod.Namespace, v.ClaimName); old != nil {
			s.volumeEvent(ctx, volume.KindPersistentVolumeClaim, old, nil)
		}
	}
}

// volumeEvent moves the pods a change of a storage object may help.
func (s *Scheduler) volumeEvent(ctx context.Context, kind string, old, cur any) {
	r := framework.EventResource(kind)
	var ev framework.ClusterEvent
	switch {
	case old == nil:
		ev = objectEvent(r, framework.ActionAdd, kind+"Add")
	case cur == nil:
		ev = objectEvent(r, framework.ActionDelete, kind+"Delete")
	default:
		ev = objectEvent(r, framework.ActionUpdateOther, kind+"Update")
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, ev, old, cur, nil)
}

func volumeName(kind, namespace, name string) string {
	if kind == volume.KindPersistentVolumeClaim || kind == volume.KindCSIStorageCapacity {
		return volume.Key(namespace, name)
	}
	return name
}

// invalidVolume wraps a validation failure: errors.Is(err, ErrInvalid),
// and errors.As finds the *volume.FieldError naming the field.
func invalidVolume(kind, name string, err error) error {
	var fe *volume.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s %s: %w: %w", kind, name, ErrInvalid, fe)
	}
	return fmt.Errorf("%s %s: %w: %w", kind, name, ErrInvalid, err)
}

// bindVolumes is what VolumeBinding's Reserve assumed for the pod's
// unbound claims, as its Bind carries it.
func (s *Scheduler) bindVolumes(pod *model.Pod) []framework.VolumeBinding {
	var out []framework.VolumeBinding
	for _, b := range s.volumes.PodBindings(pod.UID) {
		out = append(out, framework.VolumeBinding{Claim: b.Claim.Name, Volume: b.Volume, SelectedNode: b.SelectedNode})
	}
	return out
}
