package podbook

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/berthsched/berth/store"
)

// settler removes the keyspace entries that outcomes end (assumed binds,
// nominations, evictions of deleted pods) in the background: outcomes queued while one batch is
// written go together into the next, so confirming many binds costs few
// transactions. A caller that needs durability waits for its batch.
//
// A key queued for deletion may be written again by a new decision (a pod
// requeued and bound anew): claim drops the queued delete, and waits for a
// batch already being written that deletes the key, so a delete never lands
// after the write that supersedes it.
type settler struct {
	store   store.Store
	observe func(time.Duration)
	logger  *slog.Logger

	mu      sync.Mutex
	pending map[settleKey]bool // keys to delete in the next batch
	next    *flush             // the next batch, created by the first waiter
	current *flush             // the batch being written, if any
	writing map[settleKey]bool // the keys it deletes
	closed  bool
	wake    chan struct{} // buffered 1: something is pending
	// notifies counts the wake-ups remove asked for (tests).
	notifies atomic.Int64
	stop     chan struct{}
	finished chan struct{}
}

type settleKey struct {
	space store.Space
	key   string
}

// flush is one batch of deletes; done is closed once it is written, with
// err set.
type flush struct {
	done chan struct{}
	err  error
}

func newSettler(st store.Store, observe func(time.Duration), logger *slog.Logger) *settler {
	s := &settler{
		store:    st,
		observe:  observe,
		logger:   logger,
		pending:  make(map[settleKey]bool),
		writing:  make(map[settleKey]bool),
		wake:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		finished: make(chan struct{}),
	}
	go s.loop()
	return s
}

// remove queues the deletion of key in each space. With wait it returns
// once the deletion is durable (or ctx ends).
func (s *settler) remove(ctx context.Context, key string, wait bool, spaces ...store.Space) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("decisionlog: settle: %w", store.ErrClosed)
	}
	// The loop needs waking when this is the first key since its last
	// batch (it may be idle) or when the batch became urgent; otherwise
	// it lingers anyway, and waking it for each confirmation would cost a
	// goroutine switch per bind.
	notify := len(s.pending) == 0 || wait
	for _, sp := range spaces {
		s.pending[settleKey{sp, key}] = true
	}
	notify = notify || len(s.pending) >= settleBatch
	var f *flush
	if wait {
		if s.next == nil {
			s.next = &flush{done: make(chan struct{})}
		}
		f = s.next
	}
	s.mu.Unlock()
	if notify {
		s.notifies.Add(1)
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	if f == nil {
		return nil
	}
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return fmt.Errorf("decisionlog: settle: %w", ctx.Err())
	}
}

// claim drops queued deletes of key in spaces and waits until no batch
// being written deletes it there: the caller is about to write key.
func (s *settler) claim(ctx context.Context, key string, spaces ...store.Space) error {
	s.mu.Lock()
	busy := false
	for _, sp := range spaces {
		k := settleKey{sp, key}
		delete(s.pending, k)
		busy = busy || s.writing[k]
	}
	f := s.current
	s.mu.Unlock()
	if !busy {
		return nil
	}
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("decisionlog: %w", ctx.Err())
	}
}

// Settles nobody waits for gather for up to settleDelay, or until
// settleBatch keys are pending, before they are written. A settle only
// removes bookkeeping (one lost in a crash is settled again by the
// orchestrator's re-list after the restart, as any outcome in flight), so
// a steady trickle of confirmations costs a transaction per settleDelay
// instead of one each, and leaves the committer's fsyncs to decisions.
const (
	settleDelay = 20 * time.Millisecond
	settleBatch = 1024
)

// loop writes batches until close, then writes what is left.
func (s *settler) loop() {
	defer close(s.finished)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-s.wake:
			if !s.linger(timer) {
				s.writeOnce()
				return
			}
			s.writeOnce()
		case <-s.stop:
			s.writeOnce()
			return
		}
	}
}

// linger waits until a caller waits for durability, settleBatch keys are
// pending, or settleDelay has passed; false when the settler was stopped
// meanwhile.
func (s *settler) linger(timer *time.Timer) bool {
	timer.Reset(settleDelay)
	defer timer.Stop()
	for {
		s.mu.Lock()
		urgent := s.next != nil || len(s.pending) >= settleBatch
		s.mu.Unlock()
		if urgent {
			return true
		}
		select {
		case <-s.wake: // more pending: check again
		case <-timer.C:
			return true
		case <-s.stop:
			return false
		}
	}
}

// writeOnce writes the pending deletes, if any, in one batch.
func (s *settler) writeOnce() {
	s.mu.Lock()
	f := s.next
	if f == nil {
		f = &flush{done: make(chan struct{})}
	}
	if len(s.pending) == 0 {
		s.next = nil
		s.mu.Unlock()
		close(f.done)
		return
	}
	keys := s.pending
	s.pending = make(map[settleKey]bool)
	s.next, s.current, s.writing = nil, f, keys
	s.mu.Unlock()

	// One buffer holds every key: a batch deletes hundreds of them.
	size := 0
	for k := range keys {
		size += len(k.key)
	}
	buf := make([]byte, 0, size)
	b := store.Batch{Ops: make([]store.Op, 0, len(keys))}
	for k := range keys {
		start := len(buf)
		buf = append(buf, k.key...)
		b.Delete(k.space, buf[start:len(buf):len(buf)])
	}
	start := time.Now()
	_, err := s.store.Commit(context.Background(), &b)
	s.observe(time.Since(start))
	if err != nil {
		s.logger.Error("removing settled binds, nominations and evictions failed", "keys", len(keys), "err", err)
		f.err = fmt.Errorf("decisionlog: settle: %w", err)
	}

	s.mu.Lock()
	s.current, s.writing = nil, make(map[settleKey]bool)
	s.mu.Unlock()
	close(f.done)
}

// close writes what is pending and stops the loop.
func (s *settler) close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.stop)
	<-s.finished
	return nil
}
