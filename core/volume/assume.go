package volume

import (
	"fmt"
	"maps"
	"slices"

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
	// awaited holds the restored bindings (RestorePod) whose volume or
	// claim has not been sent since the restart, by volume name or claim
	// key: each is assumed when its object arrives unbound.
	awaited map[string]Binding
}

func newAssumed() assumed {
	return assumed{
		volumes: map[string]*corev1.PersistentVolume{}, claims: map[string]*corev1.PersistentVolumeClaim{},
		pods: map[string][]Binding{}, awaited: map[string]Binding{},
	}
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
		if b.Volume == "" {
			b.SelectedNode = node
		}
		t.assumeLocked(t.volumeLocked(b.Volume), t.claimLocked(b.Claim.Namespace, b.Claim.Name), b)
		out = append(out, b)
	}
	t.assumed.pods[podUID] = out
	return nil
}

// assumeLocked assumes one binding: the volume pv reserved for its claim
// (claimRef set, as the volume controller will bind it), or the claim c
// to provision given the binding's node as its selected node.
func (t *Tracker) assumeLocked(pv *corev1.PersistentVolume, c *corev1.PersistentVolumeClaim, b Binding) {
	if b.Volume != "" {
		pv = pv.DeepCopy()
		pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: b.Claim.Namespace, Name: b.Claim.Name, UID: b.Claim.UID}
		t.assumed.volumes[pv.Name] = pv
		return
	}
	c = c.DeepCopy()
	metav1.SetMetaDataAnnotation(&c.ObjectMeta, AnnSelectedNode, b.SelectedNode)
	t.assumed.claims[Key(c.Namespace, c.Name)] = c
}

// RestorePod assumes again, after a restart, the bindings a pod's Bind
// carried while that Bind awaits its outcome (the server keeps them
// durably with the Bind): each volume stays reserved for its claim, each
// claim to provision keeps its selected node, so no volume promised
// before the restart is offered to another claim after it. A binding's
// Claim needs only its namespace and name. The objects may not have been
// sent again yet: a binding is assumed when its volume (or claim)
// arrives, unless it arrives bound already (the orchestrator carried the
// bind out). ForgetPod releases them, as it does a Reserve's.
func (t *Tracker) RestorePod(podUID string, bindings []Binding) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range bindings {
		if c := t.objs.Claims[Key(b.Claim.Namespace, b.Claim.Name)]; c != nil {
			b.Claim = c
		}
		t.assumed.pods[podUID] = append(t.assumed.pods[podUID], b)
		if !t.assumeRestoredLocked(b) {
			t.assumed.awaited[awaitedKey(b)] = b
		}
	}
}

// assumeRestoredLocked assumes a restored binding if its object is held
// and unbound; it reports whether its object was held.
func (t *Tracker) assumeRestoredLocked(b Binding) bool {
	if b.Volume != "" {
		pv := t.objs.Volumes[b.Volume]
		if pv != nil && pv.Spec.ClaimRef == nil {
			t.assumeLocked(pv, nil, b)
		}
		return pv != nil
	}
	c := t.objs.Claims[Key(b.Claim.Namespace, b.Claim.Name)]
	if c != nil && c.Spec.VolumeName == "" && !metav1.HasAnnotation(c.ObjectMeta, AnnSelectedNode) {
		t.assumeLocked(nil, c, b)
	}
	return c != nil
}

// awaitedKey is where an awaited binding is kept: its volume's name, or
// its claim's key (which no volume name can be: it holds a slash).
func awaitedKey(b Binding) string {
	if b.Volume != "" {
		return b.Volume
	}
	return Key(b.Claim.Namespace, b.Claim.Name)
}

// arrivedLocked assumes the restored binding awaiting obj, a volume or a
// claim just sent.
func (t *Tracker) arrivedLocked(obj any) {
	var key string
	switch o := obj.(type) {
	case *corev1.PersistentVolume:
		key = o.Name
	case *corev1.PersistentVolumeClaim:
		key = Key(o.Namespace, o.Name)
	default:
		return
	}
	b, ok := t.assumed.awaited[key]
	if !ok {
		return
	}
	delete(t.assumed.awaited, key)
	if c, ok := obj.(*corev1.PersistentVolumeClaim); ok {
		b.Claim = c
	}
	t.assumeRestoredLocked(b)
}

// ForgetPod reverts what the pod's Reserve assumed (a failed or abandoned
// bind: its volumes are free again), but what another pod sharing the
// claim assumed too. It returns the volumes and claims released, as they
// are now (their assumption gone), so that the caller can raise their
// events.
func (t *Tracker) ForgetPod(podUID string) []any {
	t.mu.Lock()
	defer t.mu.Unlock()
	mine := t.assumed.pods[podUID]
	delete(t.assumed.pods, podUID)
	var released []any
	for _, b := range mine {
		if t.sharedLocked(b) {
			continue
		}
		delete(t.assumed.awaited, awaitedKey(b))
		if b.Volume != "" {
			if _, ok := t.assumed.volumes[b.Volume]; ok {
				delete(t.assumed.volumes, b.Volume)
				if pv := t.objs.Volumes[b.Volume]; pv != nil {
					released = append(released, pv)
				}
			}
			continue
		}
		key := Key(b.Claim.Namespace, b.Claim.Name)
		if _, ok := t.assumed.claims[key]; ok {
			delete(t.assumed.claims, key)
			if c := t.objs.Claims[key]; c != nil {
				released = append(released, c)
			}
		}
	}
	return released
}

// Pods lists the pods with bindings assumed, sorted.
func (t *Tracker) Pods() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return slices.Sorted(maps.Keys(t.assumed.pods))
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
