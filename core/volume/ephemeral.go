package volume

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berthsched/berth/core/model"
)

// EphemeralClaimName is the name of the claim of a pod's ephemeral volume,
// as Kubernetes names it.
func EphemeralClaimName(podName, volumeName string) string { return podName + "-" + volumeName }

// EphemeralClaim is the claim Kubernetes' ephemeral-volume controller
// makes for a pod's ephemeral volume: the template's spec, named
// "<pod>-<volume>" in the pod's namespace, controlled by the pod.
func EphemeralClaim(pod *model.Pod, v model.PodVolume) *corev1.PersistentVolumeClaim {
	tm := v.Ephemeral
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: pod.Namespace,
			Name:      EphemeralClaimName(pod.Name, v.Name),
			UID:       types.UID("pvc-" + pod.UID + "-" + v.Name),
			Labels:    tm.Labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: types.UID(pod.UID),
				Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: tm.StorageClassName,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: *resource.NewQuantity(tm.RequestBytes, resource.BinarySI),
			}},
		},
	}
	for _, m := range tm.AccessModes {
		c.Spec.AccessModes = append(c.Spec.AccessModes, corev1.PersistentVolumeAccessMode(m))
	}
	if tm.VolumeMode != "" {
		c.Spec.VolumeMode = new(corev1.PersistentVolumeMode(tm.VolumeMode))
	}
	if tm.Selector != nil {
		c.Spec.Selector = KubeLabelSelector(tm.Selector)
	}
	return c
}

// OwnedBy reports whether a claim is controlled by the pod of uid.
func OwnedBy(c *corev1.PersistentVolumeClaim, uid string) bool {
	ref := metav1.GetControllerOf(c)
	return ref != nil && string(ref.UID) == uid
}

// KubeLabelSelector is a label selector in Kubernetes' type.
func KubeLabelSelector(in *model.LabelSelector) *metav1.LabelSelector {
	out := &metav1.LabelSelector{MatchLabels: in.MatchLabels}
	for _, r := range in.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: r.Key, Operator: metav1.LabelSelectorOperator(r.Operator), Values: r.Values,
		})
	}
	return out
}
