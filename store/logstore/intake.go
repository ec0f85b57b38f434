package logstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/berthsched/berth/store"
)

// Intake is how commits reach a backend's committer, and the close
// protocol: Commit checks a batch (Admit), hands it over (HandOver) and
// waits for its outcome (Await); Close stops intake, then waits for the
// committer to write what it accepted and for the background loops (Go,
// Every) to return. R is the backend's request, embedding a Call.
//
// Lock order: compactMu, then closeMu. closeMu is held shared while a
// commit is handed over or written by its caller (WhileOpen), and
// exclusively by Close to stop intake.
type Intake[R any] struct {
	name string // the backend, for errors

	closeMu sync.RWMutex
	closed  atomic.Bool // set under closeMu; read freely

	reqs chan R
	stop chan struct{} // closed by Close: the committer drains and exits
	wg   sync.WaitGroup

	compactMu sync.Mutex // one compaction at a time
}

// NewIntake returns an intake that queues up to queue requests before
// HandOver blocks; name prefixes its errors.
func NewIntake[R any](name string, queue int) *Intake[R] {
	return &Intake[R]{name: name, reqs: make(chan R, queue), stop: make(chan struct{})}
}

// Closed reports whether Close has begun.
func (in *Intake[R]) Closed() bool { return in.closed.Load() }

// Requests is the committer's queue.
func (in *Intake[R]) Requests() <-chan R { return in.reqs }

// Queued is how many requests wait for the committer.
func (in *Intake[R]) Queued() int { return len(in.reqs) }

// Stopping is closed when Close begins: the committer drains the queue and
// returns, background loops return.
func (in *Intake[R]) Stopping() <-chan struct{} { return in.stop }

// Admit checks a batch before it is handed over: it must be valid, ctx
// live and the store open. An empty batch commits nothing: ok is false.
func (in *Intake[R]) Admit(ctx context.Context, b *store.Batch) (ok bool, err error) {
	if err := b.Validate(); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("%s: commit: %w", in.name, err)
	}
	if in.Closed() {
		return false, store.ErrClosed
	}
	return !b.Empty(), nil
}

// Readable checks a keyspace read: space is one of store.Spaces and the
// store is open.
func (in *Intake[R]) Readable(space store.Space) error {
	if !space.Known() {
		return fmt.Errorf("%w %q", store.ErrUnknownSpace, space)
	}
	if in.Closed() {
		return store.ErrClosed
	}
	return nil
}

// HandOver queues r for the committer unless the store is closing.
func (in *Intake[R]) HandOver(ctx context.Context, r R) error {
	in.closeMu.RLock()
	defer in.closeMu.RUnlock()
	if in.Closed() {
		return store.ErrClosed
	}
	select {
	case in.reqs <- r:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: commit: %w", in.name, ctx.Err())
	}
}

// Await returns the outcome of a handed-over commit, or ctx's error if it
// ends first (the commit may or may not be durable then).
func (in *Intake[R]) Await(ctx context.Context, c *Call) (store.CommitResult, error) {
	select {
	case res := <-c.done:
		return res.res, res.err
	case <-ctx.Done():
		return store.CommitResult{}, fmt.Errorf("%s: commit outcome unknown: %w", in.name, ctx.Err())
	}
}

// WhileOpen runs fn, unless the store is closing, with Close held off
// until it returns, and reports what fn did (false when it did not run).
func (in *Intake[R]) WhileOpen(fn func() bool) bool {
	in.closeMu.RLock()
	defer in.closeMu.RUnlock()
	return !in.Closed() && fn()
}

// Go runs fn in the background; Close waits for it. fn returns once
// Stopping is closed.
func (in *Intake[R]) Go(fn func()) {
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		fn()
	}()
}

// Every runs fn every interval in the background until Close.
func (in *Intake[R]) Every(interval time.Duration, fn func()) {
	in.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				fn()
			case <-in.stop:
				return
			}
		}
	})
}

// Compact runs one compaction under the policy ret, one at a time; with
// the store closed it fails with store.ErrClosed, with no policy it
// removes nothing.
func (in *Intake[R]) Compact(ret store.Retention, fn func() (int, error)) (int, error) {
	in.compactMu.Lock()
	defer in.compactMu.Unlock()
	if in.Closed() {
		return 0, store.ErrClosed
	}
	if ret == (store.Retention{}) {
		return 0, nil
	}
	return fn()
}

// Close stops intake, then waits for the commits in hand-over, the
// committer's drain and the background loops; false if it ran before.
func (in *Intake[R]) Close() bool {
	in.closeMu.Lock()
	if in.Closed() {
		in.closeMu.Unlock()
		return false
	}
	in.closed.Store(true)
	in.closeMu.Unlock()
	close(in.stop)
	in.wg.Wait()
	return true
}

// AfterCompaction runs fn once a Compact call in progress has returned
// (Close releases the medium with it).
func (in *Intake[R]) AfterCompaction(fn func() error) error {
	in.compactMu.Lock()
	defer in.compactMu.Unlock()
	return fn()
}
