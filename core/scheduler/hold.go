package scheduler

import (
	"context"
	"sync"
)

// Hold keeps the scheduling loop from starting cycles until release is
// called: pods stay queued, and the loop does not even pop them, so when
// scheduling resumes the queue's order decides which goes first. Holds
// nest (scheduling resumes when every hold is released); release is
// idempotent. Hold returns once no cycle is running, so the caller's
// state changes are never seen half-applied by a cycle; binding cycles
// already under way go on.
//
// Callers hold the loop while the state is known to be incomplete: a
// re-list from RESYNC_BEGIN to RESYNC_END, the wait for the first re-list
// after a restart. (A single request is a StartBatch: holding the loop for
// each one stopped scheduling while requests were decoded and applied, and
// cost a tenth of the throughput.) ScheduleOne waits too;
// AttemptPod and Evaluate do not (deterministic drivers and what-if
// calls choose their moment themselves).
func (s *Scheduler) Hold(ctx context.Context) (release func(), err error) {
	s.gate.hold()
	var once sync.Once
	release = func() { once.Do(s.gate.release) }
	// Wait for the cycle in progress, if any: one that starts from now on
	// sees the hold and waits.
	done := make(chan struct{})
	go func() {
		s.cycleMu.Lock()
		//lint:ignore SA2001 an empty critical section: waiting for the cycle is the point
		s.cycleMu.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return release, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// Held reports whether a hold is in effect (Scheduler.Hold).
func (v View) Held() bool { return v.s.gate.held() }

// gate is the holds on the scheduling loop. It also owns the context of
// the loop's Pop in progress, which a new hold cancels so that no pod is
// popped while held.
//
// Lock order: gate.mu is a leaf.
type gate struct {
	mu    sync.Mutex
	holds int
	// released is closed when the last hold is released; nil while
	// nothing is held.
	released chan struct{}
	// popCtx is the context the loop pops with (a child of popParent),
	// popCancel ends it; nil when none was handed out since the last hold.
	popParent context.Context
	popCtx    context.Context
	popCancel context.CancelFunc
}

func (g *gate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holds++
	if g.holds == 1 {
		g.released = make(chan struct{})
	}
	g.stopPopLocked()
}

func (g *gate) stopPopLocked() {
	if g.popCancel != nil {
		g.popCancel()
		g.popParent, g.popCtx, g.popCancel = nil, nil, nil
	}
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holds--
	if g.holds == 0 {
		close(g.released)
		g.released = nil
	}
}

func (g *gate) held() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.holds > 0
}

// wait returns once nothing is held, or ctx's error.
func (g *gate) wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		ch := g.released
		g.mu.Unlock()
		if ch == nil {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// popContext waits until nothing is held and returns the context to pop
// with: a child of parent that a new hold cancels. Pop checks its context
// under the queue's lock before taking a pod, so a pod added after a hold
// began is never popped with it.
func (g *gate) popContext(parent context.Context) (context.Context, error) {
	for {
		if err := g.wait(parent); err != nil {
			return nil, err
		}
		g.mu.Lock()
		if g.holds > 0 {
			g.mu.Unlock()
			continue
		}
		if g.popCtx == nil || g.popParent != parent || g.popCtx.Err() != nil {
			if g.popCancel != nil {
				g.popCancel()
			}
			g.popParent = parent
			g.popCtx, g.popCancel = context.WithCancel(parent)
		}
		ctx := g.popCtx
		g.mu.Unlock()
		return ctx, nil
	}
}

// stop ends the pop context, when the loop stops.
func (g *gate) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopPopLocked()
}
