package dra

import (
	"math/bits"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"

	resourceapi "k8s.io/api/resource/v1"
)

// precheck rules out nodes where the allocator would certainly answer
// CannotAllocate, cheaply: some request has fewer free devices on the
// node matching its class's and its own selectors than it asks for (the
// memo's verdicts, slicememo.go). It is only a necessary condition
// (constraints, taints, capacity and the requests' competition for
// devices are the allocator's), so a node that passes still goes to the
// allocator. It applies only where the allocator's answer for a failing
// node is exactly CannotAllocate: every request ExactCount without admin
// access (admin access may use taken devices), and the node's devices all
// in plain pools (one slice each, no counters, no per-device node
// selection, unique device names), so no pool is incomplete or invalid
// and no shared slice adds devices.
type precheck struct {
	view     *attemptView // its onNode, nodes and mixed (nodes with a slice that is not plain: no precheck)
	inUse    sets.Set[structured.DeviceID]
	requests []precheckRequest
}

type precheckRequest struct {
	set   int // in view.as.sets
	count int64
}

// newPrecheck returns the precheck for claims, nil where it does not apply.
func newPrecheck(view *attemptView, objs *Objects, inUse *structured.AllocatedState, claims []*resourceapi.ResourceClaim) *precheck {
	if view.shared {
		return nil // shared slices: any node may get their devices
	}
	p := &precheck{view: view, inUse: inUse.AllocatedDevices}
	for _, c := range claims {
		var total int64
		for _, r := range c.Spec.Devices.Requests {
			e := r.Exactly
			if e == nil || e.AllocationMode != resourceapi.DeviceAllocationModeExactCount || ptr.Deref(e.AdminAccess, false) {
				return nil
			}
			class := objs.Classes[e.DeviceClassName] // selectorsOf found it
			var exprs []string
			for _, s := range append(class.Spec.Selectors[:len(class.Spec.Selectors):len(class.Spec.Selectors)], e.Selectors...) {
				exprs = append(exprs, s.CEL.Expression)
			}
			total += e.Count
			p.requests = append(p.requests, precheckRequest{set: view.as.index(exprs), count: e.Count})
		}
		if total > resourceapi.AllocationResultsMaxSize {
			return nil // the allocator's error, on every node
		}
	}
	return p
}

// infeasible reports whether some request surely cannot be met on node,
// given its facts (nil: a node of more than 64 devices, or none) and
// which of its devices are taken (the facts' bits).
func (p *precheck) infeasible(node string, facts *nodeFacts, taken uint64) bool {
	if facts == nil && p.view.mixed.Has(node) { // facts are of plain nodes only
		return false
	}
	for _, r := range p.requests {
		var free int64
		switch {
		case facts != nil:
			// Every device, taken or not, was evaluated: the allocator
			// may evaluate any of them, and an error must remain its to
			// report.
			if !facts.ok[r.set] {
				return false
			}
			free = int64(bits.OnesCount64(facts.match[r.set] &^ taken))
		default:
			for _, i := range p.view.onNode[node] {
				v := p.view.views[i]
				vd := v.verdicts[r.set]
				if !vd.ok {
					return false
				}
				for d, m := range vd.match {
					if m && !p.inUse.Has(v.ids[d]) {
						free++
					}
				}
			}
		}
		if free < r.count {
			return true
		}
	}
	return false
}
