package decisionlog

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
)

// nodeReasons lists why each node with a status of its own was rejected,
// sorted by node name: at most maxNodes of them, the most informative
// ones, and how many were left out. A decision listing every node of a
// large cluster would be megabytes, while the message already counts the
// nodes per reason.
//
// The most informative nodes are picked as in decision.proto: first one
// node of each distinct rejection (reasons and resolvability), the rarest
// rejections first (ties: the one whose first node comes first by name),
// then more nodes of each in the same order, each rejection's nodes by
// name. So every way a node was rejected is shown, and a reason shared by
// a few nodes is not drowned by one shared by all.
//
// It runs once per unschedulable preemptor over every node of the
// cluster, so it neither sorts nor copies them all: one pass groups the
// nodes by rejection, keeping each rejection's count and its first
// maxNodes names; only the nodes picked become NodeReasons.
func nodeReasons(fitErr *framework.FitError, maxNodes int) ([]*berthv1.NodeReasons, int) {
	if fitErr == nil || fitErr.Diagnosis.NodeToStatus == nil {
		return nil, 0
	}
	m := fitErr.Diagnosis.NodeToStatus
	if maxNodes <= 0 {
		return []*berthv1.NodeReasons{}, m.Len()
	}
	rejs := groupRejections(m, maxNodes)
	// Rarest first; ties by the name of their first node.
	slices.SortFunc(rejs, func(a, b *rejection) int {
		if c := cmp.Compare(a.count, b.count); c != 0 {
			return c
		}
		return strings.Compare(a.first[0].name, b.first[0].name)
	})
	n := min(maxNodes, m.Len())
	take := roundRobin(rejs, n)
	picked := make([]*berthv1.NodeReasons, 0, n)
	for i, r := range rejs {
		for _, n := range r.first[:take[i]] {
			picked = append(picked, &berthv1.NodeReasons{
				Node:         n.name,
				Reasons:      n.st.Reasons(),
				Unresolvable: n.st.Code() == framework.UnschedulableAndUnresolvable,
			})
		}
	}
	slices.SortFunc(picked, func(a, b *berthv1.NodeReasons) int { return strings.Compare(a.Node, b.Node) })
	return picked, m.Len() - len(picked)
}

// rejection is one distinct way nodes were rejected: its resolvability
// and reasons (those of its first node met), how many nodes share it, and
// the first of them by name, at most the number that can be picked.
type rejection struct {
	unresolvable bool
	reasons      []string
	count        int
	first        []namedStatus // sorted by name
}

type namedStatus struct {
	name string
	st   *framework.Status
}

// rejectionKey indexes rejections by resolvability and a hash of their
// reasons; rejections of equal keys are told apart by sameReasons.
type rejectionKey struct {
	unresolvable bool
	hash         uint64
}

// groupRejections groups m's nodes by rejection in one pass, keeping at
// most keep names per rejection.
func groupRejections(m *framework.NodeToStatus, keep int) []*rejection {
	var (
		rejs  []*rejection
		index = make(map[rejectionKey][]*rejection)
		h     maphash.Hash
		last  *rejection
		lastS *framework.Status
	)
	for name, st := range m.All() {
		r := last
		if r == nil || st != lastS {
			unres, reasons := st.Code() == framework.UnschedulableAndUnresolvable, st.Reasons()
			// Nodes mostly fail alike: try the last node's rejection first.
			if r == nil || r.unresolvable != unres || !sameReasons(r.reasons, reasons) {
				r = findRejection(index, &h, unres, reasons, &rejs)
			}
			last, lastS = r, st
		}
		r.count++
		r.keep(namedStatus{name, st}, keep)
	}
	return rejs
}

// findRejection returns the rejection of unres and reasons, adding it to
// index and rejs when it is new.
func findRejection(index map[rejectionKey][]*rejection, h *maphash.Hash, unres bool, reasons []string, rejs *[]*rejection) *rejection {
	h.Reset()
	for _, s := range reasons {
		h.WriteByte(0)
		h.WriteString(s)
	}
	k := rejectionKey{unres, h.Sum64()}
	for _, r := range index[k] {
		if sameReasons(r.reasons, reasons) {
			return r
		}
	}
	r := &rejection{unresolvable: unres, reasons: reasons}
	index[k] = append(index[k], r)
	*rejs = append(*rejs, r)
	return r
}

// sameReasons reports whether two reason lists name the same rejection:
// equal once each reason is prefixed by a NUL and all are joined (so
// ["a\x00b"] and ["a", "b"] are one rejection, as they always were).
func sameReasons(a, b []string) bool {
	if slices.Equal(a, b) {
		return true
	}
	return joinReasons(a) == joinReasons(b)
}

func joinReasons(rs []string) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteByte(0)
		b.WriteString(r)
	}
	return b.String()
}

// keep inserts n among r's first names if it is one of the first keep.
func (r *rejection) keep(n namedStatus, keep int) {
	if len(r.first) == keep && n.name >= r.first[keep-1].name {
		return
	}
	i, _ := slices.BinarySearchFunc(r.first, n.name, func(e namedStatus, name string) int { return strings.Compare(e.name, name) })
	if len(r.first) == keep {
		copy(r.first[i+1:], r.first[i:keep-1])
		r.first[i] = n
		return
	}
	r.first = slices.Insert(r.first, i, n)
}

// roundRobin says how many nodes of each rejection (in pick order) are
// picked when n are taken one per rejection per round, as long as a
// rejection has nodes left: full rounds while every rejection left fits,
// then one more node of the first rejections of the last round.
func roundRobin(rejs []*rejection, n int) []int {
	take := make([]int, len(rejs))
	start, rounds := 0, 0 // rejs[start:] have more than rounds nodes
	for n > 0 {
		for start < len(rejs) && rejs[start].count <= rounds {
			start++
		}
		active := len(rejs) - start
		if active == 0 {
			break
		}
		if active > n {
			for i := start; i < start+n; i++ {
				take[i]++
			}
			break
		}
		n -= active
		rounds++
	}
	for i, r := range rejs {
		take[i] += min(r.count, rounds)
	}
	return take
}
