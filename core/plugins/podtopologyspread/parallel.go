package podtopologyspread

import (
	"context"

	"github.com/berthsched/berth/core/framework"
)

// minChunk is the least number of nodes worth a goroutine of their own.
const minChunk = 64

// chunked splits [0, n) into at most p.Parallelism chunks of at least
// minChunk items, runs fn on each chunk in parallel and returns the results
// in chunk order; the caller checks ctx.Err(), as a cancelled context
// leaves chunks unrun. Each chunk collects into its own result, so workers share
// nothing and the caller merges without locks.
func chunked[T any](ctx context.Context, p framework.Parallelizer, n int, fn func(lo, hi int) T) []T {
	if n <= 0 {
		return nil
	}
	chunks := min(max(p.Parallelism, 1), (n+minChunk-1)/minChunk)
	size := (n + chunks - 1) / chunks
	out := make([]T, chunks)
	p.Until(ctx, chunks, func(i int) {
		lo := min(i*size, n)
		out[i] = fn(lo, min(lo+size, n))
	})
	return out
}
