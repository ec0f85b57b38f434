package dra

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// ErrNodeInfeasible wraps an allocation failure that concerns one node
// only (the claims cannot be allocated there); any other error from
// Allocate concerns the whole attempt (for example a CEL runtime error).
var ErrNodeInfeasible = structured.ErrFailedAllocationOnNode

// AllocatedState is the set of devices in use: those of allocated claims
// and of claims being allocated (in flight), as the structured allocator
// wants it. Results with admin access do not take their device.
func AllocatedState(claims []*resourceapi.ResourceClaim) *structured.AllocatedState {
	st := &structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	for _, c := range claims {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			if r.AdminAccess != nil && *r.AdminAccess {
				continue
			}
			id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
			if r.ShareID == nil {
				st.AllocatedDevices.Insert(id)
				continue
			}
			st.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, r.ShareID))
			if r.ConsumedCapacity != nil {
				st.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
			}
		}
	}
	return st
}

// Allocator allocates one pod's unallocated claims on a node at a time; it
// is made once per scheduling attempt and may be used concurrently.
type Allocator struct {
	alloc  structured.Allocator
	claims []*resourceapi.ResourceClaim
	pre    *precheck // nil: every node goes to the allocator
	// stripped, given strippedClaims, serves the nodes where every device
	// it sees matches every selector of the claims (filter.go); nil: alloc
	// serves every node.
	stripped       structured.Allocator
	strippedClaims []*resourceapi.ResourceClaim
	view           *attemptView
	// answers are the allocator's answers kept per node for these
	// claims' specs (nodememo.go); nil: none kept.
	answers *claimAnswers
	inUse   sets.Set[structured.DeviceID]
}

// Shortcuts are Berth's ways around the allocator's work that keep its
// answers; each can be turned off, so that tests can compare.
type Shortcuts struct {
	// Precheck answers CannotAllocate for nodes where some request has
	// fewer free matching devices than it asks for (precheck.go).
	Precheck bool
	// FilterSlices hands the allocator the slices without the devices no
	// request can match, and claims without selectors where every device
	// left matches them all (filter.go).
	FilterSlices bool
	// NodeMemo gives again the allocator's answer on a node for claims of
	// the same specs while the node's slices, the classes and the devices
	// taken on it are the same (nodememo.go).
	NodeMemo bool
}

// AllShortcuts turns every shortcut on.
func AllShortcuts() Shortcuts { return Shortcuts{Precheck: true, FilterSlices: true, NodeMemo: true} }

// NewAllocator prepares the allocation of claims (unallocated, defaulted)
// given the objects and the devices already in use (AllocatedState of the
// allocated and in-flight claims). With a memo, the shortcuts turned on
// in short apply, with the selector verdicts the memo keeps for the
// slices its tracker holds; without, every node goes to the allocator as
// kube sends it.
func NewAllocator(ctx context.Context, objs *Objects, inUse *structured.AllocatedState, cache *cel.Cache, memo *SelectorMemo, short Shortcuts, claims []*resourceapi.ResourceClaim) (*Allocator, error) {
	list := objs.sortedSlices()
	a := &Allocator{claims: claims}
	var as *attemptSelectors
	if memo != nil && (short.Precheck || short.FilterSlices || short.NodeMemo) {
		var ok bool
		if as, ok = selectorsOf(objs, claims); ok {
			a.view = memo.attemptView(ctx, cache, list, objs.gen, as)
		}
	}
	forAllocator := list
	if a.view != nil && short.FilterSlices {
		forAllocator = a.view.slices
	}
	alloc, err := structured.NewAllocator(ctx, Features(), *inUse, objs, forAllocator, cache)
	if err != nil {
		return nil, fmt.Errorf("preparing the device allocator: %w", err)
	}
	a.alloc = alloc
	if a.view != nil && short.FilterSlices {
		if a.stripped, err = newStrippedAllocator(ctx, objs, inUse, cache, as, a.view); err != nil {
			return nil, fmt.Errorf("preparing the device allocator: %w", err)
		}
		a.strippedClaims = stripSelectors(claims)
	}
	if a.view != nil && short.Precheck {
		a.pre = newPrecheck(a.view, objs, inUse, claims)
	}
	if a.view != nil && short.NodeMemo && objs.gen != 0 && !a.view.shared {
		if key, ok := claimsKey(claims); ok {
			a.answers, a.inUse = memo.answersFor(key, objs.gen), inUse.AllocatedDevices
		}
	}
	return a, nil
}

// Allocate returns one allocation result per claim, in the claims' order,
// for node; ok is false when they cannot all be allocated there. An error
// is not about this node only (ErrNodeInfeasible never comes out of it).
func (a *Allocator) Allocate(ctx context.Context, node *corev1.Node) (results []resourceapi.AllocationResult, ok bool, err error) {
	res, reason, err := a.AllocateOnNode(ctx, node)
	return res, reason == "" && err == nil, err
}

// CannotAllocate is kube's reason for a node where the claims cannot all
// be allocated.
const CannotAllocate = "cannot allocate all claims"

// AllocateOnNode is Allocate with kube's reason for a node that does not
// fit: CannotAllocate, or the allocator's own message for a failure about
// the node (invalid resource pools); "" when the claims fit.
func (a *Allocator) AllocateOnNode(ctx context.Context, node *corev1.Node) (results []resourceapi.AllocationResult, reason string, err error) {
	// A stopped context is the allocator's to report.
	if a.pre != nil && ctx.Err() == nil && a.pre.infeasible(node.Name) {
		return nil, CannotAllocate, nil
	}
	taken, ans, remember, hit := a.remembered(node.Name)
	if hit && ctx.Err() == nil {
		return ans.results, ans.reason, nil
	}
	res, reason, err := a.allocate(ctx, node)
	if remember && err == nil && ctx.Err() == nil {
		a.answers.put(node.Name, nodeAnswer{taken: taken, results: res, reason: reason})
	}
	return res, reason, err
}

// allocate runs the allocator on node.
func (a *Allocator) allocate(ctx context.Context, node *corev1.Node) (results []resourceapi.AllocationResult, reason string, err error) {
	alloc, claims := a.alloc, a.claims
	if a.stripped != nil && a.view.uniformOn(node.Name) {
		alloc, claims = a.stripped, a.strippedClaims
	}
	res, err := alloc.Allocate(ctx, node, claims)
	switch {
	case errors.Is(err, ErrNodeInfeasible):
		return nil, err.Error(), nil
	case err != nil:
		return nil, "", err
	case len(res) != len(a.claims):
		return nil, CannotAllocate, nil
	}
	return res, "", nil
}

// structuredID is the allocator's identity of an allocated device.
func structuredID(r resourceapi.DeviceRequestAllocationResult) structured.DeviceID {
	return structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
}
