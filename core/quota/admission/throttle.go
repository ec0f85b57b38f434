package admission

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
)

// quiesce is the run under Options.NoThrottle. Kueue's cycles couple
// ClusterQueues only through quota (a cohort tree) and through a
// workload that is queued in one tree but admitted in another (its
// eviction requeues it at home); everything else a cycle does to one
// such group is independent of the others. So each group runs its own
// cycles, numbered as Kueue's would be, until it is quiet (see quiet),
// and a group with nothing left to do costs nothing while the others go
// on: the outcome is the cycle engine's under Options.Quiesce.
func (e *engine) quiesce(ctx context.Context) Summary {
	sum := Summary{Reason: "quiet"}
	limit := e.maxCycles()
	for _, group := range e.groups() {
		if ctx.Err() != nil {
			sum.Reason = "cancelled"
			break
		}
		cycles, capped := e.quiesceGroup(ctx, group, limit)
		sum.Cycles = max(sum.Cycles, cycles)
		if capped {
			sum.Reason = fmt.Sprintf("stopped after %d cycles", limit)
		}
	}
	e.running = e.cqOrder
	slices.SortStableFunc(e.events, func(a, b Event) int { return a.Cycle - b.Cycle })
	return sum
}

// quiesceGroup runs one group's cycles from cycle 1 until it is quiet,
// has no workload in an active heap, or reaches the cycle limit. It
// reports the cycles run and whether the limit was hit.
func (e *engine) quiesceGroup(ctx context.Context, group []*clusterQueue, limit int) (int, bool) {
	fp := &heapPrint{}
	for _, cq := range group {
		cq.fingerprint = fp
		for _, w := range cq.heap.items {
			fp.n++
			fp.sum += keyHash(w.key)
		}
	}
	defer func() {
		for _, cq := range group {
			cq.fingerprint = &e.print
		}
	}()
	e.running, e.cycle = group, 0
	var q quiet
	for ctx.Err() == nil && e.err == nil && e.anyActiveHeap() {
		if e.cycle >= limit {
			return e.cycle, true
		}
		before := *fp
		e.cycle++
		if q.after(e.runCycle(ctx), before == *fp) {
			break
		}
	}
	return e.cycle, false
}

// quiet tells when further cycles would only repeat themselves. A cycle
// that admits nothing, preempts nothing and leaves every heap as it was
// changes only its heads' conditions and where their flavor searches
// resume; Kueue's loop (and Run's) stops at the first such cycle, though
// the next could resume a search and admit. Once the heads' state
// repeats one seen since the last cycle that did more, every later cycle
// repeats an earlier one, and nothing will be admitted until an event.
type quiet struct {
	seen map[uint64]bool
}

// after records a cycle's result (unchanged: no heap changed) and says
// whether the run is quiet.
func (q *quiet) after(r cycleResult, unchanged bool) bool {
	if r.admitted > 0 || r.preempted > 0 || !unchanged {
		q.seen = nil
		return false
	}
	if q.seen[r.heads] {
		return true
	}
	if q.seen == nil {
		q.seen = map[uint64]bool{}
	}
	q.seen[r.heads] = true
	return false
}

// headsState hashes what a quiet cycle can change in its heads: which
// they are, their conditions and where their flavor searches resume.
func headsState(heads []*entry) uint64 {
	h := fnv.New64a()
	write := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, en := range heads {
		w := en.w
		write(w.key)
		write(strconv.FormatBool(w.hasCond))
		write(w.condMsg)
		if w.last != nil {
			for i, ps := range w.last.tried {
				for _, res := range sortedKeys(ps) {
					write(strconv.Itoa(i) + "/" + res + "=" + strconv.Itoa(ps[res]))
				}
			}
		}
		h.Write([]byte{1})
	}
	return h.Sum64()
}

// groups partitions the ClusterQueues, in their order, into groups whose
// cycles cannot affect each other: the ClusterQueues of one cohort tree,
// joined with another tree's when a workload admitted in one is queued
// in the other; all of them when placement-aware admission places pods
// on the nodes they share.
func (e *engine) groups() [][]*clusterQueue {
	if e.opts.Placement != nil && slices.ContainsFunc(e.cqOrder, func(cq *clusterQueue) bool { return cq.spec.AdmissionPlacement }) {
		// Placement-aware admission shares the nodes: every tree is
		// coupled through them, and runs in one group.
		return [][]*clusterQueue{e.cqOrder}
	}
	parent := map[*node]*node{}
	var find func(n *node) *node
	find = func(n *node) *node {
		p, ok := parent[n]
		if !ok || p == n {
			return n
		}
		r := find(p)
		parent[n] = r
		return r
	}
	union := func(a, b *node) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[rb] = ra
		}
	}
	for _, w := range e.workloads {
		home := e.cqs[w.cqName]
		if w.admission != nil && home != nil {
			union(w.admission.cq.node.root(), home.node.root())
		}
	}
	index := map[*node]int{}
	var out [][]*clusterQueue
	for _, cq := range e.cqOrder {
		r := find(cq.node.root())
		i, ok := index[r]
		if !ok {
			i = len(out)
			index[r] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], cq)
	}
	return out
}
