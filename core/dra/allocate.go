package dra

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

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
	claims []*resourceapi.ResourceClaim
	inUse  sets.Set[structured.DeviceID]
	// plain is kube's allocator on the claims as they are; stripped, on
	// strippedClaims, serves the nodes where every device it sees matches
	// every selector of the claims (filter.go; nil without the filter).
	// Each is made on first use, but the one the first nodes are likely to
	// need, so that an error preparing it is the attempt's as in kube.
	plain, stripped lazyAllocator
	strippedClaims  []*resourceapi.ResourceClaim
	// onNode makes an allocator that sees only the given slices, for a
	// node whose devices are all its own and plain (see allocate).
	onNode       func(slices []*resourceapi.ResourceSlice, stripped bool) (structured.Allocator, error)
	forAllocator []*resourceapi.ResourceSlice // the slices as the allocator gets them, in view order
	view         *attemptView                 // nil: no shortcut
	pre          *precheck                    // nil: every node goes to the allocator
	answers      *claimAnswers                // answers kept per node for these claims' specs (nodememo.go); nil: none kept
}

// lazyAllocator is a structured allocator made on first use.
type lazyAllocator struct {
	once  sync.Once
	make  func() (structured.Allocator, error)
	alloc structured.Allocator
	err   error
}

func (l *lazyAllocator) get() (structured.Allocator, error) {
	l.once.Do(func() {
		if l.alloc, l.err = l.make(); l.err != nil {
			l.err = fmt.Errorf("preparing the device allocator: %w", l.err)
		}
	})
	return l.alloc, l.err
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
	a := &Allocator{claims: claims, inUse: inUse.AllocatedDevices}
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
	a.forAllocator = forAllocator
	a.plain.make = func() (structured.Allocator, error) {
		return structured.NewAllocator(ctx, Features(), *inUse, objs, forAllocator, cache)
	}
	var stripped *strippedClasses
	if a.view != nil && short.FilterSlices {
		stripped = newStrippedClasses(objs, as)
		a.stripped.make = func() (structured.Allocator, error) {
			return structured.NewAllocator(ctx, Features(), *inUse, stripped, forAllocator, cache)
		}
		a.strippedClaims = stripSelectors(claims)
	}
	if a.view != nil && !a.view.shared {
		a.onNode = func(slices []*resourceapi.ResourceSlice, strip bool) (structured.Allocator, error) {
			var classes structured.DeviceClassLister = objs
			if strip {
				classes = stripped
			}
			return structured.NewAllocator(ctx, Features(), *inUse, classes, slices, cache)
		}
	}
	// An allocator that cannot be made is the attempt's error, as in kube.
	if _, err := structured.NewAllocator(ctx, Features(), *inUse, objs, nil, cache); err != nil {
		return nil, fmt.Errorf("preparing the device allocator: %w", err)
	}
	if a.view != nil && short.Precheck {
		a.pre = newPrecheck(a.view, objs, inUse, claims)
	}
	if a.view != nil && short.NodeMemo && objs.gen != 0 && !a.view.shared {
		if key, ok := claimsKey(claims); ok {
			a.answers = memo.answersFor(key, objs.gen, a.view)
		}
	}
	return a, nil
}

// Allocate returns one allocation result per claim, in the claims' order,
// for node; ok is false when they cannot all be allocated there. An error
// is not about this node only (ErrNodeInfeasible never comes out of it).
// The results may be shared with other attempts (the node memo): they
// are read only.
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
	return a.AllocateOn(ctx, node.Name, func() *corev1.Node { return node }, 0)
}

// AllocateOn is AllocateOnNode for the node of that name, made by node
// only if the allocator runs, with the allocator's run limited to timeout
// (0: no limit): an answer the shortcuts give needs neither.
func (a *Allocator) AllocateOn(ctx context.Context, name string, node func() *corev1.Node, timeout time.Duration) (results []resourceapi.AllocationResult, reason string, err error) {
	// A stopped context is the allocator's to report.
	stopped := ctx.Err() != nil
	var facts *nodeFacts
	var taken uint64
	if a.view != nil {
		if facts = a.view.nodes[name]; facts != nil {
			taken = facts.taken(a.inUse)
		}
	}
	if a.pre != nil && !stopped && a.pre.infeasible(name, facts, taken) {
		return nil, CannotAllocate, nil
	}
	remember := a.answers != nil && facts != nil && !facts.multi
	if remember && !stopped {
		if ans, hit := a.answers.get(facts, taken); hit {
			return ans.results, ans.reason, nil
		}
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res, reason, err := a.allocate(ctx, node(), facts != nil)
	if remember && err == nil && ctx.Err() == nil {
		a.answers.put(facts, nodeAnswer{taken: taken, results: res, reason: reason})
	}
	return res, reason, err
}

// allocate runs the allocator on node. Where no slice is shared and the
// node's are plain, what the allocator reads for the node is its slices
// only (each a complete pool of its own, without counters), so it gets
// an allocator made of them, which costs nothing to make; otherwise the
// attempt's, made of every slice.
func (a *Allocator) allocate(ctx context.Context, node *corev1.Node, plainNode bool) (results []resourceapi.AllocationResult, reason string, err error) {
	strip := a.stripped.make != nil && a.view.uniformOn(node.Name)
	lazy, claims := &a.plain, a.claims
	if strip {
		lazy, claims = &a.stripped, a.strippedClaims
	}
	var alloc structured.Allocator
	if a.onNode != nil && (plainNode || !a.view.mixed.Has(node.Name)) {
		own := make([]*resourceapi.ResourceSlice, 0, len(a.view.onNode[node.Name]))
		for _, i := range a.view.onNode[node.Name] {
			own = append(own, a.forAllocator[i])
		}
		alloc, err = a.onNode(own, strip)
	} else {
		alloc, err = lazy.get()
	}
	if err != nil {
		return nil, "", err
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
