package dra

import (
	"context"
	"strconv"
	"strings"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// SelectorMemo remembers, per slice object, which of its devices match a
// set of CEL selectors, and the filtered copies of the slice handed to the
// allocator (filter.go). kube's allocator remembers matches only within
// one Allocate call (one node, one pod), so it evaluates every selector on
// every device of every node it tries, for every pod. A slice is never
// modified (an update replaces the object), so while a slice is stored
// its devices' results cannot change; the tracker forgets a slice's
// entry when it replaces or deletes the slice. Safe for concurrent use.
type SelectorMemo struct {
	mu      sync.Mutex
	bySlice map[*resourceapi.ResourceSlice]*sliceMemo
	// attempts are attempt views by their selector sets' key (filter.go).
	attempts map[string]cachedView
	// answers are the allocator's answers per node, by claims' key
	// (nodememo.go).
	answers map[string]*claimAnswers
}

// maxSetsPerSlice bounds what one slice remembers: claims whose selectors
// are all different (one per device, say) would otherwise grow the memo
// without end. Past it the slice starts over.
const maxSetsPerSlice = 64

// sliceMemo is what the memo knows of one slice object.
type sliceMemo struct {
	shape sliceShape
	ids   []structured.DeviceID    // the devices' IDs, made on first use
	sets  map[string]*setVerdict   // by selectorSet.key
	views map[string]*filteredView // by the attempt's key (filter.go)
}

// sliceShape is what decides, once per slice, whether the precheck and
// the filter may look at it.
type sliceShape struct {
	// plain: a pool of this one slice, no counters, no per-device node
	// selection, unique device names (the precheck's condition; the pool
	// count is the attempt's).
	plain bool
	// filterable: removing devices that no request can use changes
	// nothing else the allocator reads: no counters (an allocated device
	// left out would stop consuming them), no per-device node selection
	// (the slice's relevance to a node depends on its devices), no binding
	// conditions (they order the pools), unique names (a duplicate makes
	// the pool invalid).
	filterable bool
	// multi: some device may be allocated several times (consumable
	// capacity), so what is taken of it is more than a yes or no.
	multi bool
}

func shapeOf(s *resourceapi.ResourceSlice) sliceShape {
	uniqueNames := true
	names := make(sets.Set[string], len(s.Spec.Devices))
	counters, binding, multi := len(s.Spec.SharedCounters) > 0, false, false
	for _, d := range s.Spec.Devices {
		if names.Has(d.Name) {
			uniqueNames = false
		}
		names.Insert(d.Name)
		counters = counters || len(d.ConsumesCounters) > 0
		binding = binding || d.BindingConditions != nil || d.BindingFailureConditions != nil
		multi = multi || ptr.Deref(d.AllowMultipleAllocations, false)
	}
	perDevice := ptr.Deref(s.Spec.PerDeviceNodeSelection, false)
	return sliceShape{
		plain:      uniqueNames && !counters && !perDevice && s.Spec.Pool.ResourceSliceCount == 1,
		filterable: uniqueNames && !counters && !perDevice && !binding,
		multi:      multi,
	}
}

// selectorSet is what a device must match to serve one request or
// subrequest: its class's CEL selectors, then its own, in the order the
// allocator evaluates them.
type selectorSet struct {
	exprs []string
	key   string // exprs, each length-prefixed: distinct sets, distinct keys
}

func newSelectorSet(exprs []string) selectorSet {
	var b strings.Builder
	for _, e := range exprs {
		b.WriteString(strconv.Itoa(len(e)))
		b.WriteByte(':')
		b.WriteString(e)
	}
	return selectorSet{exprs: exprs, key: b.String()}
}

// setVerdict is, for each device of a slice, whether it matches every
// selector of a set; ok is false when some evaluation failed (a compile or
// runtime error), which only the allocator may report: then nothing is
// concluded from the set on that slice.
type setVerdict struct {
	match []bool
	ok    bool
}

// NewSelectorMemo returns an empty memo.
func NewSelectorMemo() *SelectorMemo {
	return &SelectorMemo{bySlice: map[*resourceapi.ResourceSlice]*sliceMemo{}, attempts: map[string]cachedView{}, answers: map[string]*claimAnswers{}}
}

// admit makes an entry for a slice the tracker stores; only admitted
// slices are remembered, so a slice forgotten while an attempt still
// reads it is not remembered again (it would never be forgotten).
func (m *SelectorMemo) admit(s *resourceapi.ResourceSlice) {
	if m == nil || s == nil {
		return
	}
	m.mu.Lock()
	if m.bySlice[s] == nil {
		m.bySlice[s] = &sliceMemo{shape: shapeOf(s)}
	}
	m.mu.Unlock()
}

// forget drops what is known of a slice that is replaced or deleted.
func (m *SelectorMemo) forget(s *resourceapi.ResourceSlice) {
	if m == nil || s == nil {
		return
	}
	m.mu.Lock()
	delete(m.bySlice, s)
	m.mu.Unlock()
}

// deviceIDs returns the allocator's IDs of the slice's devices, in order.
func (m *SelectorMemo) deviceIDs(s *resourceapi.ResourceSlice) []structured.DeviceID {
	m.mu.Lock()
	var ids []structured.DeviceID
	if e := m.bySlice[s]; e != nil {
		ids = e.ids
	}
	m.mu.Unlock()
	if ids != nil {
		return ids
	}
	ids = make([]structured.DeviceID, len(s.Spec.Devices))
	for i, d := range s.Spec.Devices {
		ids[i] = structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name)
	}
	m.mu.Lock()
	if e := m.bySlice[s]; e != nil {
		if e.ids == nil {
			e.ids = ids
		}
		ids = e.ids
	}
	m.mu.Unlock()
	return ids
}

// verdict returns which devices of s match every selector of set,
// evaluating them on first use.
func (m *SelectorMemo) verdict(ctx context.Context, cache *cel.Cache, s *resourceapi.ResourceSlice, set selectorSet) *setVerdict {
	m.mu.Lock()
	var v *setVerdict
	if e := m.bySlice[s]; e != nil {
		v = e.sets[set.key]
	}
	m.mu.Unlock()
	if v != nil {
		return v
	}
	v = evaluate(ctx, cache, s, set)
	if !v.ok && ctx.Err() != nil {
		return v // maybe the stopped context's doing: not the slice's answer
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.bySlice[s]
	if e == nil {
		return v
	}
	if prev := e.sets[set.key]; prev != nil {
		return prev // another goroutine got there first: one answer for all
	}
	if len(e.sets) >= maxSetsPerSlice {
		e.sets, e.views = nil, nil
	}
	if e.sets == nil {
		e.sets = map[string]*setVerdict{}
	}
	e.sets[set.key] = v
	return v
}

// evaluate runs set's selectors on every device of s as the allocator
// does: in order, stopping at the first that does not match.
func evaluate(ctx context.Context, cache *cel.Cache, s *resourceapi.ResourceSlice, set selectorSet) *setVerdict {
	progs := make([]cel.CompilationResult, len(set.exprs))
	for i, expr := range set.exprs {
		progs[i] = cache.GetOrCompile(expr)
		if progs[i].Error != nil {
			return &setVerdict{}
		}
	}
	v := &setVerdict{match: make([]bool, len(s.Spec.Devices)), ok: true}
	for i := range s.Spec.Devices {
		d := &s.Spec.Devices[i]
		all := true
		for _, p := range progs {
			match, _, err := p.DeviceMatches(ctx, cel.Device{Driver: s.Spec.Driver, AllowMultipleAllocations: d.AllowMultipleAllocations, Attributes: d.Attributes, Capacity: d.Capacity})
			if err != nil {
				return &setVerdict{}
			}
			if !match {
				all = false
				break
			}
		}
		v.match[i] = all
	}
	return v
}
