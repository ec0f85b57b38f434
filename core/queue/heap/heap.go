package heap

// Heap is a min-heap of T ordered by less. setIndex is called whenever an
// item moves, with -1 when it leaves the heap, so the owner can keep the
// position inside the item and pass it back to Remove and Fix.
type Heap[T any] struct {
	items    []T
	less     func(a, b T) bool
	setIndex func(item T, i int)
}

// New returns an empty heap.
func New[T any](less func(a, b T) bool, setIndex func(item T, i int)) *Heap[T] {
	return &Heap[T]{less: less, setIndex: setIndex}
}

// Len returns the number of items.
func (h *Heap[T]) Len() int { return len(h.items) }

// Push adds an item.
func (h *Heap[T]) Push(item T) {
	h.items = append(h.items, item)
	n := len(h.items) - 1
	h.setIndex(item, n)
	h.up(n)
}

// Peek returns the smallest item without removing it.
func (h *Heap[T]) Peek() (T, bool) {
	if len(h.items) == 0 {
		var zero T
		return zero, false
	}
	return h.items[0], true
}

// Pop removes and returns the smallest item.
func (h *Heap[T]) Pop() (T, bool) {
	if len(h.items) == 0 {
		var zero T
		return zero, false
	}
	return h.Remove(0), true
}

// Remove removes and returns the item at position i.
func (h *Heap[T]) Remove(i int) T {
	item := h.items[i]
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	var zero T
	h.items[last] = zero
	h.items = h.items[:last]
	if i != last {
		h.Fix(i)
	}
	h.setIndex(item, -1)
	return item
}

// Fix restores the order after the item at position i changed.
func (h *Heap[T]) Fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

// Items returns the items in heap (not sorted) order. The slice is shared
// with the heap: read it before the next change.
func (h *Heap[T]) Items() []T { return h.items }

func (h *Heap[T]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.setIndex(h.items[i], i)
	h.setIndex(h.items[j], j)
}

func (h *Heap[T]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(h.items[i], h.items[parent]) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down sifts the item at i towards the leaves and reports whether it moved.
func (h *Heap[T]) down(i int) bool {
	start, n := i, len(h.items)
	for {
		child := 2*i + 1
		if child >= n {
			break
		}
		if r := child + 1; r < n && h.less(h.items[r], h.items[child]) {
			child = r
		}
		if !h.less(h.items[child], h.items[i]) {
			break
		}
		h.swap(i, child)
		i = child
	}
	return i > start
}
