package logstore

import (
	"context"
	"errors"
	"sync"

	"github.com/berthsched/berth/store"
)

// Revisions are a log's oldest and newest revision and its newest records
// kept in memory (the tail), with a channel closed whenever the newest
// moves, so that waiting never holds up a commit.
type Revisions struct {
	tailSize int // records kept; 0 keeps none

	mu     sync.RWMutex
	first  uint64         // oldest retained revision; last+1 when the log is empty
	last   uint64         // newest revision, 0 before the first record
	tail   []store.Record // newest records, consecutive revisions ending at last, at most 2*tailSize
	notify chan struct{}  // closed and replaced when last advances or the log shuts
	shut   bool
}

// NewRevisions returns revisions from first to last, with tail (records
// ending at last) kept in memory, up to tailSize of them (0: none).
func NewRevisions(first, last uint64, tail []store.Record, tailSize int) *Revisions {
	r := &Revisions{tailSize: max(tailSize, 0), first: first, last: last, notify: make(chan struct{})}
	if r.tailSize > 0 {
		r.tail = tail[len(tail)-min(len(tail), r.tailSize):]
	}
	return r
}

// Get returns the oldest retained and the newest revision.
func (r *Revisions) Get() (first, last uint64) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.first, r.last
}

// Wait implements store.Store's Wait.
func (r *Revisions) Wait(ctx context.Context, after uint64) error {
	for {
		r.mu.RLock()
		last, ch, shut := r.last, r.notify, r.shut
		r.mu.RUnlock()
		switch {
		case last > after:
			return nil
		case shut:
			return store.ErrClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Publish makes newly committed records, the revisions after the newest,
// visible to Read and Wait.
func (r *Revisions) Publish(recs []store.Record) {
	if len(recs) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if size := r.tailSize; size > 0 {
		if n := len(recs); len(r.tail)+n > 2*size {
			// Keep the newest size-n (at least none) and append: the tail
			// is trimmed in place, amortised over size appends.
			keep := max(size-n, 0)
			r.tail = append(r.tail[:0], r.tail[len(r.tail)-keep:]...)
		}
		r.tail = append(r.tail, recs...)
		if len(r.tail) > 2*size { // a group larger than the tail
			r.tail = append(r.tail[:0], r.tail[len(r.tail)-size:]...)
		}
	}
	r.advanceLocked(0, recs[len(recs)-1].Revision)
}

// Advance moves the newest revision up to last (a commit seen by another
// way: another replica's, through a watch) and the oldest up to first (a
// compaction); 0 or a lower value leaves either as it is.
func (r *Revisions) Advance(first, last uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.advanceLocked(first, last)
}

func (r *Revisions) advanceLocked(first, last uint64) {
	if last > r.last {
		r.last = last
		close(r.notify)
		r.notify = make(chan struct{})
	}
	r.first = min(max(r.first, first), r.last+1)
	i := 0
	for i < len(r.tail) && r.tail[i].Revision < r.first {
		i++
	}
	r.tail = r.tail[i:]
}

// Shut wakes every waiter for good: Wait answers store.ErrClosed.
func (r *Revisions) Shut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.shut {
		r.shut = true
		close(r.notify)
	}
}

// Older reads up to n records from `from` on from a backend's medium, in
// revision order. On a damaged record it returns the intact records before
// it with the *store.CorruptRecordError.
type Older func(ctx context.Context, from, n uint64) ([]store.Record, error)

// Read implements store.Store's Read over the tail and, for records older
// than it, the backend's older. A damaged record ends what is served: the
// intact records before it are returned, and a read from it fails with a
// *store.CorruptRecordError naming it.
func (r *Revisions) Read(ctx context.Context, from uint64, limit int, older Older) ([]store.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	from = max(from, 1)
	r.mu.RLock()
	first, last := r.first, r.last
	if from < first {
		r.mu.RUnlock()
		return nil, &store.CompactedError{Requested: from, Oldest: first}
	}
	if from > last {
		r.mu.RUnlock()
		return nil, nil
	}
	if len(r.tail) > 0 && from >= r.tail[0].Revision {
		recs := r.tail[from-r.tail[0].Revision:]
		if limit > 0 && limit < len(recs) {
			recs = recs[:limit]
		}
		out := append([]store.Record(nil), recs...)
		r.mu.RUnlock()
		return out, nil
	}
	r.mu.RUnlock()
	n := last - from + 1
	if limit > 0 && uint64(limit) < n {
		n = uint64(limit)
	}
	recs, err := older(ctx, from, n)
	var damaged *store.CorruptRecordError
	if errors.As(err, &damaged) && len(recs) > 0 {
		return recs, nil // the next read, from the damaged one, tells
	}
	if err != nil {
		return nil, err
	}
	return recs, nil
}
