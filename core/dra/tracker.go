package dra

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/berthsched/berth/core/model"
)

// ErrClaimMissing is returned for a pod whose claim does not exist (yet):
// the pod waits for it.
var ErrClaimMissing = errors.New("resource claim not found")

// ErrClaimInFlight is returned when a claim's allocation for another pod
// is in flight: the pod waits for it to be committed or forgotten, as kube
// rejects a pod whose claim "is in the process of being allocated".
var ErrClaimInFlight = errors.New("claim is in the process of being allocated")

// ErrDeviceTaken is returned when an allocation would take a device that
// is already allocated or being allocated: devices are never allocated
// twice.
var ErrDeviceTaken = errors.New("device already allocated")

// Tracker is the cluster's DRA state for a scheduler: the objects, the
// claims' allocations and consumers, and the allocations in flight
// (assumed in a scheduling cycle, not yet committed), which count as
// taken. It also plays the resourceclaim controller: a pod's template
// entries get their claims when the pod is added, deleted with the pod,
// and a claim whose last consumer is gone is deallocated. Safe for
// concurrent use; objects handed in or out are never modified.
type Tracker struct {
	mu       sync.Mutex
	objs     *Objects
	inFlight map[string]*resourceapi.ResourceClaim // claim key → the claim with its assumed allocation and consumers
	// flightGroup is, per claim in flight, the pod group of the pod that
	// put its allocation in flight ("" if none): the group's other
	// members share the allocation in the same group cycle.
	flightGroup map[string]string
	cel         *cel.Cache
	memo        *SelectorMemo // selector verdicts of the slices held, for the shortcuts
	short       Shortcuts
	taints      *taintRules // DeviceTaintRules, applied to the slices (taintrules.go)
	// devices is the classes and the slices as the allocator reads them,
	// shared by the attempts until one of them changes (nil: to make);
	// gen counts those changes.
	devices *Objects
	gen     uint64
	// inUse is the devices the allocated and in-flight claims take,
	// shared by the attempts until an allocation changes (nil: to make).
	inUse *structured.AllocatedState
}

// NewTracker returns an empty tracker.
func NewTracker(opts ...TrackerOption) *Tracker {
	t := &Tracker{objs: NewObjects(), inFlight: map[string]*resourceapi.ResourceClaim{}, flightGroup: map[string]string{}, cel: NewCELCache(), memo: NewSelectorMemo(), short: AllShortcuts(), taints: newTaintRules(), gen: 1}
	for _, o := range opts {
		o(t)
	}
	return t
}

// TrackerOption configures a Tracker.
type TrackerOption func(*Tracker)

// WithoutPrecheck sends every node to the allocator, as kube does,
// instead of ruling out those where the claims surely do not fit first
// (precheck.go); tests compare the two.
func WithoutPrecheck() TrackerOption { return func(t *Tracker) { t.short.Precheck = false } }

// WithoutSliceFilter hands the allocator every slice as it is and the
// claims with their selectors, as kube does, instead of the slices
// without the devices no request matches and, where every device left
// matches, claims without selectors (filter.go); tests compare the two.
func WithoutSliceFilter() TrackerOption { return func(t *Tracker) { t.short.FilterSlices = false } }

// WithoutNodeMemo runs the allocator on every node it is asked about, as
// kube does, instead of giving again its answer for claims of the same
// specs on a node whose devices did not change (nodememo.go); tests
// compare the two.
func WithoutNodeMemo() TrackerOption { return func(t *Tracker) { t.short.NodeMemo = false } }

// Load adds every object of objs (already validated and defaulted).
func (t *Tracker) Load(objs *Objects) {
	t.mu.Lock()
	defer t.mu.Unlock()
	maps.Copy(t.objs.Classes, objs.Classes)
	for name, s := range objs.Slices {
		t.memo.forget(t.objs.Slices[name])
		t.memo.admit(s)
	}
	maps.Copy(t.objs.Slices, objs.Slices)
	maps.Copy(t.objs.Claims, objs.Claims)
	maps.Copy(t.objs.Templates, objs.Templates)
	for _, r := range objs.TaintRules {
		t.taints.set(r, t.memo)
	}
	t.devicesChangedLocked()
	t.allocationsChangedLocked()
}

// devicesChangedLocked drops the shared classes and slices: a class, a
// slice or a taint rule changed.
func (t *Tracker) devicesChangedLocked() {
	t.devices = nil
	t.gen++
}

// allocationsChangedLocked drops the shared devices in use: a claim's
// allocation (committed or in flight) changed or may have.
func (t *Tracker) allocationsChangedLocked() { t.inUse = nil }

// Claim returns a claim by namespace and name: its assumed version while
// an allocation is in flight.
func (t *Tracker) Claim(namespace, name string) (*resourceapi.ResourceClaim, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.claimLocked(Key(namespace, name))
}

func (t *Tracker) claimLocked(key string) (*resourceapi.ResourceClaim, bool) {
	if c, ok := t.inFlight[key]; ok {
		return c, true
	}
	c, ok := t.objs.Claims[key]
	return c, ok
}

// PodClaims returns the claims of the pod's entries, in entry order; a
// claim named by two entries is returned once. A missing claim is
// ErrClaimMissing.
func (t *Tracker) PodClaims(pod *model.Pod) ([]*resourceapi.ResourceClaim, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*resourceapi.ResourceClaim
	seen := map[string]bool{}
	for _, e := range pod.ResourceClaims {
		key := Key(pod.Namespace, e.ClaimName)
		if seen[key] {
			continue
		}
		seen[key] = true
		c, ok := t.claimLocked(key)
		if !ok {
			return nil, fmt.Errorf("pod %s, entry %s: claim %s: %w", pod.Key(), e.Name, key, ErrClaimMissing)
		}
		out = append(out, c)
	}
	return out, nil
}

// AddPod makes the claims of the pod's template entries that do not exist
// yet (a copy of the template's spec, owned by the pod), as the
// resourceclaim controller does, and returns them. An entry whose
// template is missing makes none: the pod waits.
func (t *Tracker) AddPod(pod *model.Pod) []*resourceapi.ResourceClaim {
	t.mu.Lock()
	defer t.mu.Unlock()
	var made []*resourceapi.ResourceClaim
	for _, e := range pod.ResourceClaims {
		if e.TemplateName == "" {
			continue
		}
		key := Key(pod.Namespace, e.ClaimName)
		if _, ok := t.objs.Claims[key]; ok {
			continue
		}
		tmpl, ok := t.objs.Templates[Key(pod.Namespace, e.TemplateName)]
		if !ok {
			continue
		}
		c := &resourceapi.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: pod.Namespace, Name: e.ClaimName, UID: types.UID("resourceclaim-" + pod.Namespace + "-" + e.ClaimName),
				Labels:      tmpl.Spec.Labels,
				Annotations: map[string]string{resourceapi.PodResourceClaimAnnotation: e.Name},
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: types.UID(pod.UID), Controller: new(true),
				}},
			},
			Spec: *tmpl.Spec.Spec.DeepCopy(),
		}
		t.objs.Claims[key] = c
		made = append(made, c)
	}
	return made
}

// RemovePod is the pod gone: its in-flight allocations are dropped, it is
// removed from the consumers of its claims, the claims made for it are
// deleted, and a claim left without consumers is deallocated. It returns
// the claims changed, in the order of the pod's entries (Freed says
// which of them freed devices: the orchestrator's driver frees them).
func (t *Tracker) RemovePod(pod *model.Pod) []ClaimChange {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.forgetLocked(pod)
	defer t.allocationsChangedLocked()
	var out []ClaimChange
	for _, e := range pod.ResourceClaims {
		key := Key(pod.Namespace, e.ClaimName)
		c, ok := t.objs.Claims[key]
		if !ok {
			continue
		}
		if OwnedBy(c, pod.UID) {
			delete(t.objs.Claims, key)
			out = append(out, ClaimChange{Old: c})
			continue
		}
		if !ReservedFor(c, pod.UID) {
			continue
		}
		next := withoutConsumers(c, not(pod.UID))
		if len(next.Status.ReservedFor) == 0 && next.Status.Allocation != nil {
			next.Status.Allocation, next.Status.Devices = nil, nil
		}
		t.objs.Claims[key] = next
		out = append(out, ClaimChange{Old: c, New: next})
	}
	return out
}

// Freed reports whether the change took an allocation away (a
// deallocation, or an allocated claim deleted).
func (c ClaimChange) Freed() bool {
	return c.Old != nil && c.Old.Status.Allocation != nil && (c.New == nil || c.New.Status.Allocation == nil)
}

// OwnedBy reports whether the pod of that UID controls the claim (a claim
// made from a template for it).
func OwnedBy(c *resourceapi.ResourceClaim, uid string) bool {
	for _, o := range c.OwnerReferences {
		if o.Controller != nil && *o.Controller && string(o.UID) == uid {
			return true
		}
	}
	return false
}

// ReservedFor reports whether the pod of that UID is among the claim's
// consumers.
func ReservedFor(c *resourceapi.ResourceClaim, uid string) bool {
	for _, r := range c.Status.ReservedFor {
		if string(r.UID) == uid {
			return true
		}
	}
	return false
}

// withoutConsumers is a copy of c whose consumers are those keep accepts.
func withoutConsumers(c *resourceapi.ResourceClaim, keep func(uid string) bool) *resourceapi.ResourceClaim {
	n := c.DeepCopy()
	n.Status.ReservedFor = slices.DeleteFunc(n.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool {
		return !keep(string(r.UID))
	})
	return n
}

func not(uid string) func(string) bool { return func(u string) bool { return u != uid } }

// snapshotLocked is what the allocator reads: the classes and the slices,
// with the DeviceTaintRules applied (no claims nor templates), and the
// devices in use. Both are shared by the attempts until they change and
// must not be modified.
func (t *Tracker) snapshotLocked() (*Objects, *structured.AllocatedState) {
	if t.devices == nil {
		d := NewObjects()
		d.Classes, d.Slices = maps.Clone(t.objs.Classes), t.taints.slices(t.objs.Slices, t.memo)
		d.sorted, d.gen = d.SliceList(), t.gen
		t.devices = d
	}
	return t.devices, t.inUseLocked()
}

// inUseLocked returns the devices in use.
func (t *Tracker) inUseLocked() *structured.AllocatedState {
	if t.inUse == nil {
		t.inUse = AllocatedState(t.claimsLocked())
	}
	return t.inUse
}

// withAllocated returns st plus the devices of results, for claims newly
// in flight; nil when it cannot be done by adding (shared devices or
// consumed capacity: st is made anew then). st is not modified.
func withAllocated(st *structured.AllocatedState, results []*resourceapi.AllocationResult) *structured.AllocatedState {
	next := *st
	next.AllocatedDevices = st.AllocatedDevices.Clone()
	for _, res := range results {
		for _, r := range res.Devices.Results {
			if r.AdminAccess != nil && *r.AdminAccess {
				continue
			}
			if r.ShareID != nil || r.ConsumedCapacity != nil {
				return nil
			}
			next.AllocatedDevices.Insert(structuredID(r))
		}
	}
	return &next
}

// NewAllocator prepares allocating claims (unallocated ones) against a
// snapshot of the objects, with the devices of every allocated and
// in-flight claim taken.
func (t *Tracker) NewAllocator(ctx context.Context, claims []*resourceapi.ResourceClaim) (*Allocator, error) {
	t.mu.Lock()
	snap, inUse := t.snapshotLocked()
	t.mu.Unlock()
	return NewAllocator(ctx, snap, inUse, t.cel, t.memo, t.short, claims)
}

// claimsLocked lists every claim, the in-flight version where there is one.
func (t *Tracker) claimsLocked() []*resourceapi.ResourceClaim {
	out := make([]*resourceapi.ResourceClaim, 0, len(t.objs.Claims)+len(t.inFlight))
	for key, c := range t.objs.Claims {
		if _, ok := t.inFlight[key]; !ok {
			out = append(out, c)
		}
	}
	for _, c := range t.inFlight {
		out = append(out, c)
	}
	return out
}

// Assume puts allocations in flight for pod (Reserve): each claim gets its
// result and the pod as consumer. A device another claim holds or has in
// flight is ErrDeviceTaken and nothing is assumed. Claims already
// allocated only gain the pod as consumer (results[i] is ignored for them).
// A claim given twice (two entries of the pod name it) is assumed with its
// first result.
func (t *Tracker) Assume(pod *model.Pod, claims []*resourceapi.ResourceClaim, results []resourceapi.AllocationResult) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	taken := t.inUseLocked()
	next := make([]*resourceapi.ResourceClaim, 0, len(claims))
	var allocated []*resourceapi.AllocationResult
	seen := make(map[string]bool, len(claims))
	for i, c := range claims {
		if seen[Key(c.Namespace, c.Name)] {
			continue
		}
		seen[Key(c.Namespace, c.Name)] = true
		if t.mustWaitLocked(Key(c.Namespace, c.Name), pod) {
			return fmt.Errorf("claim %s/%s: %w", c.Namespace, c.Name, ErrClaimInFlight)
		}
		cur, ok := t.claimLocked(Key(c.Namespace, c.Name))
		if !ok {
			return fmt.Errorf("claim %s/%s: %w", c.Namespace, c.Name, ErrClaimMissing)
		}
		n := cur.DeepCopy()
		if n.Status.Allocation == nil {
			for _, r := range results[i].Devices.Results {
				if (r.AdminAccess == nil || !*r.AdminAccess) && taken.AllocatedDevices.Has(structuredID(r)) {
					return fmt.Errorf("claim %s/%s: %s/%s/%s: %w", c.Namespace, c.Name, r.Driver, r.Pool, r.Device, ErrDeviceTaken)
				}
			}
			n.Status.Allocation = results[i].DeepCopy()
			allocated = append(allocated, n.Status.Allocation)
		}
		if !ReservedFor(n, pod.UID) {
			n.Status.ReservedFor = append(n.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: types.UID(pod.UID)})
		}
		next = append(next, n)
	}
	for _, n := range next {
		key := Key(n.Namespace, n.Name)
		if _, flying := t.inFlight[key]; !flying {
			t.flightGroup[key] = groupOf(pod)
		}
		t.inFlight[key] = n
	}
	if len(allocated) > 0 {
		t.inUse = withAllocated(taken, allocated)
	}
	return nil
}

// groupOf is the pod's group key, "" for a pod of no group.
func groupOf(pod *model.Pod) string {
	if pod.SchedulingGroup == "" {
		return ""
	}
	return Key(pod.Namespace, pod.SchedulingGroup)
}

// mustWaitLocked reports whether the claim is in flight for other pods in
// a way pod cannot share: its allocation is being made for a pod outside
// pod's group. Reservations of an allocated claim in flight, and an
// allocation a member of pod's group put in flight, are shared.
func (t *Tracker) mustWaitLocked(key string, pod *model.Pod) bool {
	f, ok := t.inFlight[key]
	if !ok || ReservedFor(f, pod.UID) {
		return false
	}
	if c := t.objs.Claims[key]; c != nil && c.Status.Allocation != nil {
		return false
	}
	g := groupOf(pod)
	return g == "" || t.flightGroup[key] != g
}

// CommitAllocation makes the allocation in flight for the pod's claim
// the claim's state without the pod as consumer: the allocation was
// written, the reservation was not (kube's PreBind failing on a claim two
// entries of the pod name). The pod's other allocations stay in flight.
func (t *Tracker) CommitAllocation(pod *model.Pod, namespace, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := Key(namespace, name)
	c, ok := t.inFlight[key]
	if !ok || !ReservedFor(c, pod.UID) {
		return
	}
	t.objs.Claims[key] = withoutConsumers(c, not(pod.UID))
	delete(t.inFlight, key)
	delete(t.flightGroup, key)
}

// Forget drops the pod from the claims in flight for it (Unreserve); a
// claim in flight for no other pod is no longer in flight.
func (t *Tracker) Forget(pod *model.Pod) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.forgetLocked(pod)
}

func (t *Tracker) forgetLocked(pod *model.Pod) {
	t.allocationsChangedLocked()
	for _, key := range t.inFlightForLocked(pod) {
		f := t.inFlight[key]
		if f == nil {
			continue // an entry naming a claim another entry named
		}
		n := withoutConsumers(f, not(pod.UID))
		if len(n.Status.ReservedFor) == len(t.committedConsumersLocked(key)) {
			delete(t.inFlight, key)
			delete(t.flightGroup, key)
			continue
		}
		t.inFlight[key] = n
	}
}

// committedConsumersLocked are the consumers of the claim as committed.
func (t *Tracker) committedConsumersLocked(key string) []resourceapi.ResourceClaimConsumerReference {
	if c := t.objs.Claims[key]; c != nil {
		return c.Status.ReservedFor
	}
	return nil
}

// inFlightForLocked lists the keys of the pod's claims whose in-flight
// allocation is the pod's.
func (t *Tracker) inFlightForLocked(pod *model.Pod) []string {
	var out []string
	for _, e := range pod.ResourceClaims {
		key := Key(pod.Namespace, e.ClaimName)
		if c, ok := t.inFlight[key]; ok && ReservedFor(c, pod.UID) {
			out = append(out, key)
		}
	}
	return out
}

// Commit makes the pod's in-flight allocations the claims' state (the
// bind happened, or a restart restores it) and returns the changes.
func (t *Tracker) Commit(pod *model.Pod) []ClaimChange {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []ClaimChange
	for _, key := range t.inFlightForLocked(pod) {
		c, ok := t.inFlight[key]
		if !ok {
			continue // an entry naming a claim another entry named
		}
		out = append(out, ClaimChange{Old: t.objs.Claims[key], New: c})
		t.objs.Claims[key] = c
		delete(t.inFlight, key)
		delete(t.flightGroup, key)
	}
	return out
}
