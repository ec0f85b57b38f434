package admission

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

const (
	strictFIFO     = quota.StrictFIFO
	bestEffortFIFO = quota.BestEffortFIFO
)

type rgSpec struct {
	quota.ResourceGroup
	labelKeys map[string]bool
}

type cqSpec struct {
	*quota.ClusterQueue
	groups   []rgSpec
	selector model.Selector
	active   bool
}

func (s *cqSpec) rgByResource(res string) *rgSpec {
	for i := range s.groups {
		if slices.Contains(s.groups[i].CoveredResources, res) {
			return &s.groups[i]
		}
	}
	return nil
}

type podSetReq struct {
	name         string
	count        int32
	minCount     *int32
	perPod       model.ResourceList
	nodeSelector map[string]string
	tolerations  []model.Toleration
}

// scaled is the pod set's total request for count pods.
func (p *podSetReq) scaled(count int32) map[string]int64 {
	out := make(map[string]int64, len(p.perPod))
	for r, v := range p.perPod {
		out[r] = v * int64(count)
	}
	return out
}

type admitted struct {
	cq       *clusterQueue
	podSets  []podSetAssignment
	usage    map[fr]int64
	reserved time.Time
}

// workload is a Workload's admission state in a run.
type workload struct {
	src         *quota.Workload
	key, uid    string
	priority    int32
	created     time.Time
	namespace   map[string]string // the namespace's labels
	cqName      string            // from the LocalQueue; "" without one
	lqMissing   bool
	podSets     []podSetReq
	admission   *admitted
	last        *lastState
	evicting    bool
	preemptMsg  string
	hasCond     bool
	condMsg     string
	propagated  bool
	lastCycle   int
	admitCycle  int
	preemptions int
	preemptedBy string
	preemptWhy  string
	preemptAt   int
	victims     []string
	// awaiting: the workload preempted and waits for its victims.
	awaiting bool
	// placement is where a placement-aware admission put its pods.
	placement map[string]string
}

// engine runs Kueue's admission cycles over a set of objects.
type engine struct {
	flavors     map[string]*quota.ResourceFlavor
	cqs         map[string]*clusterQueue
	cqOrder     []*clusterQueue
	roots       []*node
	workloads   []*workload
	byKey       map[string]*workload
	fairSharing bool
	strategies  []string
	opts        Options
	events      []Event
	// print is the fingerprint of every active heap together.
	print heapPrint
	// scratch is the usage a cycle's snapshot adds for workloads it does
	// not admit (a preemptor, quota kept for a workload that cannot
	// preempt); it is taken back out at the end of the cycle.
	scratch []scratchUsage
	start   time.Time
	cycle   int
	// err is the first error of a PlacementChecker; it ends the run.
	err error
	// running is the ClusterQueues a cycle works on: all of them, or
	// with NoThrottle one group of cohort trees (see quiesce).
	running []*clusterQueue
}

func quantityString(res string, v int64) string {
	switch {
	case res == model.ResourceCPU:
		return resource.NewMilliQuantity(v, resource.DecimalSI).String()
	case res == model.ResourceMemory || res == model.ResourceEphemeralStorage || strings.HasPrefix(res, "hugepages-"):
		return canonicalBinary(v)
	}
	return resource.NewQuantity(v, resource.DecimalSI).String()
}

// canonicalBinary prints v bytes as Kueue does: binary suffix when exact,
// decimal otherwise.
func canonicalBinary(v int64) string {
	q := resource.NewQuantity(v, resource.BinarySI)
	s := q.String()
	if _, err := resource.ParseQuantity(s); err == nil {
		return s
	}
	return resource.NewQuantity(v, resource.DecimalSI).String()
}

func (e *engine) addUsage(w *workload) {
	for k, v := range w.admission.usage {
		w.admission.cq.node.addUsage(k, v)
	}
}

func (e *engine) removeUsage(w *workload) {
	for k, v := range w.admission.usage {
		w.admission.cq.node.removeUsage(k, v)
	}
}

func (e *engine) now() time.Time { return e.start.Add(time.Duration(e.cycle) * time.Second) }

// scratchUsage is what a cycle's snapshot added to a ClusterQueue for a
// workload it did not admit.
type scratchUsage struct {
	n *node
	k fr
	v int64
}

// addScratch adds usage to n's tree for this cycle only.
func (e *engine) addScratch(n *node, usage map[fr]int64) {
	for _, k := range sortedFRs(usage) {
		n.addUsage(k, usage[k])
		e.scratch = append(e.scratch, scratchUsage{n: n, k: k, v: usage[k]})
	}
}

// dropScratch takes the cycle's snapshot-only usage back out: off the
// ClusterQueues, then the cohorts' usage is recomputed from their
// children, as Kueue's next snapshot is built from its cache (removeUsage
// is no inverse of addUsage for a negative amount, which Kueue's
// reservation gives an over-committed queue, and admissions came in
// between).
func (e *engine) dropScratch() {
	roots := map[*node]bool{}
	for _, s := range e.scratch {
		s.n.usage[s.k] -= s.v
		roots[s.n.root()] = true
	}
	e.scratch = e.scratch[:0]
	for _, r := range e.roots {
		if roots[r] {
			r.refreshUsage()
		}
	}
}

type entryStatus int

const (
	notNominated entryStatus = iota
	skipped
	assumed
)

type entry struct {
	w       *workload
	cq      *clusterQueue
	a       assignment
	targets []target
	status  entryStatus
	msg     string
	reason  reason
	last    *lastState
}

func (e *engine) nsMatches(w *workload, cq *clusterQueue) bool {
	return cq.spec.selector.Matches(w.namespace)
}

func (e *engine) nominate(heads []*entry) (entries, inadmissible []*entry) {
	for _, en := range heads {
		switch {
		case !e.nsMatches(en.w, en.cq):
			en.msg = "Workload namespace doesn't match ClusterQueue selector"
			en.reason = reasonNamespaceMismatch
			inadmissible = append(inadmissible, en)
			continue
		}
		en.a, en.targets = e.assignments(en.w, en.cq)
		en.msg = en.a.message()
		last := en.a.last
		en.last = &last
		entries = append(entries, en)
	}
	return entries, inadmissible
}

func (e *engine) assignments(w *workload, cq *clusterQueue) (assignment, []target) {
	if w.last != nil && cq.generation > w.last.generation {
		w.last = nil
	}
	as := &assigner{e: e, w: w, cq: cq}
	full := as.assign(nil)
	switch full.mode() {
	case fitMode:
		return full, nil
	case preemptMode:
		if ts := e.targets(w, cq, full.totalRequests(w), full.needPreemption()); len(ts) > 0 {
			return full, ts
		}
	}
	canPartial := slices.ContainsFunc(w.podSets, func(p podSetReq) bool { return p.minCount != nil && *p.minCount < p.count })
	if canPartial {
		var found assignment
		var foundTargets []target
		_, ok := partial(w.podSets, func(counts []int32) bool {
			a := as.assign(counts)
			switch a.mode() {
			case fitMode:
				found, foundTargets = a, nil
				return true
			case preemptMode:
				if ts := e.targets(w, cq, a.totalRequests(w), a.needPreemption()); len(ts) > 0 {
					found, foundTargets = a, ts
					return true
				}
			}
			return false
		})
		if ok {
			return found, foundTargets
		}
	}
	return full, nil
}

// sortEntries is Kueue's classical iterator order: fewer borrowing
// levels first, then higher priority, then older.
func sortEntries(entries []*entry) {
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.a.borrowing != b.a.borrowing {
			return a.a.borrowing < b.a.borrowing
		}
		if a.w.priority != b.w.priority {
			return a.w.priority > b.w.priority
		}
		if !a.w.created.Equal(b.w.created) {
			return a.w.created.Before(b.w.created)
		}
		return a.w.key < b.w.key
	})
}

// cycleResult says what one cycle did.
type cycleResult struct {
	admitted, preempted int
	// heads is the state the cycle left its heads in (see headsState).
	heads uint64
}

func (e *engine) runCycle(ctx context.Context) cycleResult {
	var res cycleResult
	var heads []*entry
	for _, cq := range e.running {
		if !cq.spec.active {
			continue
		}
		if w := cq.pop(); w != nil {
			heads = append(heads, &entry{w: w, cq: cq})
		}
	}
	if len(heads) == 0 {
		return res
	}
	entries, inadmissible := e.nominate(heads)
	preempted := map[string]bool{}
	var preemptedList, victims []*workload
	process := func(en *entry) {
		m := en.a.mode()
		if m == noFit {
			return
		}
		if m == preemptMode && len(en.targets) == 0 {
			if en.cq.spec.Preemption.ReclaimWithinCohort != quota.PolicyAny {
				e.addScratch(en.cq.node, e.toReserve(en))
			}
			return
		}
		if slices.ContainsFunc(en.targets, func(t target) bool { return preempted[t.w.key] }) {
			en.status, en.msg, en.last = skipped, "Workload has overlapping preemption targets with another workload", nil
			return
		}
		if !e.fitsAfterRemoval(en, preemptedList) {
			en.status, en.msg, en.last = skipped, "Workload no longer fits after processing another workload", nil
			return
		}
		for _, t := range en.targets {
			if !preempted[t.w.key] {
				preempted[t.w.key] = true
				preemptedList = append(preemptedList, t.w)
			}
		}
		if m == preemptMode {
			e.addScratch(en.cq.node, en.a.usage)
			en.last = nil
			n := 0
			for _, t := range en.targets {
				if !t.w.evicting {
					e.preempt(en, t)
					victims = append(victims, t.w)
					e.events = append(e.events, Event{Cycle: e.cycle, Kind: EventPreempted, Workload: t.w.key, By: en.w.key})
				}
				n++
			}
			if n > 0 {
				en.msg += fmt.Sprintf(". Pending the preemption of %d workload(s)", n)
				en.reason = reasonPendingPreemption
				en.w.awaiting = true
			}
			return
		}
		if !e.place(ctx, en) {
			return
		}
		e.admit(en)
		res.admitted++
	}
	all := entries
	if e.opts.Progress {
		// Berth's rule: preemptors whose victims are gone go first.
		var first, rest []*entry
		for _, en := range entries {
			if en.w.awaiting {
				first = append(first, en)
			} else {
				rest = append(rest, en)
			}
		}
		sortEntries(first)
		for _, en := range first {
			process(en)
		}
		entries = rest
	}
	if e.fairSharing {
		e.fairOrder(entries, process)
	} else {
		sortEntries(entries)
		for _, en := range entries {
			process(en)
		}
	}
	for _, en := range all {
		if en.status != assumed {
			e.requeueAndUpdate(en)
		}
	}
	for _, en := range inadmissible {
		e.requeueAndUpdate(en)
	}
	res.preempted = len(victims)
	if res.admitted == 0 && res.preempted == 0 && (e.opts.NoThrottle || e.opts.Quiesce) {
		res.heads = headsState(heads) // only a quiet rule reads it
	}
	e.dropScratch()
	e.finishEvictions(ctx, victims)
	return res
}

func (e *engine) toReserve(en *entry) map[fr]int64 {
	out := map[fr]int64{}
	n := en.cq.node
	for k, u := range en.a.usage {
		q := n.quotas[k]
		if en.a.borrowing > 0 {
			if q.BorrowingLimit == nil {
				out[k] = u
			} else {
				out[k] = min(u, q.Nominal+*q.BorrowingLimit-n.usage[k])
			}
		} else {
			out[k] = max(0, min(u, q.Nominal-n.usage[k]))
		}
	}
	return out
}

func (e *engine) fitsAfterRemoval(en *entry, preempted []*workload) bool {
	removed := slices.Clone(preempted)
	for _, t := range en.targets {
		if !slices.Contains(removed, t.w) {
			removed = append(removed, t.w)
		}
	}
	for _, w := range removed {
		e.removeUsage(w)
	}
	fits := true
	for k, v := range en.a.usage {
		if max(0, en.cq.node.available(k)) < v {
			fits = false
		}
	}
	for _, w := range removed {
		e.addUsage(w)
	}
	return fits
}

func (e *engine) preempt(en *entry, t target) {
	v := t.w
	v.evicting = true
	v.preemptions++
	v.preemptAt = e.cycle
	v.preemptWhy = t.reason
	v.preemptedBy = en.w.key
	v.preemptMsg = fmt.Sprintf("Preempted to accommodate a workload (UID: %s, JobUID: UNKNOWN) due to %s; preemptor path: %s; preemptee path: %s",
		en.w.uid, humanReasons[t.reason], en.cq.node.path(), v.admission.cq.node.path())
	v.lastCycle = e.cycle
	en.w.victims = append(en.w.victims, v.key)
}

func (e *engine) admit(en *entry) {
	w := en.w
	en.status = assumed
	w.admission = &admitted{cq: en.cq, podSets: en.a.podSets, usage: en.a.totalRequests(w), reserved: e.now()}
	e.addUsage(w)
	w.admitCycle = e.cycle
	w.lastCycle = e.cycle
	w.awaiting = false
	e.events = append(e.events, Event{Cycle: e.cycle, Kind: EventAdmitted, Workload: w.key})
	w.last = nil
	en.cq.admitted[w.key] = w
	en.cq.remove(w.key)
}

// requeueAndUpdate puts a workload that was not admitted back in its
// queue and writes its Pending condition; a changed condition is an
// update event, which replaces the queue's copy (forgetting the flavors
// tried).
func (e *engine) requeueAndUpdate(en *entry) {
	r := en.reason
	if en.status != notNominated && r == reasonGeneric {
		r = reasonFailedAfterNomination
	}
	w := en.w
	w.last = en.last
	en.cq.requeue(w, r)
	if !w.hasCond || w.condMsg != en.msg || !w.propagated {
		w.hasCond, w.condMsg, w.propagated = true, en.msg, true
		w.lastCycle = e.cycle
		w.last = nil
	}
}

// finishEvictions releases the victims' quota (their pods are gone at
// once, as in the oracle) and requeues them and their cohort trees'
// inadmissible workloads.
func (e *engine) finishEvictions(ctx context.Context, victims []*workload) {
	roots := map[*node]bool{}
	for _, v := range victims {
		if err := e.unplace(ctx, v); err != nil && e.err == nil {
			e.err = fmt.Errorf("releasing the placement of %s: %w", v.key, err)
		}
		cq := v.admission.cq
		e.removeUsage(v)
		delete(cq.admitted, v.key)
		cq.generation++
		v.admission = nil
		v.evicting = false
		v.hasCond, v.condMsg = true, v.preemptMsg
		v.last = nil
		if home := e.cqs[v.cqName]; home != nil {
			home.push(v)
		}
		roots[cq.node.root()] = true
	}
	for _, cq := range e.running {
		if roots[cq.node.root()] {
			cq.requeueInadmissible(func(w *workload) bool { return e.nsMatches(w, cq) })
		}
	}
}
