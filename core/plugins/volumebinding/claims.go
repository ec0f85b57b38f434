package volumebinding

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
)

// Reasons, in kube's words.
const (
	ErrReasonUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims"
	ErrReasonNodeConflict     = "node(s) didn't match PersistentVolume's node affinity"
	ErrReasonPVNotExist       = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)

// stateData is the attempt's state, shared by the clones of the cycle
// state (Filter runs in parallel: byNode is behind mu).
type stateData struct {
	// bound are the pod's claims bound to a volume.
	bound []*corev1.PersistentVolumeClaim
	// unboundDelayed are its unbound claims of WaitForFirstConsumer
	// classes, and classVolumes the volumes of their classes (as
	// assumed) when PreFilter ran.
	unboundDelayed []*corev1.PersistentVolumeClaim
	classVolumes   map[string][]*corev1.PersistentVolume
	// provisioning is, per class of those claims, what provisioning
	// their volumes reads (binder.go).
	provisioning map[string]*classProvisioning

	mu     sync.Mutex
	byNode map[string]*podVolumes
}

// Clone returns the state itself: it is the attempt's, as kube's.
func (d *stateData) Clone() framework.StateData { return d }

func hasClaims(pod *model.Pod) bool {
	for _, v := range pod.Volumes {
		if v.ClaimName != "" {
			return true
		}
	}
	return false
}

// podClaims are a pod's claims, sorted as kube's binder sorts them.
type podClaims struct {
	bound            []*corev1.PersistentVolumeClaim
	unboundImmediate []*corev1.PersistentVolumeClaim
	unboundDelayed   []*corev1.PersistentVolumeClaim
}

// podClaims finds the pod's claims; the error is kube's reason for a claim
// that cannot be used.
func (pl *VolumeBinding) podClaims(pod *model.Pod) (podClaims, error) {
	var out podClaims
	for _, v := range pod.Volumes {
		if v.ClaimName == "" {
			continue
		}
		c, ok := pl.t.Claim(pod.Namespace, v.ClaimName)
		switch {
		case !ok && v.Ephemeral != nil:
			return out, fmt.Errorf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", v.ClaimName)
		case !ok:
			return out, fmt.Errorf("persistentvolumeclaim %q not found", v.ClaimName)
		case c.Status.Phase == corev1.ClaimLost:
			return out, fmt.Errorf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", c.Name, c.Spec.VolumeName)
		case c.DeletionTimestamp != nil:
			return out, fmt.Errorf("persistentvolumeclaim %q is being deleted", c.Name)
		case v.Ephemeral != nil && !volume.OwnedBy(c, pod.UID):
			return out, fmt.Errorf("PVC %s/%s was not created for pod %s/%s (pod is not owner)", c.Namespace, c.Name, pod.Namespace, pod.Name)
		}
		switch {
		case c.Spec.VolumeName != "" && metav1.HasAnnotation(c.ObjectMeta, volume.AnnBindCompleted):
			out.bound = append(out.bound, c)
		case c.Spec.VolumeName == "" && pl.delayedBinding(c):
			out.unboundDelayed = append(out.unboundDelayed, c)
		default:
			// Immediate, or prebound to a volume the controller has not
			// finished binding: the volume controller's to bind.
			out.unboundImmediate = append(out.unboundImmediate, c)
		}
	}
	return out, nil
}

// delayedBinding reports whether a claim's class binds on first consumer;
// a claim without a class, or whose class is unknown, binds immediately.
func (pl *VolumeBinding) delayedBinding(c *corev1.PersistentVolumeClaim) bool {
	name := volume.ClaimClass(c)
	if name == "" {
		return false
	}
	class, ok := pl.t.Class(name)
	return ok && class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
}

// checkBound reports whether the volumes of the bound claims admit the
// node (their required node affinity matches its labels) and whether they
// all exist.
func (pl *VolumeBinding) checkBound(claims []*corev1.PersistentVolumeClaim, node *model.Node) (affinityOK, found bool) {
	for _, c := range claims {
		pv, ok := pl.t.Volume(c.Spec.VolumeName)
		if !ok {
			return true, false
		}
		if !nodeAffinityAdmits(pv, node.Labels) {
			return false, true
		}
	}
	return true, true
}

// nodeAffinityAdmits reports whether a volume's required node affinity
// matches labels (kube matches a node with only its labels: match fields
// never match).
func nodeAffinityAdmits(pv *corev1.PersistentVolume, labels map[string]string) bool {
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil {
		return true
	}
	sel, err := nodeaffinity.NewNodeSelector(na.Required)
	if err != nil {
		return false
	}
	return sel.Match(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}})
}
