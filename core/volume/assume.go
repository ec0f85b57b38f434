package volume

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Binding is what the scheduler decided for one of a pod's claims: the
// volume it binds the claim to, or (Volume empty) the node the claim's
// volume is to be provisioned for (kube's selected-node annotation).
type Binding struct {
	Claim        *corev1.PersistentVolumeClaim // as it was when decided
	Volume       string
	SelectedNode string
}

// assumed is the tracker's view of bindings decided but not yet seen in
// the objects the orchestrator sends (kube's assume caches): volumes
// reserved for a claim, claims given a selected node; and, per pod, what
// its Reserve assumed.
type assumed struct {
	volumes map[string]*corev1.PersistentVolume      // by name, with claimRef set
	claims  map[string]*corev1.PersistentVolumeClaim // by namespace/name, with selected-node
	pods    map[string][]Binding                     // by pod uid
}

func newAssumed() assumed {
	return assumed{volumes: map[string]*corev1.PersistentVolume{}, claims: map[string]*corev1.PersistentVolumeClaim{}, pods: map[string][]Binding{}}
}

// BoundToClaim reports whether a volume's claimRef names the claim (and,
// when it carries a uid, the claim's uid), as kube's IsVolumeBoundToClaim.
func BoundToClaim(pv *corev1.PersistentVolume, c *corev1.PersistentVolumeClaim) bool {
	r := pv.Spec.ClaimRef
	return r != nil && r.Name == c.Name && r.Namespace == c.Namespace && (r.UID == "" || r.UID == c.UID)
}

// AssumePod records the bindings a pod's Reserve decided on node: each
// volume reserved for its claim (claimRef set, as the volume controller
// will bind it), each claim to provision given node as its selected node.
// A volume reserved for another claim meanwhile is an error and nothing
// is assumed: a volume is never promised to two claims.
func (t *Tracker) AssumePod(podUID, node string, bindings []Binding) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range bindings {
		if b.Volume == "" {
			continue
		}
		pv := t.volumeLocked(b.Volume)
		if pv == nil {
			return fmt.Errorf("persistentvolume %q not found", b.Volume)
		}
		if pv.Spec.ClaimRef != nil && !BoundToClaim(pv, b.Claim) {
			return fmt.Errorf("persistentvolume %q is reserved for claim %s/%s", pv.Name, pv.Spec.ClaimRef.Namespace, pv.Spec.ClaimRef.Name)
		}
	}
	var out []Binding
	for _, b := range bindings {
		if b.Volume != "" {
			pv := t.volumeLocked(b.Volume).DeepCopy()
			pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: b.Claim.Namespace, Name: b.Claim.Name, UID: b.Claim.UID}
			t.assumed.volumes[pv.Name] = pv
		} else {
			c := t.claimLocked(b.Claim.Namespace, b.Claim.Name).DeepCopy()
			metav1.SetMetaDataAnnotation(&c.ObjectMeta, AnnSelectedNode, node)
			t.assumed.claims[Key(c.Namespace, c.Name)] = c
			b.SelectedNode = node
		}
		out = append(out, b)
	}
	t.assumed.pods[podUID] = out
	return nil
}

// ForgetPod reverts what the pod's Reserve assumed (a failed or abandoned
// bind: its volumes are free again), but what another pod sharing the
// claim assumed too.
func (t *Tracker) ForgetPod(podUID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	mine := t.assumed.pods[podUID]
	delete(t.assumed.pods, podUID)
	for _, b := range mine {
		if t.sharedLocked(b) {
			continue
		}
		if b.Volume != "" {
			delete(t.assumed.volumes, b.Volume)
		} else {
			delete(t.assumed.claims, Key(b.Claim.Namespace, b.Claim.Name))
		}
	}
}

// sharedLocked reports whether another pod's record has the binding's
// volume, or (a provision) its claim.
func (t *Tracker) sharedLocked(b Binding) bool {
	for _, other := range t.assumed.pods {
		for _, o := range other {
			if b.Volume != "" && o.Volume == b.Volume ||
				b.Volume == "" && o.Volume == "" && o.Claim.Namespace == b.Claim.Namespace && o.Claim.Name == b.Claim.Name {
				return true
			}
		}
	}
	return false
}

// PodBindings returns what the pod's Reserve assumed, for its Bind.
func (t *Tracker) PodBindings(podUID string) []Binding {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.assumed.pods[podUID]
}

// volumeLocked is a volume as assumed, or as sent.
func (t *Tracker) volumeLocked(name string) *corev1.PersistentVolume {
	if pv, ok := t.assumed.volumes[name]; ok {
		return pv
	}
	return t.objs.Volumes[name]
}

// claimLocked is a claim as assumed, or as sent.
func (t *Tracker) claimLocked(namespace, name string) *corev1.PersistentVolumeClaim {
	if c, ok := t.assumed.claims[Key(namespace, name)]; ok {
		return c
	}
	return t.objs.Claims[Key(namespace, name)]
}

// settleLocked drops the assumption an object sent by the orchestrator
// makes stale: a volume sent bound to a claim, a claim sent with a volume
// or a selected node.
func (t *Tracker) settleLocked(obj any) {
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		if o.Spec.ClaimRef != nil {
			delete(t.assumed.volumes, o.Name)
		}
	case *corev1.PersistentVolumeClaim:
		if o.Spec.VolumeName != "" || metav1.HasAnnotation(o.ObjectMeta, AnnSelectedNode) {
			delete(t.assumed.claims, Key(o.Namespace, o.Name))
		}
	}
}

// VolumesOfClass lists the volumes of a class (as assumed), by name.
func (t *Tracker) VolumesOfClass(class string) []*corev1.PersistentVolume {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []*corev1.PersistentVolume
	for _, pv := range sortedValues(t.objs.Volumes) {
		if pv.Spec.StorageClassName == class {
			out = append(out, t.volumeLocked(pv.Name))
		}
	}
	return out
}

// DropPod forgets a deleted pod's record; what it assumed stays until the
// orchestrator sends the volumes and claims bound (its bind may have been
// carried out).
func (t *Tracker) DropPod(podUID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.assumed.pods, podUID)
}
