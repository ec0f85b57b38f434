package admission

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

// mode is how a flavor assignment can be had, worst first.
type mode int

const (
	noFit mode = iota
	preemptMode
	fitMode
)

// preemption possibilities, worst first, as Kueue's granular mode.
type pmode int

const (
	pNoFit pmode = iota
	pNoCandidates
	pPreempt
	pReclaim
	pFit
)

func (p pmode) mode() mode {
	switch p {
	case pNoFit:
		return noFit
	case pFit:
		return fitMode
	}
	return preemptMode
}

type granular struct {
	p      pmode
	borrow int
}

var (
	worstGranular = granular{p: pNoFit, borrow: 1 << 30}
	bestGranular  = granular{p: pFit}
)

func isPreferred(a, b granular, ff quota.FlavorFungibility) bool {
	if a.p == pNoFit {
		return false
	}
	if b.p == pNoFit {
		return true
	}
	if ff.Preference == quota.PreemptionOverBorrowing {
		if a.borrow != b.borrow {
			return a.borrow < b.borrow
		}
		return a.p > b.p
	}
	if a.p != b.p {
		return a.p > b.p
	}
	return a.borrow < b.borrow
}

func shouldTryNextFlavor(g granular, ff quota.FlavorFungibility) bool {
	if g.p == pNoFit || g.p == pNoCandidates {
		return true
	}
	if (g.p == pPreempt || g.p == pReclaim) && ff.WhenCanPreempt == quota.FungibilityTryNextFlavor {
		return true
	}
	return g.borrow != 0 && ff.WhenCanBorrow == quota.FungibilityTryNextFlavor
}

type flavorAssignment struct {
	flavor string
	mode   mode
	tried  int
	borrow int
}

type status struct {
	reasons []string
	err     string
}

func (s *status) fit() bool { return s == nil || (s.err == "" && len(s.reasons) == 0) }

func (s *status) message() string {
	if s.err != "" {
		return s.err
	}
	r := slices.Clone(s.reasons)
	slices.Sort(r)
	return strings.Join(r, ", ")
}

type podSetAssignment struct {
	name     string
	flavors  map[string]*flavorAssignment
	status   status
	requests map[string]int64 // total of the pod set
	count    int32
}

func (p *podSetAssignment) mode() mode {
	if p.status.fit() {
		return fitMode
	}
	if p.status.err != "" || len(p.flavors) == 0 {
		return noFit
	}
	m := fitMode
	for _, f := range p.flavors {
		m = min(m, f.mode)
	}
	return m
}

// lastState remembers, per pod set and resource, the last flavor tried
// (-1: all were), so that a requeued workload resumes the search.
type lastState struct {
	tried      []map[string]int
	generation int64
}

func (l *lastState) pendingFlavors() bool {
	if l == nil {
		return false
	}
	for _, ps := range l.tried {
		for _, i := range ps {
			if i != -1 {
				return true
			}
		}
	}
	return false
}

func (l *lastState) next(ps int, res string) int {
	if l == nil || ps >= len(l.tried) {
		return 0
	}
	i, ok := l.tried[ps][res]
	if !ok {
		return 0
	}
	return i + 1
}

type assignment struct {
	podSets   []podSetAssignment
	borrowing int
	usage     map[fr]int64
	last      lastState
}

func (a *assignment) mode() mode {
	if len(a.podSets) == 0 {
		return noFit
	}
	m := fitMode
	for i := range a.podSets {
		m = min(m, a.podSets[i].mode())
	}
	return m
}

func (a *assignment) message() string {
	var b strings.Builder
	for _, ps := range a.podSets {
		if ps.status.fit() {
			continue
		}
		if ps.status.err != "" {
			return fmt.Sprintf("failed to assign flavors to pod set %s: %s", ps.name, ps.status.err)
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString("couldn't assign flavors to pod set " + ps.name + ": " + ps.status.message())
	}
	return b.String()
}

// needPreemption is the flavor resources assigned in preempt mode.
func (a *assignment) needPreemption() map[fr]bool {
	out := map[fr]bool{}
	for _, ps := range a.podSets {
		for res, f := range ps.flavors {
			if f.mode == preemptMode {
				out[fr{Flavor: f.flavor, Resource: res}] = true
			}
		}
	}
	return out
}

// totalRequests is the usage of the workload with this assignment (the
// pods count included where the ClusterQueue covers pods).
func (a *assignment) totalRequests(*workload) map[fr]int64 {
	u := map[fr]int64{}
	for _, ps := range a.podSets {
		for res, q := range ps.requests {
			if q == 0 {
				continue
			}
			if f := ps.flavors[res]; f != nil {
				u[fr{Flavor: f.flavor, Resource: res}] += q
			}
		}
	}
	return u
}

// assigner is Kueue's flavor assigner for one workload in one cycle.
type assigner struct {
	e  *engine
	w  *workload
	cq *clusterQueue
}

func (a *assigner) assign(counts []int32) assignment {
	out := assignment{usage: map[fr]int64{}, last: lastState{generation: a.cq.generation}}
	for i, ps := range a.w.podSets {
		count := ps.count
		if counts != nil {
			count = counts[i]
		}
		requests := ps.scaled(count)
		if a.cq.spec.rgByResource(model.ResourcePods) != nil {
			requests[model.ResourcePods] = int64(count)
		}
		psa := podSetAssignment{name: ps.name, requests: requests, count: count}
		groupFlavors := map[string]*flavorAssignment{}
		var groupStatus status
		for _, res := range sortedKeys(requests) {
			if requests[res] == 0 && a.cq.spec.rgByResource(res) == nil {
				continue
			}
			if _, ok := groupFlavors[res]; ok {
				continue
			}
			flavors, st := a.findFlavor(i, requests, res, out.usage)
			if st.err != "" || (len(flavors) == 0 && len(requests) > 0) {
				groupFlavors = nil
				groupStatus = st
				break
			}
			for k, v := range flavors {
				groupFlavors[k] = v
			}
			groupStatus.reasons = append(groupStatus.reasons, st.reasons...)
		}
		psa.flavors = map[string]*flavorAssignment{}
		for res := range requests {
			if f, ok := groupFlavors[res]; ok {
				psa.flavors[res] = f
			}
		}
		psa.status = groupStatus
		tried := map[string]int{}
		for res, f := range psa.flavors {
			out.borrowing = max(out.borrowing, f.borrow)
			out.usage[fr{Flavor: f.flavor, Resource: res}] += requests[res]
			tried[res] = f.tried
		}
		out.last.tried = append(out.last.tried, tried)
		out.podSets = append(out.podSets, psa)
		if psa.status.err != "" || (len(requests) > 0 && len(psa.flavors) == 0) {
			return out
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func (a *assigner) findFlavor(ps int, requests map[string]int64, res string, assumed map[fr]int64) (map[string]*flavorAssignment, status) {
	rg := a.cq.spec.rgByResource(res)
	if rg == nil {
		return nil, status{reasons: []string{fmt.Sprintf("resource %s unavailable in ClusterQueue", res)}}
	}
	var st status
	var best map[string]*flavorAssignment
	bestMode := worstGranular
	attempted := -1
	ff := a.cq.spec.FlavorFungibility
	idx := a.w.last.next(ps, res)
	for ; idx < len(rg.Flavors); idx++ {
		attempted = idx
		fName := rg.Flavors[idx].Name
		if reason := a.checkFlavor(fName, ps, rg); reason != "" {
			st.reasons = append(st.reasons, reason)
			continue
		}
		assignments := map[string]*flavorAssignment{}
		rep := bestGranular
		for _, rName := range rg.CoveredResources {
			val, ok := requests[rName]
			if !ok {
				continue
			}
			k := fr{Flavor: fName, Resource: rName}
			p, borrow, reasons := a.fitsQuota(k, assumed[k], val)
			st.reasons = append(st.reasons, reasons...)
			g := granular{p: p, borrow: borrow}
			if isPreferred(rep, g, ff) {
				rep = g
			}
			if rep.p == pNoFit {
				break
			}
			assignments[rName] = &flavorAssignment{flavor: fName, mode: p.mode(), borrow: borrow}
		}
		if !shouldTryNextFlavor(rep, ff) {
			best, bestMode = assignments, rep
			break
		}
		if isPreferred(rep, bestMode, ff) {
			best, bestMode = assignments, rep
		}
	}
	for _, f := range best {
		if attempted == len(rg.Flavors)-1 {
			f.tried = -1
		} else {
			f.tried = attempted
		}
	}
	if bestMode.p == pFit {
		return best, status{}
	}
	return best, st
}

// checkFlavor is Kueue's flavor check: the pod set tolerates the
// flavor's taints and its node selector matches the flavor's labels
// (only the label keys the group's flavors use).
func (a *assigner) checkFlavor(name string, ps int, rg *rgSpec) string {
	f := a.e.flavors[name]
	if f == nil {
		return fmt.Sprintf("flavor %s not found", name)
	}
	spec := &a.w.podSets[ps]
	tols := append(slices.Clone(spec.tolerations), f.Tolerations...)
	for i := range f.NodeTaints {
		t := &f.NodeTaints[i]
		if t.Effect != model.TaintEffectNoSchedule && t.Effect != model.TaintEffectNoExecute {
			continue
		}
		if !model.TolerationsTolerate(tols, t) {
			return fmt.Sprintf("untolerated taint %s in flavor %s", taintString(t), name)
		}
	}
	for k, v := range spec.nodeSelector {
		if !rg.labelKeys[k] {
			continue
		}
		if got, ok := f.NodeLabels[k]; !ok || got != v {
			return fmt.Sprintf("flavor %s doesn't match node affinity", name)
		}
	}
	return ""
}

// taintString prints a taint as Kueue's message does (Go's %s of a
// corev1.Taint value, TimeAdded unset).
func taintString(t *model.Taint) string {
	return "{" + t.Key + " " + t.Value + " " + string(t.Effect) + " <nil>}"
}

func (a *assigner) fitsQuota(k fr, assumed, request int64) (pmode, int, []string) {
	n := a.cq.node
	available := max(0, n.available(k))
	maxCapacity := n.potentialAvailable(k)
	val := assumed + request
	if val > maxCapacity {
		return pNoFit, 0, []string{fmt.Sprintf("insufficient quota for %s in flavor %s, previously considered podsets requests (%s) + current podset request (%s) > maximum capacity (%s)",
			k.Resource, k.Flavor, quantityString(k.Resource, assumed), quantityString(k.Resource, request), quantityString(k.Resource, maxCapacity))}
	}
	borrow, mayReclaim := n.lowestSubtreeThatFits(k, val)
	if val <= available {
		return pFit, borrow, nil
	}
	reasons := []string{fmt.Sprintf("insufficient unused quota for %s in flavor %s, %s more needed", k.Resource, k.Flavor, quantityString(k.Resource, val-available))}
	if val <= a.cq.node.quotas[k].Nominal || mayReclaim || a.canPreemptWhileBorrowing() {
		p, b := a.e.simulatePreemption(a.w, a.cq, k, val)
		return p, b, reasons
	}
	return pNoFit, borrow, reasons
}

func (a *assigner) canPreemptWhileBorrowing() bool {
	p := a.cq.spec.Preemption
	return (p.BorrowWithinCohort.Policy != "" && p.BorrowWithinCohort.Policy != quota.PolicyNever) ||
		(a.e.fairSharing && p.ReclaimWithinCohort != quota.PolicyNever)
}

// partial is Kueue's pod set reducer: the largest counts between minCount
// and count (scaled together) for which fit reports success.
func partial(pss []podSetReq, fit func([]int32) bool) ([]int32, bool) {
	var total int32
	deltas := make([]int32, len(pss))
	for i, ps := range pss {
		if ps.minCount != nil {
			deltas[i] = ps.count - *ps.minCount
		}
		total += deltas[i]
	}
	if total == 0 {
		return nil, false
	}
	lastGood := 0
	var lastCounts []int32
	idx := sort.Search(int(total)+1, func(i int) bool {
		cur := make([]int32, len(pss))
		for j, d := range deltas {
			cur[j] = pss[j].count - int32(int64(d)*int64(i)/int64(total))
		}
		ok := fit(cur)
		if ok {
			lastGood, lastCounts = i, cur
		}
		return ok
	})
	return lastCounts, idx == lastGood && lastCounts != nil
}
