package helper

import (
	"context"

	"github.com/berthsched/berth/core/framework"
)

// MinChunk is the least number of items (nodes) worth a goroutine of their
// own in Chunked.
const MinChunk = 64

// Chunked splits [0, n) into at most p.Parallelism chunks, and no more
// than one per MinChunk items, of one size (the last may be shorter),
// runs fn on each chunk in parallel and returns the results
// in chunk order; the caller checks ctx.Err(), as a cancelled context
// leaves chunks unrun. Each chunk collects into its own result, so workers
// share nothing and the caller merges without locks (InterPodAffinity's
// and PodTopologySpread's counts over all nodes).
func Chunked[T any](ctx context.Context, p framework.Parallelizer, n int, fn func(lo, hi int) T) []T {
	if n <= 0 {
		return nil
	}
	chunks := min(max(p.Parallelism, 1), (n+MinChunk-1)/MinChunk)
	size := (n + chunks - 1) / chunks
	out := make([]T, chunks)
	p.Until(ctx, chunks, func(i int) {
		lo := min(i*size, n)
		out[i] = fn(lo, min(lo+size, n))
	})
	return out
}
