package heap

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type item struct {
	val, idx int
}

func newIntHeap() *Heap[*item] {
	return New(func(a, b *item) bool { return a.val < b.val }, func(it *item, i int) { it.idx = i })
}

func drain(h *Heap[*item]) []int {
	var out []int
	for {
		it, ok := h.Pop()
		if !ok {
			return out
		}
		out = append(out, it.val)
	}
}

func TestHeap(t *testing.T) {
	tests := []struct {
		name string
		run  func(h *Heap[*item]) []int
		want []int
	}{
		{
			name: "pop in order",
			run: func(h *Heap[*item]) []int {
				for _, v := range []int{5, 1, 4, 2, 3} {
					h.Push(&item{val: v})
				}
				return drain(h)
			},
			want: []int{1, 2, 3, 4, 5},
		},
		{
			name: "remove from the middle",
			run: func(h *Heap[*item]) []int {
				its := []*item{{val: 5}, {val: 1}, {val: 4}, {val: 2}, {val: 3}}
				for _, it := range its {
					h.Push(it)
				}
				got := h.Remove(its[2].idx)
				if got.val != 4 || got.idx != -1 {
					return []int{-1}
				}
				return drain(h)
			},
			want: []int{1, 2, 3, 5},
		},
		{
			name: "fix after a change",
			run: func(h *Heap[*item]) []int {
				its := []*item{{val: 5}, {val: 1}, {val: 4}}
				for _, it := range its {
					h.Push(it)
				}
				its[0].val = 0
				h.Fix(its[0].idx)
				its[1].val = 9
				h.Fix(its[1].idx)
				return drain(h)
			},
			want: []int{0, 4, 9},
		},
		{
			name: "empty",
			run: func(h *Heap[*item]) []int {
				if _, ok := h.Peek(); ok {
					return []int{-1}
				}
				return drain(h)
			},
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.run(newIntHeap())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestHeapRandom checks the heap and the stored indexes against a sorted
// slice under random pushes, removals and re-orderings.
func TestHeapRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	h := newIntHeap()
	var live []*item
	for step := 0; step < 5000; step++ {
		switch op := r.IntN(4); {
		case op <= 1 || len(live) == 0:
			it := &item{val: r.IntN(100)}
			h.Push(it)
			live = append(live, it)
		case op == 2:
			k := r.IntN(len(live))
			h.Remove(live[k].idx)
			live = slices.Delete(live, k, k+1)
		default:
			k := r.IntN(len(live))
			live[k].val = r.IntN(100)
			h.Fix(live[k].idx)
		}
		for i, it := range h.Items() {
			if it.idx != i {
				t.Fatalf("step %d: item at %d records index %d", step, i, it.idx)
			}
		}
	}
	want := make([]int, 0, len(live))
	for _, it := range live {
		want = append(want, it.val)
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, drain(h)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
