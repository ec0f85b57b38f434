package admission

import (
	"cmp"
	"container/heap"
	"hash/fnv"
)

// clusterQueue is a ClusterQueue's queue state: Kueue's active heap, its
// inadmissible list and the counters that decide where a requeued
// workload goes.
type clusterQueue struct {
	spec         *cqSpec
	node         *node
	heap         wlHeap
	inadmissible map[string]*workload
	popCycle     int64
	// requeuedAt is the popCycle at which the inadmissible list was last
	// moved back (Kueue's queueInadmissibleCycle).
	requeuedAt int64
	sticky     string
	admitted   map[string]*workload
	generation int64
	// fingerprint tracks the heap's content (count and sum of key
	// hashes), so a cycle that changed no heap is seen without a dump.
	fingerprint *heapPrint
}

type heapPrint struct {
	n   int
	sum uint64
}

func keyHash(k string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(k))
	return h.Sum64()
}

// wlHeap is the ClusterQueue's active heap, ordered as Kueue's.
type wlHeap struct {
	cq    *clusterQueue
	items []*workload
	index map[string]int
}

func (h *wlHeap) Len() int { return len(h.items) }
func (h *wlHeap) Less(i, j int) bool {
	return h.cq.less(h.items[i], h.items[j]) < 0
}
func (h *wlHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.index[h.items[i].key] = i
	h.index[h.items[j].key] = j
}
func (h *wlHeap) Push(x any) {
	w := x.(*workload)
	h.index[w.key] = len(h.items)
	h.items = append(h.items, w)
}
func (h *wlHeap) Pop() any {
	w := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	delete(h.index, w.key)
	return w
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
	_, ok := c.heap.index[key]
	return ok
}

func (c *clusterQueue) push(w *workload) bool {
	if c.inHeap(w.key) {
		return false
	}
	heap.Push(&c.heap, w)
	c.fingerprint.n++
	c.fingerprint.sum += keyHash(w.key)
	return true
}

func (c *clusterQueue) pop() *workload {
	c.popCycle++
	if c.heap.Len() == 0 {
		return nil
	}
	w := heap.Pop(&c.heap).(*workload)
	c.fingerprint.n--
	c.fingerprint.sum -= keyHash(w.key)
	return w
}

func (c *clusterQueue) remove(key string) {
	if i, ok := c.heap.index[key]; ok {
		heap.Remove(&c.heap, i)
		c.fingerprint.n--
		c.fingerprint.sum -= keyHash(key)
	}
	delete(c.inadmissible, key)
	if c.sticky == key {
		c.sticky = ""
	}
}

// setSticky makes key the workload first out of the heap (a preemptor
// waiting for its victims); the heap is reordered when an earlier sticky
// workload is still in it.
func (c *clusterQueue) setSticky(key string) {
	old := c.sticky
	c.sticky = key
	if old != "" && old != key && c.inHeap(old) {
		heap.Init(&c.heap)
	}
}

// requeue is RequeueIfNotPresent: an immediate requeue, or one after the
// inadmissible list was requeued since the pop, or one with flavors still
// to try goes back to the heap; otherwise to the inadmissible list.
func (c *clusterQueue) requeue(w *workload, r reason) {
	if r == reasonPendingPreemption && c.spec.QueueingStrategy == bestEffortFIFO {
		c.setSticky(w.key)
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
