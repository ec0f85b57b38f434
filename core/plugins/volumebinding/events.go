package volumebinding

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
	"github.com/berthsched/berth/core/volume"
)

// EventsToRegister: kube 1.37's, with its hints. A StorageClass added or
// its topologies changed; a claim the pod uses added or changed; any
// PersistentVolume added or changed; a node added or relabelled; a CSINode
// added (kube reads it to translate in-tree volumes; its migrated-plugins
// annotation changing counts as well); a CSIDriver that stops reporting
// storage capacity; a CSIStorageCapacity added or allowing a larger
// volume.
//
// Where Berth queues more than kube: kube refuses updates to a class's
// provisioner and binding mode and to a capacity's topology and class,
// Berth replaces the object, so those changes queue too; and a CSIDriver
// that stops reporting capacity (updated, or deleted) queues the pods with
// claims of its classes, not only those with an inline volume of the
// driver, since it is the claims whose provisioning was checked against
// capacity (kube's hint leaves them to the periodic flush).
func (pl *VolumeBinding) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	addOrUpdate := framework.ActionAdd | framework.ActionUpdate
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.EventStorageClass, ActionType: addOrUpdate}, QueueingHintFn: afterClassChange},
		{Event: framework.ClusterEvent{Resource: framework.EventPersistentVolumeClaim, ActionType: addOrUpdate}, QueueingHintFn: isSchedulableAfterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.EventPersistentVolume, ActionType: addOrUpdate}},
		{Event: framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd | framework.ActionUpdateNodeLabel}},
		{Event: framework.ClusterEvent{Resource: framework.EventCSINode, ActionType: addOrUpdate}, QueueingHintFn: afterCSINodeChange},
		{Event: framework.ClusterEvent{Resource: framework.EventCSIDriver, ActionType: framework.ActionUpdate | framework.ActionDelete}, QueueingHintFn: pl.afterDriverChange},
		{Event: framework.ClusterEvent{Resource: framework.EventCSIStorageCapacity, ActionType: addOrUpdate}, QueueingHintFn: afterCapacityChange},
	}, nil
}

// isSchedulableAfterClaimChange is kube's hint: only a claim of the pod's
// namespace that one of its volumes uses may help.
func isSchedulableAfterClaimChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	_, cur, err := helper.As[*corev1.PersistentVolumeClaim](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if cur == nil || cur.Namespace != pod.Namespace {
		return framework.QueueSkip, nil
	}
	for _, v := range pod.Volumes {
		if v.ClaimName == cur.Name {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// afterClassChange: a new class may be the one a claim waits for; an
// update helps only if it changes where or how the class provisions.
func afterClassChange(_ *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, cur, err := helper.As[*storagev1.StorageClass](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if old == nil || cur == nil {
		return framework.Queue, nil
	}
	if !equality.Semantic.DeepEqual(old.AllowedTopologies, cur.AllowedTopologies) ||
		old.Provisioner != cur.Provisioner || bindingMode(old) != bindingMode(cur) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func bindingMode(sc *storagev1.StorageClass) storagev1.VolumeBindingMode {
	if sc.VolumeBindingMode == nil {
		return storagev1.VolumeBindingImmediate
	}
	return *sc.VolumeBindingMode
}

// afterCSINodeChange is kube's hint: a new CSINode may help; an update only
// if the in-tree plugins migrated to CSI changed.
func afterCSINodeChange(_ *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, cur, err := helper.As[*storagev1.CSINode](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if old == nil || cur == nil {
		return framework.Queue, nil
	}
	if old.Annotations[corev1.MigratedPluginsAnnotationKey] != cur.Annotations[corev1.MigratedPluginsAnnotationKey] {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// afterDriverChange: a driver that stops reporting storage capacity (its
// storageCapacity turned off, or the driver deleted) no longer holds back
// provisioning for lack of capacity: the pods with an inline volume of the
// driver (kube's test) or a claim of a class it provisions may fit.
func (pl *VolumeBinding) afterDriverChange(pod *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, cur, err := helper.As[*storagev1.CSIDriver](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if old == nil || !reportsCapacity(old) || (cur != nil && reportsCapacity(cur)) {
		return framework.QueueSkip, nil
	}
	for _, v := range pod.Volumes {
		if v.CSIDriver == old.Name {
			return framework.Queue, nil
		}
		if v.ClaimName == "" {
			continue
		}
		c, ok := pl.t.Claim(pod.Namespace, v.ClaimName)
		if !ok {
			continue
		}
		if sc, ok := pl.t.Class(volume.ClaimClass(c)); ok && sc.Provisioner == old.Name {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

func reportsCapacity(d *storagev1.CSIDriver) bool {
	return d.Spec.StorageCapacity != nil && *d.Spec.StorageCapacity
}

// afterCapacityChange is kube's hint: a new capacity may help; an update
// only if the largest volume it allows grew (maximumVolumeSize, else
// capacity) — or, where Berth replaces what kube refuses to change, if its
// class or node topology changed.
func afterCapacityChange(_ *model.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	old, cur, err := helper.As[*storagev1.CSIStorageCapacity](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if old == nil || cur == nil {
		return framework.Queue, nil
	}
	if old.StorageClassName != cur.StorageClassName || !equality.Semantic.DeepEqual(old.NodeTopology, cur.NodeTopology) {
		return framework.Queue, nil
	}
	was, now := largestVolume(old), largestVolume(cur)
	if now != nil && (was == nil || now.Cmp(*was) > 0) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}
