package admission

import (
	"cmp"
	"slices"
)

// clusterQueue is a ClusterQueue's queue state: Kueue's active heap, its
// inadmissible list and the counters that decide where a requeued
// workload goes.
type clusterQueue struct {
	spec         *cqSpec
	node         *node
	heap         []*workload // kept sorted by less
	inadmissible map[string]*workload
	popCycle     int64
	// requeuedAt is the popCycle at which the inadmissible list was last
	// moved back (Kueue's queueInadmissibleCycle).
	requeuedAt int64
	sticky     string
	admitted   map[string]*workload
	generation int64
}

func (c *clusterQueue) less(a, b *workload) int {
	if as, bs := a.key == c.sticky, b.key == c.sticky; as != bs {
		if as {
			return -1
		}
		return 1
	}
	if a.priority != b.priority {
		return cmp.Compare(b.priority, a.priority)
	}
	if !a.created.Equal(b.created) {
		return a.created.Compare(b.created)
	}
	return cmp.Compare(a.uid, b.uid)
}

func (c *clusterQueue) inHeap(key string) bool {
	return slices.ContainsFunc(c.heap, func(w *workload) bool { return w.key == key })
}

func (c *clusterQueue) push(w *workload) bool {
	if c.inHeap(w.key) {
		return false
	}
	c.heap = append(c.heap, w)
	return true
}

// pushOrUpdate is the queue manager's reaction to a workload update event.
func (c *clusterQueue) pushOrUpdate(w *workload, specChanged bool) {
	if _, ok := c.inadmissible[w.key]; ok {
		if !specChanged {
			return
		}
		delete(c.inadmissible, w.key)
	}
	c.push(w)
}

func (c *clusterQueue) pop() *workload {
	c.popCycle++
	if len(c.heap) == 0 {
		return nil
	}
	slices.SortStableFunc(c.heap, c.less)
	w := c.heap[0]
	c.heap = c.heap[1:]
	return w
}

func (c *clusterQueue) remove(key string) {
	c.heap = slices.DeleteFunc(c.heap, func(w *workload) bool { return w.key == key })
	delete(c.inadmissible, key)
	if c.sticky == key {
		c.sticky = ""
	}
}

// requeue is RequeueIfNotPresent: an immediate requeue, or one after the
// inadmissible list was requeued since the pop, or one with flavors still
// to try goes back to the heap; otherwise to the inadmissible list.
func (c *clusterQueue) requeue(w *workload, r reason) {
	if r == reasonPendingPreemption && c.spec.QueueingStrategy == bestEffortFIFO {
		c.sticky = w.key
	}
	var immediate bool
	if c.spec.QueueingStrategy == strictFIFO {
		immediate = r != reasonNamespaceMismatch
	} else {
		immediate = r == reasonFailedAfterNomination || r == reasonPendingPreemption
	}
	if immediate || c.requeuedAt >= c.popCycle || w.last.pendingFlavors() {
		delete(c.inadmissible, w.key)
		c.push(w)
		return
	}
	if c.inHeap(w.key) {
		return
	}
	c.inadmissible[w.key] = w
}

// requeueInadmissible moves the inadmissible list back to the heap.
func (c *clusterQueue) requeueInadmissible(nsMatches func(*workload) bool) {
	c.requeuedAt = c.popCycle
	for k, w := range c.inadmissible {
		if !nsMatches(w) {
			continue
		}
		c.push(w)
		delete(c.inadmissible, k)
	}
}

type reason int

const (
	reasonGeneric reason = iota
	reasonNamespaceMismatch
	reasonFailedAfterNomination
	reasonPendingPreemption
)
