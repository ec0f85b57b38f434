package framework

import (
	"encoding/binary"
	"slices"

	"github.com/berthsched/berth/core/model"
)

// SignPlugin is implemented by Filter and Score plugins that are node-local:
// their verdict on a node is a function of the pod and of that node's
// NodeInfo alone, given the state their PreFilter and PreScore derived from
// the pod alone. For such plugins the runtime remembers results per node
// version and reuses them for the next pod with the same signature, which
// is what makes a stream of look-alike pods (replicas, batch jobs) cheap.
//
// SignPod writes everything of the pod that the plugin's PreFilter, Filter,
// PreScore and Score read. Two pods that sign alike must get the same
// statuses and raw scores on every node; leaving a field out is a
// correctness bug, adding one only costs reuse. A plugin whose results
// depend on other nodes or on pods elsewhere (topology spread, inter-pod
// affinity) must not implement it.
type SignPlugin interface {
	Plugin
	SignPod(pod *model.Pod, sig *Signature)
}

// Signature is an exact, unambiguous encoding of the pod fields that
// node-local plugins read: every value is length- or tag-prefixed, so
// different field values never encode alike.
type Signature struct {
	b []byte
}

// Reset empties the signature, keeping its buffer.
func (s *Signature) Reset() { s.b = s.b[:0] }

// Bytes returns the encoding; valid until the next change.
func (s *Signature) Bytes() []byte { return s.b }

// Tag starts a section (a plugin, or a field group) with a fixed marker.
func (s *Signature) Tag(t string) { s.String(t) }

// Int appends an integer.
func (s *Signature) Int(v int64) { s.b = binary.AppendVarint(s.b, v) }

// Bool appends a boolean.
func (s *Signature) Bool(v bool) {
	if v {
		s.b = append(s.b, 1)
	} else {
		s.b = append(s.b, 0)
	}
}

// String appends a string.
func (s *Signature) String(v string) {
	s.b = binary.AppendUvarint(s.b, uint64(len(v)))
	s.b = append(s.b, v...)
}

// Strings appends a list of strings, in order.
func (s *Signature) Strings(v []string) {
	s.Int(int64(len(v)))
	for _, x := range v {
		s.String(x)
	}
}

// StringMap appends a map of strings in key order.
func (s *Signature) StringMap(m map[string]string) {
	s.Int(int64(len(m)))
	if len(m) == 0 {
		return
	}
	var stack [8]string
	keys := stack[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s.String(k)
		s.String(m[k])
	}
}

// Resources appends a resource vector.
func (s *Signature) Resources(r *model.Resources) {
	s.Int(r.MilliCPU)
	s.Int(r.Memory)
	s.Int(r.EphemeralStorage)
	s.Int(r.Pods)
	s.Int(int64(len(r.Scalar)))
	if len(r.Scalar) == 0 {
		return
	}
	var stack [8]string
	names := stack[:0]
	for n := range r.Scalar {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s.String(n)
		s.Int(r.Scalar[n])
	}
}

// Selector appends a compiled label selector.
func (s *Signature) Selector(sel model.Selector) { s.b = sel.AppendKey(s.b) }

// Tolerations appends a pod's tolerations, in order.
func (s *Signature) Tolerations(ts []model.Toleration) {
	s.Int(int64(len(ts)))
	for i := range ts {
		t := &ts[i]
		s.String(t.Key)
		s.String(string(t.Operator))
		s.String(t.Value)
		s.String(string(t.Effect))
		if t.TolerationSeconds != nil {
			s.Bool(true)
			s.Int(*t.TolerationSeconds)
		} else {
			s.Bool(false)
		}
	}
}

// NodeSelectorTerm appends one node selector term.
func (s *Signature) NodeSelectorTerm(t *model.NodeSelectorTerm) {
	for _, reqs := range [2][]model.NodeSelectorRequirement{t.MatchExpressions, t.MatchFields} {
		s.Int(int64(len(reqs)))
		for i := range reqs {
			s.String(reqs[i].Key)
			s.String(string(reqs[i].Operator))
			s.Strings(reqs[i].Values)
		}
	}
}

// NodeAffinity appends a node affinity (nil included).
func (s *Signature) NodeAffinity(a *model.NodeAffinity) {
	if a == nil {
		s.Bool(false)
		return
	}
	s.Bool(true)
	if a.Required == nil {
		s.Int(-1)
	} else {
		s.Int(int64(len(a.Required.Terms)))
		for i := range a.Required.Terms {
			s.NodeSelectorTerm(&a.Required.Terms[i])
		}
	}
	s.Int(int64(len(a.Preferred)))
	for i := range a.Preferred {
		s.Int(int64(a.Preferred[i].Weight))
		s.NodeSelectorTerm(&a.Preferred[i].Preference)
	}
}

// MemoEntry is what the framework runtime remembers about one version of a
// node for pods of one signature under one profile: the verdict of the
// node-local filters and the raw scores of the node-local score plugins.
type MemoEntry struct {
	// Sig is the signature's number within its Owner, the profile.
	Sig   uint64
	Owner *MemoOwner
	// Generation is the NodeInfo generation the results hold for.
	Generation int64

	// FilterDone says the filter verdict below is known. FilterFailedAt is
	// the index (among the profile's Filter plugins) of the first
	// node-local filter that rejected the pod, -1 if they all passed;
	// FilterStatus is its status.
	FilterDone     bool
	FilterFailedAt int32
	FilterStatus   *Status

	// ScoreDone has bit i set when Scores[i] holds the raw score of the
	// profile's i-th Score plugin (the first MemoScoreSlots plugins only).
	ScoreDone uint64
	Scores    [MemoScoreSlots]int64

	// The entries below are kept only for pods whose every Filter plugin
	// that runs is node-local (Handle.LocalMemo), so the filters' verdict on
	// the node with other pods added is a function of the signature and of
	// those pods too.

	// NominatedStatus is the filters' verdict (nil: success) on the node
	// with the pods of Nominated added, when NominatedDone; the pods, by
	// identity, are those RunFilterPluginsWithNominatedPods added.
	NominatedDone   bool
	Nominated       []*PodInfo
	NominatedStatus *Status
	// Preemption is the preemption evaluator's own record of its dry run on
	// this version of the node (core/preemption); the framework only
	// clears it.
	Preemption any
}

// CarriedScores is a copy of one feasible node's remembered raw scores,
// taken while filtering it, when its memo entry was at hand anyway
// (Framework.RunFilterPluginsCarrying). At 100,000 nodes a pod scores 5,000
// of them; reading their scores from one array costs a fraction of
// visiting each NodeInfo a second time after the filter pass.
type CarriedScores struct {
	// Owner and Sig are the memo entry's; Owner nil: nothing was carried.
	Owner *MemoOwner
	Sig   uint64
	// Name is the node's name.
	Name string
	// Done and Scores are the entry's ScoreDone and Scores.
	Done   uint64
	Scores [MemoScoreSlots]int64
}

// Carries reports whether c holds the scores remembered for owner and sig.
func (c *CarriedScores) Carries(owner *MemoOwner, sig uint64) bool {
	return c.Owner != nil && c.Owner == owner && c.Sig == sig
}

// MemoScoreSlots is how many Score plugins of a profile have their raw
// scores remembered (the default profile has six).
const MemoScoreSlots = 8

// MemoOwner tells apart the profiles whose results share NodeInfos: the
// runtime makes one per profile.
type MemoOwner struct{ _ byte }

// memoWays is how many signatures a node remembers at once: enough for a
// few interleaved workloads, small enough to scan.
const memoWays = 4

// nodeMemo holds a NodeInfo's MemoEntries, inline so that reading them
// costs no extra pointer chase. Clone leaves it empty, and entries whose
// generation is not the NodeInfo's are stale.
type nodeMemo struct {
	entries [memoWays]MemoEntry
	next    uint8
}

// Memo returns the node's memo entry for owner and sig, claiming one (the
// oldest) if there is none; a claimed or stale entry comes back reset.
// Only the framework runtime calls it, from the goroutine evaluating the
// node: a NodeInfo is never evaluated by two goroutines at once.
func (n *NodeInfo) Memo(owner *MemoOwner, sig uint64) *MemoEntry {
	m := &n.memo
	for i := range m.entries {
		e := &m.entries[i]
		if e.Sig == sig && e.Owner == owner {
			if e.Generation != n.Generation {
				e.reset(n.Generation)
			}
			return e
		}
	}
	e := &m.entries[m.next]
	m.next = (m.next + 1) % memoWays
	e.Owner, e.Sig = owner, sig
	e.reset(n.Generation)
	return e
}

func (e *MemoEntry) reset(gen int64) {
	e.Generation = gen
	e.FilterDone, e.FilterFailedAt, e.FilterStatus = false, -1, nil
	e.ScoreDone = 0
	e.NominatedDone, e.Nominated, e.NominatedStatus = false, nil, nil
	e.Preemption = nil
}
