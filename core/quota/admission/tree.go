package admission

import (
	"github.com/berthsched/berth/core/quota"
)

type fr = quota.FlavorResource

// node is a ClusterQueue or a cohort in the quota tree, with Kueue's
// accounting: subtree is the quota the node stores (its own nominal plus
// what its children lend it), usage what is used of it, and a child's
// usage above its local (non-lendable) quota is carried by its parent.
type node struct {
	name    string
	cq      *clusterQueue // nil for a cohort
	parent  *node
	cohorts []*node
	cqs     []*node
	quotas  map[fr]quota.ResourceQuota
	subtree map[fr]int64
	usage   map[fr]int64
	// fairWeight is a cohort's fairSharing.weight (a ClusterQueue's is in
	// its spec).
	fairWeight float64
}

func newNode(name string) *node {
	return &node{name: name, fairWeight: 1, quotas: map[fr]quota.ResourceQuota{}, subtree: map[fr]int64{}, usage: map[fr]int64{}}
}

func (n *node) setQuotas(rgs []quota.ResourceGroup) {
	for _, rg := range rgs {
		for _, f := range rg.Flavors {
			for _, r := range f.Resources {
				n.quotas[fr{Flavor: f.Name, Resource: r.Name}] = r.ResourceQuota
			}
		}
	}
}

// localQuota is the part of the node's quota it does not lend.
func (n *node) localQuota(k fr) int64 {
	if l := n.quotas[k].LendingLimit; l != nil {
		return max(0, n.subtree[k]-*l)
	}
	return 0
}

func (n *node) localAvailable(k fr) int64 { return max(0, n.localQuota(k)-n.usage[k]) }

func (n *node) available(k fr) int64 {
	if n.parent == nil {
		return n.subtree[k] - n.usage[k]
	}
	parentAvailable := n.parent.available(k)
	if bl := n.quotas[k].BorrowingLimit; bl != nil {
		storedInParent := n.subtree[k] - n.localQuota(k)
		usedInParent := max(0, n.usage[k]-n.localQuota(k))
		parentAvailable = min(storedInParent-usedInParent+*bl, parentAvailable)
	}
	return n.localAvailable(k) + parentAvailable
}

func (n *node) potentialAvailable(k fr) int64 {
	if n.parent == nil {
		return n.subtree[k]
	}
	a := n.localQuota(k) + n.parent.potentialAvailable(k)
	if bl := n.quotas[k].BorrowingLimit; bl != nil {
		a = min(n.subtree[k]+*bl, a)
	}
	return a
}

func (n *node) addUsage(k fr, v int64) {
	local := n.localAvailable(k)
	n.usage[k] += v
	if n.parent != nil && v > local {
		n.parent.addUsage(k, v-local)
	}
}

func (n *node) removeUsage(k fr, v int64) {
	storedInParent := n.usage[k] - n.localQuota(k)
	n.usage[k] -= v
	if storedInParent <= 0 || n.parent == nil {
		return
	}
	n.parent.removeUsage(k, min(v, storedInParent))
}

// borrowingWith reports whether using v more of k makes the node use
// more than its quota (a ClusterQueue's nominal quota, a cohort's subtree).
func (n *node) borrowingWith(k fr, v int64) bool {
	if n.cq != nil {
		return n.usage[k]+v > n.quotas[k].Nominal
	}
	return n.usage[k]+v > n.subtree[k]
}

func (n *node) withinNominal(frs map[fr]bool) bool {
	for k := range frs {
		if n.usage[k] > n.subtree[k] {
			return false
		}
	}
	return true
}

func (n *node) root() *node {
	r := n
	for r.parent != nil {
		r = r.parent
	}
	return r
}

// path is "/root/.../name", as Kueue writes preemption messages.
func (n *node) path() string {
	s := ""
	for a := n; a != nil; a = a.parent {
		s = "/" + a.name + s
	}
	return s
}

// subtreeCQs lists the ClusterQueues under a cohort.
func (n *node) subtreeCQs(out []*node) []*node {
	out = append(out, n.cqs...)
	for _, c := range n.cohorts {
		out = c.subtreeCQs(out)
	}
	return out
}

func (n *node) height() int {
	h := min(len(n.cohorts)+len(n.cqs), 1)
	for _, c := range n.cohorts {
		h = max(h, c.height()+1)
	}
	return h
}

// recompute sets the subtree quotas of a root cohort's tree bottom-up and
// accumulates the usage children carry in their parents.
func (n *node) recompute() {
	n.subtree = map[fr]int64{}
	if n.cq == nil {
		n.usage = map[fr]int64{}
	}
	for k, q := range n.quotas {
		n.subtree[k] = q.Nominal
	}
	for _, c := range append(append([]*node{}, n.cohorts...), n.cqs...) {
		c.recompute()
		for k, q := range c.subtree {
			n.subtree[k] += q - c.localQuota(k)
		}
		for k, u := range c.usage {
			n.usage[k] += max(0, u-c.localQuota(k))
		}
	}
}

// fitsInQuota reports whether requests fit the node's own subtree quota
// and what remains to be found above it.
func (n *node) fitsInQuota(requests map[fr]int64) (bool, map[fr]int64) {
	fits := true
	rem := make(map[fr]int64, len(requests))
	for k, v := range requests {
		if n.usage[k]+v > n.subtree[k] {
			fits = false
		}
		rem[k] = max(0, v-n.localAvailable(k))
	}
	return fits, rem
}

// lowestSubtreeThatFits is how high in the tree v of k must borrow, and
// whether a reclaim within the hierarchy may make room.
func (n *node) lowestSubtreeThatFits(k fr, v int64) (int, bool) {
	if !n.borrowingWith(k, v) || n.parent == nil {
		return 0, n.parent != nil
	}
	remaining := v - n.localAvailable(k)
	for t := n.parent; t != nil; t = t.parent {
		if !t.borrowingWith(k, remaining) {
			return t.height(), t.parent != nil
		}
		remaining -= t.localAvailable(k)
	}
	return n.parent.root().height(), false
}

// refreshUsage recomputes a cohort tree's usage from its ClusterQueues':
// a child's usage above its local quota is carried by its parent.
func (n *node) refreshUsage() {
	if n.cq != nil {
		return
	}
	n.usage = map[fr]int64{}
	for _, c := range append(append([]*node{}, n.cohorts...), n.cqs...) {
		c.refreshUsage()
		for k, u := range c.usage {
			if v := u - c.localQuota(k); v > 0 {
				n.usage[k] += v
			}
		}
	}
}
