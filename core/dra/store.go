package dra

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/berthsched/berth/core/model"
)

// Kinds of DRA objects, as resource.k8s.io names them.
const (
	KindDeviceClass           = "DeviceClass"
	KindResourceSlice         = "ResourceSlice"
	KindResourceClaim         = "ResourceClaim"
	KindResourceClaimTemplate = "ResourceClaimTemplate"
)

// ErrClaimSpecImmutable is returned for an update that changes the spec of
// an allocated claim (kube-apiserver refuses any spec change; Berth allows
// one while nothing is allocated, as the claim was not used yet).
var ErrClaimSpecImmutable = errors.New("the spec of an allocated claim cannot change")

// ClaimChange is a claim before and after a change the tracker made (nil
// Old: created; nil New: deleted).
type ClaimChange struct {
	Old, New *resourceapi.ResourceClaim
}

// SetClass adds or replaces a class (validated); it returns the previous
// version, nil if there was none.
func (t *Tracker) SetClass(c *resourceapi.DeviceClass) *resourceapi.DeviceClass {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.objs.Classes[c.Name]
	t.objs.Classes[c.Name] = c
	t.devicesChangedLocked()
	return old
}

// DeleteClass removes a class and returns it, nil if unknown.
func (t *Tracker) DeleteClass(name string) *resourceapi.DeviceClass {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.objs.Classes[name]
	delete(t.objs.Classes, name)
	t.devicesChangedLocked()
	return old
}

// SetSlice adds or replaces a slice (validated); it returns the previous
// version, nil if there was none.
func (t *Tracker) SetSlice(s *resourceapi.ResourceSlice) *resourceapi.ResourceSlice {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.objs.Slices[s.Name]
	t.objs.Slices[s.Name] = s
	t.memo.forget(old)
	t.memo.admit(s)
	t.devicesChangedLocked()
	return old
}

// DeleteSlice removes a slice and returns it, nil if unknown. Claims
// allocated from its devices stay allocated (as in kube).
func (t *Tracker) DeleteSlice(name string) *resourceapi.ResourceSlice {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.objs.Slices[name]
	delete(t.objs.Slices, name)
	t.memo.forget(old)
	t.devicesChangedLocked()
	return old
}

// SetTemplate adds or replaces a claim template (validated, defaulted);
// it returns the previous version, nil if there was none. Claims already
// made from it keep their spec.
func (t *Tracker) SetTemplate(tm *resourceapi.ResourceClaimTemplate) *resourceapi.ResourceClaimTemplate {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := Key(tm.Namespace, tm.Name)
	old := t.objs.Templates[key]
	t.objs.Templates[key] = tm
	return old
}

// DeleteTemplate removes a template and returns it, nil if unknown.
func (t *Tracker) DeleteTemplate(namespace, name string) *resourceapi.ResourceClaimTemplate {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := Key(namespace, name)
	old := t.objs.Templates[key]
	delete(t.objs.Templates, key)
	return old
}

// SetClaim adds or replaces a claim (validated, defaulted). Berth
// allocates claims, so a claim sent without an allocation keeps the
// allocation and consumers the tracker holds; one sent with an allocation
// is taken as it is (allocated before Berth saw it). Changing the spec of
// an allocated claim is ErrClaimSpecImmutable.
func (t *Tracker) SetClaim(c *resourceapi.ResourceClaim) (ClaimChange, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := Key(c.Namespace, c.Name)
	old := t.objs.Claims[key]
	if old == nil {
		t.objs.Claims[key] = c
		t.allocationsChangedLocked()
		return ClaimChange{New: c}, nil
	}
	if old.Status.Allocation != nil && !equality.Semantic.DeepEqual(old.Spec, c.Spec) {
		return ClaimChange{}, fmt.Errorf("claim %s: %w", key, ErrClaimSpecImmutable)
	}
	cur := c
	if c.Status.Allocation == nil && old.Status.Allocation != nil {
		cur = c.DeepCopy()
		cur.Status = *old.Status.DeepCopy()
	}
	t.objs.Claims[key] = cur
	if !equality.Semantic.DeepEqual(old.Status.Allocation, cur.Status.Allocation) {
		t.allocationsChangedLocked()
	}
	return ClaimChange{Old: old, New: cur}, nil
}

// DeleteClaim removes a claim, with any allocation in flight for it, and
// returns it (its in-flight version if it had one), nil if unknown.
func (t *Tracker) DeleteClaim(namespace, name string) *resourceapi.ResourceClaim {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := Key(namespace, name)
	old, _ := t.claimLocked(key)
	t.allocationsChangedLocked()
	delete(t.objs.Claims, key)
	delete(t.inFlight, key)
	delete(t.flightGroup, key)
	return old
}

// Restore loads claims a server kept durably (allocated, with their
// consumers) as they are, before the objects are sent again after a
// restart: their devices stay taken and a claim sent again without an
// allocation keeps this one (SetClaim).
func (t *Tracker) Restore(claims []*resourceapi.ResourceClaim) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range claims {
		t.objs.Claims[Key(c.Namespace, c.Name)] = c
	}
	t.allocationsChangedLocked()
}

// Claims lists every claim, its version in flight where there is one,
// sorted by namespace/name.
func (t *Tracker) Claims() []*resourceapi.ResourceClaim {
	t.mu.Lock()
	out := t.claimsLocked()
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b *resourceapi.ResourceClaim) int {
		if a.Namespace != b.Namespace {
			return compare(a.Namespace, b.Namespace)
		}
		return compare(a.Name, b.Name)
	})
	return out
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Classes lists the device classes by name.
func (t *Tracker) Classes() []*resourceapi.DeviceClass {
	t.mu.Lock()
	defer t.mu.Unlock()
	out, _ := t.objs.List()
	return out
}

// Slices lists the resource slices by name.
func (t *Tracker) Slices() []*resourceapi.ResourceSlice {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.objs.SliceList()
}

// Templates lists the claim templates by namespace/name.
func (t *Tracker) Templates() []*resourceapi.ResourceClaimTemplate {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make([]string, 0, len(t.objs.Templates))
	for k := range t.objs.Templates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*resourceapi.ResourceClaimTemplate, len(keys))
	for i, k := range keys {
		out[i] = t.objs.Templates[k]
	}
	return out
}

// HasClass reports whether a class exists.
func (t *Tracker) HasClass(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.objs.Classes[name]
	return ok
}

// ClaimFor returns the claim as pod's PreFilter sees it: as committed, or
// with the allocation a member of pod's group put in flight (shared in
// the group's cycle); wait is true when another pod's allocation of it
// is in flight, which pod must wait for (kube: "in the process of being
// allocated").
func (t *Tracker) ClaimFor(pod *model.Pod, namespace, name string) (c *resourceapi.ResourceClaim, wait, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := Key(namespace, name)
	c, ok = t.objs.Claims[key]
	if !ok {
		return nil, false, false
	}
	f, flying := t.inFlight[key]
	switch {
	case !flying || c.Status.Allocation != nil || ReservedFor(f, pod.UID):
		return c, false, true
	case t.mustWaitLocked(key, pod):
		return c, true, true
	}
	return f, false, true
}

// CommittedClaim returns a claim as committed, ignoring any allocation in
// flight.
func (t *Tracker) CommittedClaim(namespace, name string) (*resourceapi.ResourceClaim, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.objs.Claims[Key(namespace, name)]
	return c, ok
}

// BindClaims returns the pod's claims that list it as consumer, in the
// order of its entries, each once: the version in flight where there is
// one (what Commit commits), else the committed one (a claim a group-mate
// committed with the pod among its consumers). A bind carries them.
func (t *Tracker) BindClaims(pod *model.Pod) []*resourceapi.ResourceClaim {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*resourceapi.ResourceClaim
	for _, e := range pod.ResourceClaims {
		key := Key(pod.Namespace, e.ClaimName)
		c, ok := t.inFlight[key]
		if !ok || !ReservedFor(c, pod.UID) {
			c, ok = t.objs.Claims[key]
		}
		if ok && ReservedFor(c, pod.UID) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Deallocate removes the allocation and consumers of a claim reserved by
// nobody but pod (kube's DynamicResources PostFilter, for a claim
// allocated on nodes the pod cannot use). It returns the change, false
// when the claim is not allocated, has another consumer or is in flight.
func (t *Tracker) Deallocate(namespace, name, podUID string) (ClaimChange, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := Key(namespace, name)
	old, ok := t.objs.Claims[key]
	if _, flying := t.inFlight[key]; !ok || flying || old.Status.Allocation == nil {
		return ClaimChange{}, false
	}
	for _, r := range old.Status.ReservedFor {
		if string(r.UID) != podUID {
			return ClaimChange{}, false
		}
	}
	cur := old.DeepCopy()
	cur.Status.Allocation, cur.Status.ReservedFor, cur.Status.Devices = nil, nil, nil
	t.objs.Claims[key] = cur
	t.allocationsChangedLocked()
	return ClaimChange{Old: old, New: cur}, true
}

// ForgetConsumers drops, from every claim, the consumers for which held
// is false (pods deleted while the scheduler was down, restored with
// their claims), deletes the claims made for such pods and deallocates
// claims left without consumers. It returns the changes, sorted by claim.
func (t *Tracker) ForgetConsumers(held func(uid string) bool) []ClaimChange {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.allocationsChangedLocked()
	keys := make([]string, 0, len(t.objs.Claims))
	for k := range t.objs.Claims {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []ClaimChange
	for _, key := range keys {
		c := t.objs.Claims[key]
		if owner := controller(c); owner != "" && !held(owner) {
			delete(t.objs.Claims, key)
			delete(t.inFlight, key)
			delete(t.flightGroup, key)
			out = append(out, ClaimChange{Old: c})
			continue
		}
		cur := withoutConsumers(c, held)
		if len(cur.Status.ReservedFor) == len(c.Status.ReservedFor) {
			continue
		}
		if len(cur.Status.ReservedFor) == 0 {
			cur.Status.Allocation, cur.Status.Devices = nil, nil
		}
		t.objs.Claims[key] = cur
		out = append(out, ClaimChange{Old: c, New: cur})
	}
	return out
}

// controller is the UID of the pod controlling the claim, "" if none.
func controller(c *resourceapi.ResourceClaim) string {
	for _, o := range c.OwnerReferences {
		if o.Controller != nil && *o.Controller && o.Kind == "Pod" {
			return string(o.UID)
		}
	}
	return ""
}
