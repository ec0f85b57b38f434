package admission

import (
	"testing"

	"github.com/berthsched/berth/core/quota"
)

func ptr(v int64) *int64 { return &v }

// tree builds root <- {a (nominal 10, lends at most 4, borrows without
// limit), b (nominal 6, borrows at most 2)} for cpu in flavor f, with a's
// and b's usage.
func tree(aUsage, bUsage int64) (root, a, b *node) {
	k := fr{Flavor: "f", Resource: "cpu"}
	root = newNode("root")
	a, b = newNode("a"), newNode("b")
	a.cq, b.cq = &clusterQueue{}, &clusterQueue{}
	a.quotas[k] = quota.ResourceQuota{Nominal: 10, LendingLimit: ptr(4)}
	b.quotas[k] = quota.ResourceQuota{Nominal: 6, BorrowingLimit: ptr(2)}
	for _, c := range []*node{a, b} {
		c.parent = root
		root.cqs = append(root.cqs, c)
	}
	root.recompute()
	a.addUsage(k, aUsage)
	b.addUsage(k, bUsage)
	return root, a, b
}

// TestQuotaTree checks Kueue's resource-tree arithmetic on a small tree:
// lending limits keep quota local, borrowing limits cap what comes from
// the parent, and usage above the local quota is carried by the parent.
func TestQuotaTree(t *testing.T) {
	k := fr{Flavor: "f", Resource: "cpu"}
	for _, tc := range []struct {
		name                string
		aUsage, bUsage      int64
		rootUsage           int64
		aAvailable          int64
		bAvailable          int64
		bPotential          int64
		bBorrowHeight       int
		bBorrowingWith1     bool
		withinNominalA      bool
		rootSubtree, aLocal int64
	}{
		{name: "empty", rootUsage: 0, aAvailable: 16, bAvailable: 8, bPotential: 8, rootSubtree: 10, aLocal: 6, withinNominalA: true},
		{name: "a within its local quota", aUsage: 5, rootUsage: 0, aAvailable: 11, bAvailable: 8, bPotential: 8, rootSubtree: 10, aLocal: 6, withinNominalA: true},
		{name: "a lends out", aUsage: 8, rootUsage: 2, aAvailable: 8, bAvailable: 8, bPotential: 8, rootSubtree: 10, aLocal: 6, withinNominalA: true},
		{name: "b borrows", bUsage: 7, rootUsage: 7, aAvailable: 9, bAvailable: 1, bPotential: 8, bBorrowHeight: 1, bBorrowingWith1: true, rootSubtree: 10, aLocal: 6, withinNominalA: true},
		{name: "both full", aUsage: 8, bUsage: 8, rootUsage: 10, aAvailable: 0, bAvailable: 0, bPotential: 8, bBorrowHeight: 1, bBorrowingWith1: true, rootSubtree: 10, aLocal: 6, withinNominalA: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, a, b := tree(tc.aUsage, tc.bUsage)
			if got := root.subtree[k]; got != tc.rootSubtree {
				t.Errorf("root subtree %d, want %d", got, tc.rootSubtree)
			}
			if got := a.localQuota(k); got != tc.aLocal {
				t.Errorf("a's local quota %d, want %d", got, tc.aLocal)
			}
			if got := root.usage[k]; got != tc.rootUsage {
				t.Errorf("root usage %d, want %d", got, tc.rootUsage)
			}
			if got := max(0, a.available(k)); got != tc.aAvailable {
				t.Errorf("a available %d, want %d", got, tc.aAvailable)
			}
			if got := max(0, b.available(k)); got != tc.bAvailable {
				t.Errorf("b available %d, want %d", got, tc.bAvailable)
			}
			if got := b.potentialAvailable(k); got != tc.bPotential {
				t.Errorf("b potential %d, want %d", got, tc.bPotential)
			}
			if h, _ := b.lowestSubtreeThatFits(k, 1); h != tc.bBorrowHeight {
				t.Errorf("b's borrowing height for 1 more: %d, want %d", h, tc.bBorrowHeight)
			}
			if got := b.borrowingWith(k, 1); got != tc.bBorrowingWith1 {
				t.Errorf("b borrowing with 1 more: %v, want %v", got, tc.bBorrowingWith1)
			}
			if got := a.withinNominal(map[fr]bool{k: true}); got != tc.withinNominalA {
				t.Errorf("a within nominal: %v", got)
			}
			// Removing what was added leaves the tree empty, and the
			// cohort's usage is what its children carry.
			a.removeUsage(k, tc.aUsage)
			b.removeUsage(k, tc.bUsage)
			if root.usage[k] != 0 || a.usage[k] != 0 || b.usage[k] != 0 {
				t.Errorf("after removal: root %d a %d b %d", root.usage[k], a.usage[k], b.usage[k])
			}
		})
	}
}
