package admission

import (
	"cmp"
	"slices"

	"github.com/berthsched/berth/core/quota"
)

// Preemption reasons, as Kueue writes them.
const (
	ReasonInClusterQueue                = "InClusterQueue"
	ReasonInCohortReclamation           = "InCohortReclamation"
	ReasonInCohortFairSharing           = "InCohortFairSharing"
	ReasonInCohortReclaimWhileBorrowing = "InCohortReclaimWhileBorrowing"
)

var humanReasons = map[string]string{
	ReasonInClusterQueue:                "prioritization in the ClusterQueue",
	ReasonInCohortReclamation:           "reclamation within the cohort",
	ReasonInCohortFairSharing:           "Fair Sharing within the cohort",
	ReasonInCohortReclaimWhileBorrowing: "reclamation within the cohort while borrowing",
}

type target struct {
	w      *workload
	reason string
}

type variant int

const (
	variantNever variant = iota
	variantWithinCQ
	variantHierarchicalReclaim
	variantReclaimWithoutBorrowing
	variantReclaimWhileBorrowing
)

func (v variant) reason() string {
	switch v {
	case variantWithinCQ:
		return ReasonInClusterQueue
	case variantReclaimWhileBorrowing:
		return ReasonInCohortReclaimWhileBorrowing
	}
	return ReasonInCohortReclamation
}

type candidate struct {
	w       *workload
	lca     *node
	variant variant
}

// preemptionCtx is one search for victims.
type preemptionCtx struct {
	e         *engine
	preemptor *workload
	cq        *clusterQueue
	usage     map[fr]int64
	frs       map[fr]bool
}

func satisfiesPolicy(preemptor, cand *workload, policy string) bool {
	lower := preemptor.priority > cand.priority
	switch policy {
	case quota.PolicyLowerPriority:
		return lower
	case quota.PolicyLowerOrNewerEqualPriority:
		return lower || (preemptor.priority == cand.priority && preemptor.created.Before(cand.created))
	case quota.PolicyAny:
		return true
	}
	return false
}

func usesResources(w *workload, frs map[fr]bool) bool {
	for k := range w.admission.usage {
		if frs[k] {
			return true
		}
	}
	return false
}

func borrowingForbidden(cq *clusterQueue) (bool, *int32) {
	b := cq.spec.Preemption.BorrowWithinCohort
	if b.Policy == "" || b.Policy == quota.PolicyNever {
		return true, nil
	}
	return false, b.MaxPriorityThreshold
}

func (p *preemptionCtx) classify(cand *workload, hasAdvantage bool) variant {
	if !usesResources(cand, p.frs) {
		return variantNever
	}
	policy := p.cq.spec.Preemption.ReclaimWithinCohort
	same := cand.admission.cq == p.cq
	if same {
		policy = p.cq.spec.Preemption.WithinClusterQueue
	}
	if !satisfiesPolicy(p.preemptor, cand, policy) {
		return variantNever
	}
	if same {
		return variantWithinCQ
	}
	if hasAdvantage {
		return variantHierarchicalReclaim
	}
	forbidden, threshold := borrowingForbidden(p.cq)
	if forbidden {
		return variantReclaimWithoutBorrowing
	}
	if cand.priority >= p.preemptor.priority || (threshold != nil && cand.priority > *threshold) {
		return variantReclaimWithoutBorrowing
	}
	return variantReclaimWhileBorrowing
}

func (p *preemptionCtx) fromCQ(cq *clusterQueue, lca *node, hasAdvantage bool) []candidate {
	var out []candidate
	for _, w := range cq.admitted {
		if v := p.classify(w, hasAdvantage); v != variantNever {
			out = append(out, candidate{w: w, lca: lca, variant: v})
		}
	}
	return out
}

func (p *preemptionCtx) inSubtree(cur, subtreeRoot, skip *node, hasAdvantage bool, out *[]candidate) {
	for _, c := range cur.cohorts {
		if c == skip || c.withinNominal(p.frs) {
			continue
		}
		p.inSubtree(c, subtreeRoot, skip, hasAdvantage, out)
	}
	for _, c := range cur.cqs {
		if c.cq == p.cq || c.withinNominal(p.frs) {
			continue
		}
		*out = append(*out, p.fromCQ(c.cq, subtreeRoot, hasAdvantage)...)
	}
}

func (p *preemptionCtx) hierarchical() (hierarchy, priority []candidate) {
	n := p.cq.node
	if n.parent == nil || p.cq.spec.Preemption.ReclaimWithinCohort == quota.PolicyNever {
		return nil, nil
	}
	hasAdvantage, remaining := n.fitsInQuota(p.usage)
	var prev *node
	for cur := n.parent; cur != nil; cur = cur.parent {
		if hasAdvantage {
			p.inSubtree(cur, cur, prev, true, &hierarchy)
		} else {
			p.inSubtree(cur, cur, prev, false, &priority)
		}
		var fits bool
		fits, remaining = cur.fitsInQuota(remaining)
		hasAdvantage = hasAdvantage || fits
		prev = cur
	}
	return hierarchy, priority
}

// candidateOrder is Kueue's: other ClusterQueues first, lower priority
// first, most recently admitted first, then by UID.
func candidateOrder(cq *clusterQueue) func(a, b candidate) int {
	return func(a, b candidate) int {
		if as, bs := a.w.admission.cq == cq, b.w.admission.cq == cq; as != bs {
			if !as {
				return -1
			}
			return 1
		}
		if a.w.priority != b.w.priority {
			return cmp.Compare(a.w.priority, b.w.priority)
		}
		if c := b.w.admission.reserved.Compare(a.w.admission.reserved); c != 0 {
			return c
		}
		return cmp.Compare(a.w.uid, b.w.uid)
	}
}

func (p *preemptionCtx) valid(c candidate, borrow bool) bool {
	if c.w.admission.cq == p.cq {
		return true
	}
	if borrow && c.variant == variantReclaimWithoutBorrowing {
		return false
	}
	n := c.w.admission.cq.node
	if n.withinNominal(p.frs) {
		return false
	}
	for a := n.parent; a != nil && a != c.lca; a = a.parent {
		if a.withinNominal(p.frs) {
			return false
		}
	}
	return true
}

func (p *preemptionCtx) fits(borrow bool) bool {
	n := p.cq.node
	for k, v := range p.usage {
		if !borrow && n.borrowingWith(k, v) {
			return false
		}
		if v > max(0, n.available(k)) {
			return false
		}
	}
	return true
}

// classical is Kueue's classical preemption: the fewest victims, in
// candidate order, that make the preemptor fit, with borrowing allowed
// first or last as its policy says.
func (p *preemptionCtx) classical() []target {
	var same []candidate
	if p.cq.spec.Preemption.WithinClusterQueue != quota.PolicyNever {
		same = p.fromCQ(p.cq, nil, false)
	}
	hier, prio := p.hierarchical()
	order := candidateOrder(p.cq)
	slices.SortFunc(same, order)
	slices.SortFunc(prio, order)
	slices.SortFunc(hier, order)
	all := append(append(append([]candidate{}, hier...), prio...), same...)
	noOther := len(hier) == 0 && len(prio) == 0
	forbidden, _ := borrowingForbidden(p.cq)
	var attempts []bool
	switch {
	case noOther || (forbidden && !p.underNominal()):
		attempts = []bool{true}
	case forbidden && len(hier) == 0:
		attempts = []bool{false, true}
	default:
		attempts = []bool{true, false}
	}
	for _, borrow := range attempts {
		var targets []target
		for _, c := range all {
			if !p.valid(c, borrow) {
				continue
			}
			p.e.removeUsage(c.w)
			targets = append(targets, target{w: c.w, reason: c.variant.reason()})
			if p.fits(borrow) {
				targets = p.fillBack(targets, borrow)
				p.restore(targets)
				return targets
			}
		}
		p.restore(targets)
	}
	return nil
}

func (p *preemptionCtx) underNominal() bool {
	for k := range p.frs {
		if p.cq.node.usage[k] >= p.cq.node.quotas[k].Nominal {
			return false
		}
	}
	return true
}

func (p *preemptionCtx) fillBack(targets []target, borrow bool) []target {
	for i := len(targets) - 2; i >= 0; i-- {
		p.e.addUsage(targets[i].w)
		if p.fits(borrow) {
			targets[i] = targets[len(targets)-1]
			targets = targets[:len(targets)-1]
		} else {
			p.e.removeUsage(targets[i].w)
		}
	}
	return targets
}

func (p *preemptionCtx) restore(targets []target) {
	for _, t := range targets {
		p.e.addUsage(t.w)
	}
}

func (e *engine) targets(w *workload, cq *clusterQueue, usage map[fr]int64, frs map[fr]bool) []target {
	p := &preemptionCtx{e: e, preemptor: w, cq: cq, usage: usage, frs: frs}
	if e.fairSharing {
		return p.fair()
	}
	return p.classical()
}

// simulatePreemption is Kueue's preemption oracle for one flavor
// resource: whether victims exist, and how high the workload borrows
// once they are gone.
func (e *engine) simulatePreemption(w *workload, cq *clusterQueue, k fr, val int64) (pmode, int) {
	ts := e.targets(w, cq, map[fr]int64{k: val}, map[fr]bool{k: true})
	if len(ts) == 0 {
		b, _ := cq.node.lowestSubtreeThatFits(k, val)
		return pNoCandidates, b
	}
	for _, t := range ts {
		e.removeUsage(t.w)
	}
	b, _ := cq.node.lowestSubtreeThatFits(k, val)
	for _, t := range ts {
		e.addUsage(t.w)
	}
	for _, t := range ts {
		if t.w.admission.cq == cq {
			return pPreempt, b
		}
	}
	return pReclaim, b
}
