package dra

import (
	"context"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// SelectorMemo remembers whether a device matches a CEL selector, per
// slice object. kube's allocator remembers matches only within one
// Allocate call (one node, one pod), so it evaluates every selector on
// every device of every node it tries, for every pod. A slice is never
// modified (an update replaces the object), so while a slice is stored
// its devices' results cannot change; the tracker forgets a slice's
// results when it replaces or deletes the slice. Safe for concurrent use.
type SelectorMemo struct {
	mu      sync.Mutex
	bySlice map[*resourceapi.ResourceSlice]map[memoKey]bool
}

type memoKey struct {
	expr   string
	device int
}

// NewSelectorMemo returns an empty memo.
func NewSelectorMemo() *SelectorMemo {
	return &SelectorMemo{bySlice: map[*resourceapi.ResourceSlice]map[memoKey]bool{}}
}

// forget drops the results of a slice that is replaced or deleted.
func (m *SelectorMemo) forget(s *resourceapi.ResourceSlice) {
	if m == nil || s == nil {
		return
	}
	m.mu.Lock()
	delete(m.bySlice, s)
	m.mu.Unlock()
}

// matches evaluates expr on device i of s, as the allocator does; ok is
// false when it cannot say (a compile or runtime error, which only the
// allocator may report).
func (m *SelectorMemo) matches(ctx context.Context, cache *cel.Cache, s *resourceapi.ResourceSlice, i int, expr string) (match, ok bool) {
	k := memoKey{expr, i}
	m.mu.Lock()
	match, ok = m.bySlice[s][k]
	m.mu.Unlock()
	if ok {
		return match, true
	}
	c := cache.GetOrCompile(expr)
	if c.Error != nil {
		return false, false
	}
	d := &s.Spec.Devices[i]
	match, _, err := c.DeviceMatches(ctx, cel.Device{Driver: s.Spec.Driver, AllowMultipleAllocations: d.AllowMultipleAllocations, Attributes: d.Attributes, Capacity: d.Capacity})
	if err != nil {
		return false, false
	}
	m.mu.Lock()
	if m.bySlice[s] == nil {
		m.bySlice[s] = map[memoKey]bool{}
	}
	m.bySlice[s][k] = match
	m.mu.Unlock()
	return match, true
}

// precheck rules out nodes where the allocator would certainly answer
// CannotAllocate, cheaply: some request has fewer free devices on the
// node matching its class's and its own selectors than it asks for. It is
// only a necessary condition (constraints, taints, capacity and the
// requests' competition for devices are the allocator's), so a node that
// passes still goes to the allocator. It applies only where the
// allocator's answer for a failing node is exactly CannotAllocate: every
// request ExactCount without admin access (admin access may use taken
// devices), and the node's devices all in plain pools (one slice each,
// no counters, no per-device node selection, unique device names), so no
// pool is incomplete or invalid and no shared slice adds devices.
type precheck struct {
	memo   *SelectorMemo
	cache  *cel.Cache
	inUse  sets.Set[structured.DeviceID]
	onNode map[string][]*resourceapi.ResourceSlice
	// mixed are the nodes with a slice that is not plain: no precheck.
	mixed    sets.Set[string]
	requests []precheckRequest
}

type precheckRequest struct {
	selectors []string // the class's, then the request's
	count     int64
}

// newPrecheck returns the precheck for claims, nil where it does not apply.
func newPrecheck(memo *SelectorMemo, cache *cel.Cache, objs *Objects, inUse *structured.AllocatedState, claims []*resourceapi.ResourceClaim) *precheck {
	if memo == nil {
		return nil
	}
	p := &precheck{memo: memo, cache: cache, inUse: inUse.AllocatedDevices, onNode: map[string][]*resourceapi.ResourceSlice{}, mixed: sets.New[string]()}
	for _, c := range claims {
		var total int64
		for _, r := range c.Spec.Devices.Requests {
			e := r.Exactly
			if e == nil || e.AllocationMode != resourceapi.DeviceAllocationModeExactCount || ptr.Deref(e.AdminAccess, false) {
				return nil
			}
			class, ok := objs.Classes[e.DeviceClassName]
			if !ok {
				return nil
			}
			var sel []string
			for _, s := range append(class.Spec.Selectors[:len(class.Spec.Selectors):len(class.Spec.Selectors)], e.Selectors...) {
				if s.CEL == nil {
					return nil
				}
				sel = append(sel, s.CEL.Expression)
			}
			total += e.Count
			p.requests = append(p.requests, precheckRequest{selectors: sel, count: e.Count})
		}
		if total > resourceapi.AllocationResultsMaxSize {
			return nil // the allocator's error, on every node
		}
	}
	type poolID struct{ driver, pool string }
	pools := map[poolID]int{}
	for _, s := range objs.Slices {
		pools[poolID{s.Spec.Driver, s.Spec.Pool.Name}]++
	}
	for _, s := range objs.Slices {
		node := ptr.Deref(s.Spec.NodeName, "")
		if node == "" || len(s.Spec.SharedCounters) > 0 {
			return nil // shared slices: any node may get their devices
		}
		if !plainSlice(s) || pools[poolID{s.Spec.Driver, s.Spec.Pool.Name}] != 1 {
			p.mixed.Insert(node)
		}
		p.onNode[node] = append(p.onNode[node], s)
	}
	return p
}

func plainSlice(s *resourceapi.ResourceSlice) bool {
	if s.Spec.Pool.ResourceSliceCount != 1 || ptr.Deref(s.Spec.PerDeviceNodeSelection, false) {
		return false
	}
	names := make(sets.Set[string], len(s.Spec.Devices))
	for _, d := range s.Spec.Devices {
		if len(d.ConsumesCounters) > 0 || names.Has(d.Name) {
			return false
		}
		names.Insert(d.Name)
	}
	return true
}

// infeasible reports whether some request surely cannot be met on node.
func (p *precheck) infeasible(ctx context.Context, node string) bool {
	if p.mixed.Has(node) {
		return false
	}
	for _, r := range p.requests {
		var free int64
		for _, s := range p.onNode[node] {
			// Every device, taken or not: the allocator may evaluate any
			// of them, and an error must remain its to report.
			for i, d := range s.Spec.Devices {
				all := true
				for _, expr := range r.selectors {
					m, ok := p.memo.matches(ctx, p.cache, s, i, expr)
					if !ok {
						return false
					}
					if !m {
						all = false
						break
					}
				}
				if all && !p.inUse.Has(structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name)) {
					free++
				}
			}
		}
		if free < r.count {
			return true
		}
	}
	return false
}
