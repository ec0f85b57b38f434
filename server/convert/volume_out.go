package convert

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
)

// VolumeObjectToProto is the wire Object of a storage object (one of the
// kinds core/volume holds); nil for another type.
func VolumeObjectToProto(obj any) *berthv1.Object {
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		return &berthv1.Object{Kind: &berthv1.Object_PersistentVolume{PersistentVolume: persistentVolumeToProto(o)}}
	case *corev1.PersistentVolumeClaim:
		return &berthv1.Object{Kind: &berthv1.Object_PersistentVolumeClaim{PersistentVolumeClaim: persistentVolumeClaimToProto(o)}}
	case *storagev1.StorageClass:
		return &berthv1.Object{Kind: &berthv1.Object_StorageClass{StorageClass: storageClassToProto(o)}}
	case *storagev1.CSINode:
		return &berthv1.Object{Kind: &berthv1.Object_CsiNode{CsiNode: csiNodeToProto(o)}}
	case *storagev1.CSIDriver:
		return &berthv1.Object{Kind: &berthv1.Object_CsiDriver{CsiDriver: csiDriverToProto(o)}}
	case *storagev1.CSIStorageCapacity:
		return &berthv1.Object{Kind: &berthv1.Object_CsiStorageCapacity{CsiStorageCapacity: csiStorageCapacityToProto(o)}}
	}
	return nil
}

func storageBytes(l corev1.ResourceList) int64 {
	q, ok := l[corev1.ResourceStorage]
	if !ok {
		return 0
	}
	return q.Value()
}

func persistentVolumeToProto(in *corev1.PersistentVolume) *berthv1.PersistentVolume {
	out := &berthv1.PersistentVolume{
		Name: in.Name, Labels: in.Labels, CapacityBytes: storageBytes(in.Spec.Capacity),
		AccessModes: accessModesToProto(in.Spec.AccessModes), StorageClassName: in.Spec.StorageClassName,
		VolumeMode: volumeModeToProto(in.Spec.VolumeMode), Terminating: in.DeletionTimestamp != nil,
	}
	if r := in.Spec.ClaimRef; r != nil {
		out.ClaimRef = &berthv1.ClaimReference{Namespace: r.Namespace, Name: r.Name, Uid: string(r.UID)}
	}
	if na := in.Spec.NodeAffinity; na != nil && na.Required != nil {
		out.NodeAffinity = kubeNodeSelectorToProto(na.Required)
	}
	if csi := in.Spec.CSI; csi != nil {
		out.Csi = &berthv1.CSIPersistentVolumeSource{Driver: csi.Driver, VolumeHandle: csi.VolumeHandle}
	}
	if in.Status.Phase != "" {
		out.Phase = berthv1.PersistentVolumePhase(berthv1.PersistentVolumePhase_value["PERSISTENT_VOLUME_PHASE_"+strings.ToUpper(string(in.Status.Phase))])
	}
	return out
}

func persistentVolumeClaimToProto(in *corev1.PersistentVolumeClaim) *berthv1.PersistentVolumeClaim {
	out := &berthv1.PersistentVolumeClaim{
		Namespace: in.Namespace, Name: in.Name, Uid: string(in.UID), Labels: in.Labels,
		RequestBytes: storageBytes(in.Spec.Resources.Requests), AccessModes: accessModesToProto(in.Spec.AccessModes),
		StorageClassName: in.Spec.StorageClassName, VolumeName: in.Spec.VolumeName,
		VolumeMode: volumeModeToProto(in.Spec.VolumeMode), Terminating: in.DeletionTimestamp != nil,
		BindCompleted: metav1.HasAnnotation(in.ObjectMeta, volume.AnnBindCompleted),
		SelectedNode:  in.Annotations[volume.AnnSelectedNode],
	}
	if in.Spec.Selector != nil {
		out.Selector = kubeLabelSelectorToProto(in.Spec.Selector)
	}
	if in.Status.Phase != "" {
		out.Phase = berthv1.PersistentVolumeClaimPhase(berthv1.PersistentVolumeClaimPhase_value["PERSISTENT_VOLUME_CLAIM_PHASE_"+strings.ToUpper(string(in.Status.Phase))])
	}
	return out
}

func kubeLabelSelectorToProto(in *metav1.LabelSelector) *berthv1.LabelSelector {
	sel := &model.LabelSelector{MatchLabels: in.MatchLabels}
	for _, r := range in.MatchExpressions {
		sel.MatchExpressions = append(sel.MatchExpressions, model.LabelSelectorRequirement{Key: r.Key, Operator: model.LabelSelectorOperator(r.Operator), Values: r.Values})
	}
	return labelSelectorToProto(sel)
}

func storageClassToProto(in *storagev1.StorageClass) *berthv1.StorageClass {
	out := &berthv1.StorageClass{Name: in.Name, Provisioner: in.Provisioner, IsDefault: volume.IsDefaultClass(in)}
	out.VolumeBindingMode = berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_IMMEDIATE
	if m := in.VolumeBindingMode; m != nil && *m == storagev1.VolumeBindingWaitForFirstConsumer {
		out.VolumeBindingMode = berthv1.VolumeBindingMode_VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER
	}
	for _, t := range in.AllowedTopologies {
		term := &berthv1.TopologySelectorTerm{}
		for _, r := range t.MatchLabelExpressions {
			term.MatchLabelExpressions = append(term.MatchLabelExpressions, &berthv1.TopologySelectorLabelRequirement{Key: r.Key, Values: r.Values})
		}
		out.AllowedTopologies = append(out.AllowedTopologies, term)
	}
	return out
}

func csiNodeToProto(in *storagev1.CSINode) *berthv1.CSINode {
	out := &berthv1.CSINode{Name: in.Name}
	for _, d := range in.Spec.Drivers {
		drv := &berthv1.CSINodeDriver{Name: d.Name, NodeId: d.NodeID, TopologyKeys: d.TopologyKeys}
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			drv.AllocatableCount = new(*d.Allocatable.Count)
		}
		out.Drivers = append(out.Drivers, drv)
	}
	return out
}

func csiDriverToProto(in *storagev1.CSIDriver) *berthv1.CSIDriver {
	out := &berthv1.CSIDriver{Name: in.Name}
	if in.Spec.AttachRequired != nil {
		out.AttachRequired = new(*in.Spec.AttachRequired)
	}
	out.StorageCapacity = in.Spec.StorageCapacity != nil && *in.Spec.StorageCapacity
	out.PreventPodSchedulingIfMissing = in.Spec.PreventPodSchedulingIfMissing != nil && *in.Spec.PreventPodSchedulingIfMissing
	return out
}

func csiStorageCapacityToProto(in *storagev1.CSIStorageCapacity) *berthv1.CSIStorageCapacity {
	out := &berthv1.CSIStorageCapacity{Namespace: in.Namespace, Name: in.Name, StorageClassName: in.StorageClassName}
	if in.NodeTopology != nil {
		out.NodeTopology = kubeLabelSelectorToProto(in.NodeTopology)
	}
	if in.Capacity != nil {
		out.CapacityBytes = new(in.Capacity.Value())
	}
	if in.MaximumVolumeSize != nil {
		out.MaximumVolumeSizeBytes = new(in.MaximumVolumeSize.Value())
	}
	return out
}

// podVolumesToProto is the wire form of a pod's volumes.
func podVolumesToProto(in []model.PodVolume) []*berthv1.Volume {
	var out []*berthv1.Volume
	for _, v := range in {
		w := &berthv1.Volume{Name: v.Name}
		switch {
		case v.Ephemeral != nil:
			tm := v.Ephemeral
			pvc := &berthv1.PersistentVolumeClaim{Labels: tm.Labels, RequestBytes: tm.RequestBytes, StorageClassName: tm.StorageClassName}
			for _, m := range tm.AccessModes {
				pvc.AccessModes = append(pvc.AccessModes, accessModesToProto([]corev1.PersistentVolumeAccessMode{corev1.PersistentVolumeAccessMode(m)})...)
			}
			if tm.VolumeMode != "" {
				pvc.VolumeMode = volumeModeToProto(new(corev1.PersistentVolumeMode(tm.VolumeMode)))
			}
			pvc.Selector = labelSelectorToProto(tm.Selector)
			w.Source = &berthv1.Volume_Ephemeral{Ephemeral: &berthv1.EphemeralVolumeSource{VolumeClaimTemplate: pvc}}
		case v.ClaimName != "":
			w.Source = &berthv1.Volume_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaimVolumeSource{ClaimName: v.ClaimName, ReadOnly: v.ReadOnly}}
		case v.CSIDriver != "":
			w.Source = &berthv1.Volume_Csi{Csi: &berthv1.CSIVolumeSource{Driver: v.CSIDriver}}
		default:
			w.Source = &berthv1.Volume_Other{Other: v.Other}
		}
		out = append(out, w)
	}
	return out
}
