package admission

import (
	"cmp"
	"math"
	"slices"
)

// drs is a node's dominant resource share, Kueue's fair-sharing measure:
// of the resources it borrows beyond its subtree quota, the largest part
// of what its parent could lend, per mille, divided by its weight.
type drs struct {
	weight   float64
	ratio    float64
	dominant string
	borrowed []fr
}

func negativeDRS() drs { return drs{ratio: -1, weight: 1} }

func (d drs) borrowing() bool { return len(d.borrowed) > 0 }

func (d drs) borrowingOn(req map[fr]int64) bool {
	for _, k := range d.borrowed {
		if req[k] > 0 {
			return true
		}
	}
	return false
}

func (d drs) zeroWeightBorrows() bool { return d.weight == 0 && d.ratio != 0 }

func (d drs) share() float64 {
	if d.ratio == 0 {
		return 0
	}
	if d.weight == 0 {
		return math.Inf(1)
	}
	return d.ratio / d.weight
}

func compareDRS(a, b drs) int {
	switch {
	case a.zeroWeightBorrows() && b.zeroWeightBorrows():
		return cmp.Compare(a.ratio, b.ratio)
	case a.zeroWeightBorrows():
		return 1
	case b.zeroWeightBorrows():
		return -1
	}
	return cmp.Compare(a.share(), b.share())
}

func (n *node) weight() float64 {
	if n.cq != nil {
		return n.cq.spec.FairWeight
	}
	return n.fairWeight
}

func (n *node) drs() drs {
	d := drs{weight: n.weight()}
	if n.parent == nil {
		return d
	}
	borrowing := map[string]int64{}
	for _, k := range sortedFRs(n.subtree) {
		if b := n.usage[k] - n.subtree[k]; b > 0 {
			borrowing[k.Resource] += b
			d.borrowed = append(d.borrowed, k)
		}
	}
	if len(borrowing) == 0 {
		return d
	}
	lendable := map[string]int64{}
	for k := range n.root().subtree {
		lendable[k.Resource] += n.parent.potentialAvailable(k)
	}
	for _, r := range sortedKeys(borrowing) {
		if l := lendable[r]; l > 0 {
			ratio := float64(borrowing[r]) * 1000 / float64(l)
			if ratio > d.ratio {
				d.ratio, d.dominant = ratio, r
			}
		}
	}
	return d
}

func sortedFRs(m map[fr]int64) []fr {
	ks := make([]fr, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b fr) int { return cmp.Or(cmp.Compare(a.Flavor, b.Flavor), cmp.Compare(a.Resource, b.Resource)) })
	return ks
}

// fairOrder is Kueue's fair-sharing iterator: per cohort tree, a
// tournament at every cohort between its children's heads by the DRS
// they would have once admitted (non-borrowing first), then priority,
// then age.
func (e *engine) fairOrder(entries []*entry, admit func(*entry)) {
	byCQ := map[*clusterQueue]*entry{}
	for _, en := range entries {
		byCQ[en.cq] = en
	}
	for len(byCQ) > 0 {
		var cq *clusterQueue
		for _, c := range e.running {
			if byCQ[c] != nil {
				cq = c
				break
			}
		}
		if cq.node.parent == nil {
			en := byCQ[cq]
			delete(byCQ, cq)
			admit(en)
			continue
		}
		root := cq.node.root()
		values := map[*node]map[*entry]drs{}
		requested := map[*entry]map[fr]int64{}
		for _, n := range root.subtreeCQs(nil) {
			en := byCQ[n.cq]
			if en == nil {
				continue
			}
			usage := en.a.usage
			for k, v := range usage {
				n.addUsage(k, v)
			}
			requested[en] = usage
			d := n.drs()
			for a := n.parent; a != nil; a = a.parent {
				if values[a] == nil {
					values[a] = map[*entry]drs{}
				}
				values[a][en] = d
				d = a.drs()
			}
			for k, v := range usage {
				n.removeUsage(k, v)
			}
		}
		en := tournament(root, byCQ, values, requested)
		delete(byCQ, en.cq)
		admit(en)
	}
}

func tournament(c *node, byCQ map[*clusterQueue]*entry, values map[*node]map[*entry]drs, requested map[*entry]map[fr]int64) *entry {
	var cands []*entry
	for _, child := range c.cohorts {
		if w := tournament(child, byCQ, values, requested); w != nil {
			cands = append(cands, w)
		}
	}
	for _, child := range c.cqs {
		if en := byCQ[child.cq]; en != nil {
			cands = append(cands, en)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	best := cands[0]
	for _, cur := range cands[1:] {
		if fairLess(cur, best, values[c], requested) {
			best = cur
		}
	}
	return best
}

func fairLess(a, b *entry, values map[*entry]drs, requested map[*entry]map[fr]int64) bool {
	ad, bd := values[a], values[b]
	if ab, bb := ad.borrowingOn(requested[a]), bd.borrowingOn(requested[b]); ab != bb {
		return !ab
	}
	if c := compareDRS(ad, bd); c != 0 {
		return c < 0
	}
	if a.w.priority != b.w.priority {
		return a.w.priority > b.w.priority
	}
	return a.w.created.Before(b.w.created)
}
