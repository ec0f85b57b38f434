package helper_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/plugins/helper"
)

// Chunked covers [0, n) exactly once, in order, in chunks of one size (the
// last may be shorter), at most Parallelism of them and one per MinChunk.
func TestChunked(t *testing.T) {
	tests := []struct {
		name        string
		parallelism int
		n           int
		wantChunks  int
	}{
		{"nothing", 4, 0, 0},
		{"fewer than a chunk", 4, 10, 1},
		{"exactly one chunk", 4, helper.MinChunk, 1},
		{"two chunks", 4, helper.MinChunk + 1, 2},
		{"bounded by parallelism", 4, 1000, 4},
		{"sequential", 1, 1000, 1},
		{"zero parallelism is one", 0, 1000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := helper.Chunked(t.Context(), framework.Parallelizer{Parallelism: tt.parallelism}, tt.n, func(lo, hi int) [2]int {
				return [2]int{lo, hi}
			})
			if len(got) != tt.wantChunks {
				t.Fatalf("%d chunks, want %d: %v", len(got), tt.wantChunks, got)
			}
			var covered []int
			for i, c := range got {
				if i > 0 && i < len(got)-1 && c[1]-c[0] != got[0][1]-got[0][0] {
					t.Errorf("chunk %d is %v, not the size of chunk 0 %v", i, c, got[0])
				}
				for j := c[0]; j < c[1]; j++ {
					covered = append(covered, j)
				}
			}
			want := make([]int, tt.n)
			for i := range want {
				want[i] = i
			}
			if diff := cmp.Diff(want, covered, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("items covered (-want +got):\n%s", diff)
			}
		})
	}
}

// A cancelled context leaves chunks unrun (their zero values).
func TestChunkedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got := helper.Chunked(ctx, framework.Parallelizer{Parallelism: 1}, 1000, func(lo, hi int) int { return hi - lo })
	if len(got) != 1 || got[0] != 0 {
		t.Errorf("Chunked on a cancelled context = %v, want one unrun chunk", got)
	}
}
