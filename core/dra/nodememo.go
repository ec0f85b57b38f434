package dra

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
)

// The node memo: pods asking for the same devices (claims of one
// template) get the same answer from the allocator on a node as long as
// what it reads for that node is the same: the node's slices and classes
// (the tracker's generation), the claims' specs, and which of the node's
// devices are taken. Berth remembers the answer per node under those
// and gives it again instead of running the allocator; between two pods
// only the nodes whose devices were taken or freed need it again. It
// applies where the node's devices are all its own and plain (the
// precheck's nodes: no shared slice anywhere, one slice per pool, no
// counters, no per-device node selection), have no device allocatable
// several times (its consumed capacity would be an input too), and number
// at most 64. Errors are never remembered: they are the attempt's.

// maxClaimAnswers bounds the claim specs the memo keeps answers for.
const maxClaimAnswers = 64

// claimAnswers are the answers for one claims' spec key, per node (its
// facts in the attempt view they were found with), for one generation of
// the slices and classes.
type claimAnswers struct {
	gen    uint64
	view   *attemptView
	mu     sync.Mutex
	byNode map[*nodeFacts]nodeAnswer
}

// nodeAnswer is the allocator's answer on a node when the devices of
// taken (a bit per device of the node's slices, in order) were in use.
type nodeAnswer struct {
	taken   uint64
	results []resourceapi.AllocationResult
	reason  string
}

// claimsKey identifies the claims by their specs (what the allocator's
// answer depends on; their names appear only in errors); ok is false if a
// spec cannot be encoded.
func claimsKey(claims []*resourceapi.ResourceClaim) (string, bool) {
	var b strings.Builder
	for _, c := range claims {
		data, err := json.Marshal(&c.Spec)
		if err != nil {
			return "", false
		}
		b.WriteString(strconv.Itoa(len(data)))
		b.WriteByte(':')
		b.Write(data)
	}
	return b.String(), true
}

// answersFor returns the answers kept for the claims' key in generation
// gen and attempt view av, new ones if either changed.
func (m *SelectorMemo) answersFor(key string, gen uint64, av *attemptView) *claimAnswers {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ca := m.answers[key]; ca != nil && ca.gen == gen && ca.view == av {
		return ca
	}
	if len(m.answers) >= maxClaimAnswers {
		clear(m.answers)
	}
	ca := &claimAnswers{gen: gen, view: av, byNode: map[*nodeFacts]nodeAnswer{}}
	m.answers[key] = ca
	return ca
}

func (ca *claimAnswers) get(node *nodeFacts, taken uint64) (nodeAnswer, bool) {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	a, ok := ca.byNode[node]
	return a, ok && a.taken == taken
}

func (ca *claimAnswers) put(node *nodeFacts, a nodeAnswer) {
	ca.mu.Lock()
	ca.byNode[node] = a
	ca.mu.Unlock()
}

// nodeFacts are what the precheck and the node memo read of a plain node
// of at most 64 devices, a bit per device of its slices in view order:
// which match each selector set of the attempt (ok false: some
// evaluation failed there), and the devices' IDs.
type nodeFacts struct {
	match []uint64 // per set
	ok    []bool   // per set
	ids   []structured.DeviceID
	multi bool // some device may be allocated several times
}

// taken returns which of the node's devices are in use.
func (nf *nodeFacts) taken(inUse sets.Set[structured.DeviceID]) uint64 {
	var taken uint64
	for i, id := range nf.ids {
		if inUse.Has(id) {
			taken |= 1 << i
		}
	}
	return taken
}

// newNodeFacts returns the facts of the node whose slices are at the
// positions at in av.views, nil if it has more than 64 devices.
func newNodeFacts(av *attemptView, at []int) *nodeFacts {
	nf := &nodeFacts{match: make([]uint64, len(av.as.sets)), ok: make([]bool, len(av.as.sets))}
	for i := range nf.ok {
		nf.ok[i] = true
	}
	for _, i := range at {
		v := av.views[i]
		if len(nf.ids)+len(v.ids) > 64 {
			return nil
		}
		nf.multi = nf.multi || v.multi
		for set, vd := range v.verdicts {
			if !vd.ok {
				nf.ok[set] = false
				continue
			}
			for d, m := range vd.match {
				if m {
					nf.match[set] |= 1 << (len(nf.ids) + d)
				}
			}
		}
		nf.ids = append(nf.ids, v.ids...)
	}
	return nf
}
