package dra

import (
	"context"
	"slices"
	"strconv"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// The slice filter: kube's allocator evaluates the class's and the
// request's CEL selectors on the devices of every node it tries, for
// every pod, though a slice's answers never change. Berth hands it, per
// attempt, copies of the slices that hold only the devices some request
// of the attempt can match (by the memo's verdicts), made once per slice
// and set of selectors; and on a node where every device left matches
// every request, claims and classes without selectors, so the allocator
// evaluates no CEL at all there. Its answers are the same: a device no
// selector matches is one it would have skipped, and the selectors left
// out are true on every device it sees. Where that cannot be shown the
// slice goes as it is: a selector that fails on one of its devices (the
// error is the allocator's to report), counters (an allocated device left
// out would stop consuming them), per-device node selection, binding
// conditions, or device names repeated in its pool.

// attemptSelectors are the selector sets of an attempt's requests and
// subrequests, distinct and sorted by key, so that two attempts with the
// same sets share their filtered slices.
type attemptSelectors struct {
	sets []selectorSet
	key  string
	// classes are the classes the requests name, by name.
	classes map[string]*resourceapi.DeviceClass
}

// selectorsOf returns the claims' selector sets; ok is false when a
// request names a missing class, has a selector that is not CEL or is of
// an unknown kind: the allocator's error to report, so no shortcut
// applies.
func selectorsOf(objs *Objects, claims []*resourceapi.ResourceClaim) (as *attemptSelectors, ok bool) {
	as = &attemptSelectors{classes: map[string]*resourceapi.DeviceClass{}}
	seen := sets.New[string]()
	add := func(className string, own []resourceapi.DeviceSelector) bool {
		class, ok := objs.Classes[className]
		if !ok {
			return false
		}
		as.classes[className] = class
		exprs := make([]string, 0, len(class.Spec.Selectors)+len(own))
		for _, s := range slices.Concat(class.Spec.Selectors, own) {
			if s.CEL == nil {
				return false
			}
			exprs = append(exprs, s.CEL.Expression)
		}
		set := newSelectorSet(exprs)
		if !seen.Has(set.key) {
			seen.Insert(set.key)
			as.sets = append(as.sets, set)
		}
		return true
	}
	for _, c := range claims {
		for _, r := range c.Spec.Devices.Requests {
			switch {
			case r.Exactly != nil:
				if !add(r.Exactly.DeviceClassName, r.Exactly.Selectors) {
					return nil, false
				}
			case len(r.FirstAvailable) > 0:
				for _, sub := range r.FirstAvailable {
					if !add(sub.DeviceClassName, sub.Selectors) {
						return nil, false
					}
				}
			default:
				return nil, false
			}
		}
	}
	slices.SortFunc(as.sets, func(a, b selectorSet) int { return strings.Compare(a.key, b.key) })
	var b strings.Builder
	for _, s := range as.sets {
		b.WriteString(strconv.Itoa(len(s.key)))
		b.WriteByte(':')
		b.WriteString(s.key)
	}
	as.key = b.String()
	return as, true
}

// index returns the position of the set of exprs in as.sets, -1 if none.
func (as *attemptSelectors) index(exprs []string) int {
	key := newSelectorSet(exprs).key
	for i, s := range as.sets {
		if s.key == key {
			return i
		}
	}
	return -1
}

// filteredView is a slice as an attempt's allocator gets it.
type filteredView struct {
	slice *resourceapi.ResourceSlice // a copy with fewer devices, or the slice itself
	// uniform: every device of slice matches every set, so the
	// selectors can be left out for it.
	uniform bool
	// verdicts are the sets' verdicts on the slice as stored (every
	// device), in the order of attemptSelectors.sets; ids are its devices'
	// IDs (the precheck's).
	verdicts []*setVerdict
	ids      []structured.DeviceID
	plain    bool // sliceShape.plain
	multi    bool // sliceShape.multi
}

// view returns s as the attempt's allocator gets it. inPlainPool is false
// when a device name repeats in s's pool: the pool is invalid, which
// removing a device must not hide, so s is not filtered then.
func (m *SelectorMemo) view(ctx context.Context, cache *cel.Cache, s *resourceapi.ResourceSlice, as *attemptSelectors, inPlainPool bool) *filteredView {
	m.mu.Lock()
	var v *filteredView
	shape, e := sliceShape{}, m.bySlice[s]
	if e != nil {
		v, shape = e.views[as.key], e.shape
	} else {
		shape = shapeOf(s)
	}
	m.mu.Unlock()
	if v != nil && inPlainPool {
		return v
	}
	v = &filteredView{slice: s, verdicts: make([]*setVerdict, len(as.sets)), ids: m.deviceIDs(s), plain: shape.plain, multi: shape.multi}
	allOK := true
	for i, set := range as.sets {
		v.verdicts[i] = m.verdict(ctx, cache, s, set)
		allOK = allOK && v.verdicts[i].ok
	}
	if !allOK {
		return v // neither filtered nor uniform: the allocator evaluates, and reports
	}
	var kept []int
	uniform := true
	for d := range s.Spec.Devices {
		any, all := false, true
		for _, vd := range v.verdicts {
			any = any || vd.match[d]
			all = all && vd.match[d]
		}
		if any {
			kept = append(kept, d)
			uniform = uniform && all
		}
	}
	filter := shape.filterable && inPlainPool && len(kept) < len(s.Spec.Devices)
	switch {
	case filter:
		cp := *s
		cp.Spec.Devices = make([]resourceapi.Device, len(kept))
		for i, d := range kept {
			cp.Spec.Devices[i] = s.Spec.Devices[d]
		}
		v.slice, v.uniform = &cp, uniform
	default:
		v.uniform = uniform && len(kept) == len(s.Spec.Devices)
	}
	if !inPlainPool || ctx.Err() != nil {
		return v
	}
	m.mu.Lock()
	if e := m.bySlice[s]; e != nil {
		if len(e.views) >= maxSetsPerSlice {
			e.views = nil
		}
		if e.views == nil {
			e.views = map[string]*filteredView{}
		}
		e.views[as.key] = v
	}
	m.mu.Unlock()
	return v
}

// attemptView is every slice as one attempt's allocator gets it; it
// depends only on the slices and the selector sets (not on the classes'
// other fields, nor on the devices in use), so attempts with the same
// sets share it while the slices do not change.
type attemptView struct {
	as     *attemptSelectors            // the first attempt's: its sets, not its classes
	views  []*filteredView              // in the order of the slice list
	slices []*resourceapi.ResourceSlice // views' slices, for the allocator
	// poolSlices is the number of slices of each pool.
	poolSlices map[poolID]int
	// notUniform are the nodes with a slice of their own that is not
	// uniform; sharedUniform is false when a slice every node may use
	// (no node name, or shared counters, as the allocator sorts them) is
	// not.
	notUniform    sets.Set[string]
	sharedUniform bool
	// For the precheck: the positions in views of each node's slices;
	// the nodes with a slice that is not plain; whether some slice is
	// shared (no node name, or shared counters).
	onNode map[string][]int
	mixed  sets.Set[string]
	shared bool
	// nodes are the facts of the plain nodes of at most 64 devices
	// (nodememo.go).
	nodes map[string]*nodeFacts
}

// maxAttemptViews bounds the attempt views the memo keeps.
const maxAttemptViews = 256

// cachedView is an attempt view kept for the slice list of one
// generation of the tracker's slices.
type cachedView struct {
	gen uint64
	av  *attemptView
}

// attemptView returns the attempt's view of list, the one kept for the
// same selector sets and slice generation (gen 0: a list the tracker did
// not make, not kept).
func (m *SelectorMemo) attemptView(ctx context.Context, cache *cel.Cache, list []*resourceapi.ResourceSlice, gen uint64, as *attemptSelectors) *attemptView {
	if gen != 0 {
		m.mu.Lock()
		c, ok := m.attempts[as.key]
		m.mu.Unlock()
		if ok && c.gen == gen {
			return c.av
		}
	}
	av := newAttemptView(ctx, m, cache, list, as)
	if gen == 0 || ctx.Err() != nil {
		return av
	}
	m.mu.Lock()
	if len(m.attempts) >= maxAttemptViews {
		clear(m.attempts)
	}
	m.attempts[as.key] = cachedView{gen, av}
	m.mu.Unlock()
	return av
}

// newAttemptView views every slice of list (sorted, the allocator's order)
// through the memo for the attempt's selector sets.
func newAttemptView(ctx context.Context, memo *SelectorMemo, cache *cel.Cache, list []*resourceapi.ResourceSlice, as *attemptSelectors) *attemptView {
	av := &attemptView{as: as, views: make([]*filteredView, len(list)), slices: make([]*resourceapi.ResourceSlice, len(list)),
		notUniform: sets.New[string](), sharedUniform: true, onNode: map[string][]int{}, mixed: sets.New[string]()}
	av.poolSlices = make(map[poolID]int, len(list))
	for _, s := range list {
		av.poolSlices[poolOf(s)]++
	}
	repeated := poolsRepeatingNames(list, av.poolSlices)
	for i, s := range list {
		v := memo.view(ctx, cache, s, as, !repeated.Has(poolOf(s)))
		av.views[i], av.slices[i] = v, v.slice
		node := ptr.Deref(s.Spec.NodeName, "")
		shared := node == "" || len(s.Spec.SharedCounters) > 0
		if shared {
			av.shared = true
		} else {
			av.onNode[node] = append(av.onNode[node], i)
			if !v.plain || av.poolSlices[poolOf(s)] != 1 {
				av.mixed.Insert(node)
			}
		}
		switch {
		case v.uniform:
		case shared:
			av.sharedUniform = false
		default:
			av.notUniform.Insert(node)
		}
	}
	av.nodes = make(map[string]*nodeFacts, len(av.onNode))
	for node, at := range av.onNode {
		if av.mixed.Has(node) {
			continue
		}
		if nf := newNodeFacts(av, at); nf != nil {
			av.nodes[node] = nf
		}
	}
	return av
}

// uniformOn reports whether every device the allocator sees on node
// matches every selector set of the attempt.
func (av *attemptView) uniformOn(node string) bool {
	return av.sharedUniform && !av.notUniform.Has(node)
}

type poolID struct{ driver, pool string }

func poolOf(s *resourceapi.ResourceSlice) poolID { return poolID{s.Spec.Driver, s.Spec.Pool.Name} }

// poolsRepeatingNames returns the pools of several slices in which a
// device name appears twice (in any of their slices, whatever their
// generation or node: more than the allocator checks, never less).
func poolsRepeatingNames(list []*resourceapi.ResourceSlice, count map[poolID]int) sets.Set[poolID] {
	out := sets.New[poolID]()
	names := map[poolID]sets.Set[string]{}
	for _, s := range list {
		p := poolOf(s)
		if count[p] < 2 || out.Has(p) {
			continue
		}
		if names[p] == nil {
			names[p] = sets.New[string]()
		}
		for _, d := range s.Spec.Devices {
			if names[p].Has(d.Name) {
				out.Insert(p)
				break
			}
			names[p].Insert(d.Name)
		}
	}
	return out
}

// strippedClasses lists the attempt's classes without their selectors (the
// others as they are), for nodes where every device matches them.
type strippedClasses struct {
	objs    *Objects
	classes map[string]*resourceapi.DeviceClass
}

func newStrippedClasses(objs *Objects, as *attemptSelectors) *strippedClasses {
	sc := &strippedClasses{objs: objs, classes: make(map[string]*resourceapi.DeviceClass, len(as.classes))}
	for name, c := range as.classes {
		cp := *c
		cp.Spec.Selectors = nil
		sc.classes[name] = &cp
	}
	return sc
}

// List lists the classes (structured.DeviceClassLister).
func (sc *strippedClasses) List() ([]*resourceapi.DeviceClass, error) {
	out, _ := sc.objs.List()
	for i, c := range out {
		if s, ok := sc.classes[c.Name]; ok {
			out[i] = s
		}
	}
	return out, nil
}

// Get returns a class by name (structured.DeviceClassLister).
func (sc *strippedClasses) Get(name string) (*resourceapi.DeviceClass, error) {
	if c, ok := sc.classes[name]; ok {
		return c, nil
	}
	return sc.objs.Get(name)
}

// stripSelectors returns copies of the claims whose requests and
// subrequests have no selectors; everything else (names, counts, modes,
// admin access, tolerations, capacity, constraints, config) is the
// claims' own. The claims are not modified.
func stripSelectors(claims []*resourceapi.ResourceClaim) []*resourceapi.ResourceClaim {
	out := make([]*resourceapi.ResourceClaim, len(claims))
	for i, c := range claims {
		cp := *c
		reqs := slices.Clone(c.Spec.Devices.Requests)
		for j := range reqs {
			if e := reqs[j].Exactly; e != nil {
				ec := *e
				ec.Selectors = nil
				reqs[j].Exactly = &ec
			}
			if len(reqs[j].FirstAvailable) > 0 {
				subs := slices.Clone(reqs[j].FirstAvailable)
				for k := range subs {
					subs[k].Selectors = nil
				}
				reqs[j].FirstAvailable = subs
			}
		}
		cp.Spec.Devices.Requests = reqs
		out[i] = &cp
	}
	return out
}
