package admission

import (
	"slices"

	"github.com/berthsched/berth/core/quota"
)

// Fair-sharing preemption strategies.
const (
	LessThanOrEqualToFinalShare = "LessThanOrEqualToFinalShare"
	LessThanInitialShare        = "LessThanInitialShare"
)

type strategy func(preemptorNew, targetOld, targetNew drs) bool

func strategyByName(name string) strategy {
	if name == LessThanInitialShare {
		return func(p, old, _ drs) bool { return compareDRS(p, old) < 0 }
	}
	return func(p, _, nw drs) bool { return compareDRS(p, nw) <= 0 }
}

// fairOrdering is Kueue's target ClusterQueue ordering: descend from the
// root towards the child with the highest DRS, pruning what does not
// borrow.
type fairOrdering struct {
	p         *preemptionCtx
	ancestors map[*node]bool
	byCQ      map[*clusterQueue][]*workload
	prunedCQ  map[*node]bool
	prunedCo  map[*node]bool
}

func (p *preemptionCtx) newFairOrdering(cands []*workload) *fairOrdering {
	o := &fairOrdering{p: p, ancestors: map[*node]bool{}, byCQ: map[*clusterQueue][]*workload{}, prunedCQ: map[*node]bool{}, prunedCo: map[*node]bool{}}
	for a := p.cq.node.parent; a != nil; a = a.parent {
		o.ancestors[a] = true
	}
	for _, w := range cands {
		o.byCQ[w.admission.cq] = append(o.byCQ[w.admission.cq], w)
	}
	return o
}

func (o *fairOrdering) has(cq *clusterQueue) bool { return len(o.byCQ[cq]) > 0 }

func (o *fairOrdering) popFrom(cq *clusterQueue) *workload {
	w := o.byCQ[cq][0]
	o.byCQ[cq] = o.byCQ[cq][1:]
	return w
}

// next is the next target ClusterQueue, or nil once the root is pruned
// (the second result says whether to go on).
func (o *fairOrdering) next() (*clusterQueue, bool) {
	if o.p.cq.node.parent == nil {
		if o.has(o.p.cq) {
			return o.p.cq, true
		}
		return nil, false
	}
	root := o.p.cq.node.root()
	for !o.prunedCo[root] {
		if cq := o.nextIn(root); cq != nil {
			return cq, true
		}
	}
	return nil, false
}

func (o *fairOrdering) nextIn(c *node) *clusterQueue {
	var best *node
	bestDRS := negativeDRS()
	order := candidateOrder(o.p.cq)
	for _, n := range c.cqs {
		if o.prunedCQ[n] {
			continue
		}
		d := n.drs()
		switch cmpv := compareDRS(d, bestDRS); {
		case (!d.borrowing() && n.cq != o.p.cq) || !o.has(n.cq):
			o.prunedCQ[n] = true
		case cmpv == 0:
			if order(candidate{w: o.byCQ[n.cq][0]}, candidate{w: o.byCQ[best.cq][0]}) < 0 {
				best = n
			}
		case cmpv > 0:
			best, bestDRS = n, d
		}
	}
	var bestCo *node
	bestCoDRS := negativeDRS()
	for _, ch := range c.cohorts {
		if o.prunedCo[ch] {
			continue
		}
		d := ch.drs()
		if !d.borrowing() && !o.ancestors[ch] {
			o.prunedCo[ch] = true
		} else if compareDRS(d, bestCoDRS) >= 0 {
			bestCo, bestCoDRS = ch, d
		}
	}
	if best == nil && bestCo == nil {
		o.prunedCo[c] = true
		return nil
	}
	if compareDRS(bestCoDRS, bestDRS) >= 0 {
		return o.nextIn(bestCo)
	}
	return best.cq
}

// almostLCAs are the children of the lowest common cohort of the
// preemptor's and the target's ClusterQueues on each one's path.
func (o *fairOrdering) almostLCAs(target *clusterQueue) (*node, *node) {
	var lca *node
	for a := target.node.parent; a != nil; a = a.parent {
		if o.ancestors[a] {
			lca = a
			break
		}
	}
	below := func(n *node) *node {
		for n.parent != nil && n.parent != lca {
			n = n.parent
		}
		return n
	}
	return below(o.p.cq.node), below(target.node)
}

func (o *fairOrdering) shares(target *clusterQueue) (drs, drs) {
	p, t := o.almostLCAs(target)
	return p.drs(), t.drs()
}

func (o *fairOrdering) shareAfterRemoval(target *clusterQueue, w *workload) drs {
	o.p.e.removeUsage(w)
	_, t := o.almostLCAs(target)
	d := t.drs()
	o.p.e.addUsage(w)
	return d
}

func (p *preemptionCtx) fairCandidates() []*workload {
	var out []*workload
	add := func(cq *clusterQueue, policy string) {
		for _, w := range cq.admitted {
			if satisfiesPolicy(p.preemptor, w, policy) && usesResources(w, p.frs) {
				out = append(out, w)
			}
		}
	}
	if p.cq.spec.Preemption.WithinClusterQueue != quota.PolicyNever {
		add(p.cq, p.cq.spec.Preemption.WithinClusterQueue)
	}
	if n := p.cq.node; n.parent != nil && p.cq.spec.Preemption.ReclaimWithinCohort != quota.PolicyNever {
		for _, c := range n.root().subtreeCQs(nil) {
			if c == n || !p.borrowingOn(c) {
				continue
			}
			add(c.cq, p.cq.spec.Preemption.ReclaimWithinCohort)
		}
	}
	order := candidateOrder(p.cq)
	slices.SortFunc(out, func(a, b *workload) int { return order(candidate{w: a}, candidate{w: b}) })
	return out
}

func (p *preemptionCtx) borrowingOn(n *node) bool {
	if n.parent == nil {
		return false
	}
	for k := range p.frs {
		if n.borrowingWith(k, 0) {
			return true
		}
	}
	return false
}

func (p *preemptionCtx) withinNominal() bool {
	for k := range p.frs {
		if p.cq.node.borrowingWith(k, 0) {
			return false
		}
	}
	return true
}

// fitsFair is whether the preemptor fits once its simulated usage is
// taken back out.
func (p *preemptionCtx) fitsFair() bool {
	for k, v := range p.usage {
		p.cq.node.removeUsage(k, v)
	}
	ok := p.fits(true)
	for k, v := range p.usage {
		p.cq.node.addUsage(k, v)
	}
	return ok
}

// fair is Kueue's fair-sharing preemption: victims from the ClusterQueues
// with the highest share, each allowed by the first strategy, then by
// LessThanInitialShare among the ones the first refused.
func (p *preemptionCtx) fair() []target {
	cands := p.fairCandidates()
	if len(cands) == 0 {
		return nil
	}
	strategies := p.e.strategies
	for k, v := range p.usage {
		p.cq.node.addUsage(k, v)
	}
	fits, targets, retry := p.fairFirst(cands, strategyByName(strategies[0]))
	if !fits && len(strategies) > 1 {
		fits, targets = p.fairSecond(retry, targets)
	}
	for k, v := range p.usage {
		p.cq.node.removeUsage(k, v)
	}
	if !fits {
		p.restore(targets)
		return nil
	}
	targets = p.fillBack(targets, true)
	p.restore(targets)
	return targets
}

func (p *preemptionCtx) take(targets []target, w *workload, reason string) []target {
	p.e.removeUsage(w)
	return append(targets, target{w: w, reason: reason})
}

func (p *preemptionCtx) fairFirst(cands []*workload, s strategy) (bool, []target, []*workload) {
	o := p.newFairOrdering(cands)
	var targets []target
	var retry []*workload
	withinNominal := p.withinNominal()
	for {
		cq, ok := o.next()
		if !ok {
			return false, targets, retry
		}
		if cq == p.cq {
			targets = p.take(targets, o.popFrom(cq), ReasonInClusterQueue)
			if p.fitsFair() {
				return true, targets, nil
			}
			continue
		}
		if withinNominal {
			targets = p.take(targets, o.popFrom(cq), ReasonInCohortReclamation)
			if p.fitsFair() {
				return true, targets, nil
			}
			continue
		}
		pNew, tOld := o.shares(cq)
		for o.has(cq) {
			w := o.popFrom(cq)
			tNew := o.shareAfterRemoval(cq, w)
			if s(pNew, tOld, tNew) {
				targets = p.take(targets, w, ReasonInCohortFairSharing)
				if p.fitsFair() {
					return true, targets, nil
				}
				break
			}
			retry = append(retry, w)
		}
	}
}

func (p *preemptionCtx) fairSecond(retry []*workload, targets []target) (bool, []target) {
	o := p.newFairOrdering(retry)
	less := strategyByName(LessThanInitialShare)
	for {
		cq, ok := o.next()
		if !ok {
			return false, targets
		}
		pNew, tOld := o.shares(cq)
		if less(pNew, tOld, drs{}) {
			targets = p.take(targets, o.popFrom(cq), ReasonInCohortFairSharing)
			if p.fitsFair() {
				return true, targets
			}
		}
		o.prunedCQ[cq.node] = true
	}
}
