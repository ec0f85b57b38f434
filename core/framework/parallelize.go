package framework

import (
	"context"
	"sync"
)

// DefaultParallelism is kube-scheduler's default number of workers.
const DefaultParallelism = 16

// Parallelizer runs work over a range of indexes with bounded workers.
type Parallelizer struct {
	Parallelism int
}

// NewParallelizer returns a Parallelizer; n <= 0 means DefaultParallelism.
func NewParallelizer(n int) Parallelizer {
	if n <= 0 {
		n = DefaultParallelism
	}
	return Parallelizer{Parallelism: n}
}

// Until calls work(i) for i in [0, pieces) on up to Parallelism goroutines,
// in chunks, stopping early when ctx is done. With Parallelism 1 the calls
// run in order on the calling goroutine, which keeps deterministic runs
// deterministic.
func (p Parallelizer) Until(ctx context.Context, pieces int, work func(i int)) {
	if pieces <= 0 {
		return
	}
	workers := min(max(p.Parallelism, 1), pieces)
	if workers == 1 {
		for i := 0; i < pieces; i++ {
			if ctx.Err() != nil {
				return
			}
			work(i)
		}
		return
	}
	chunk := chunkSize(pieces, workers)
	var next int64
	var mu sync.Mutex
	take := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		start := int(next)
		if start >= pieces {
			return 0, 0
		}
		end := min(start+chunk, pieces)
		next = int64(end)
		return start, end
	}
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func() {
			defer wg.Done()
			for {
				if ctx.Err() != nil {
					return
				}
				start, end := take()
				if start == end {
					return
				}
				for i := start; i < end; i++ {
					work(i)
				}
			}
		}()
	}
	wg.Wait()
}

// chunkSize mirrors kube's choice: about sqrt(pieces), bounded so every
// worker gets work.
func chunkSize(pieces, workers int) int {
	s := 1
	for s*s < pieces {
		s++
	}
	if r := pieces/workers + 1; r < s {
		s = r
	}
	return max(s, 1)
}
