package bboltstore

import (
	"context"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
)

// DefaultApplyInterval is how long the applier lets groups gather before
// copying them into bbolt in one transaction.
const DefaultApplyInterval = 100 * time.Millisecond

// applier is the state shared by the committer, which queues groups made
// durable in the write-ahead file, and the applier goroutine, which copies
// them into bbolt. Guarded by Store.applyMu.
type applier struct {
	pending []*walGroup // written, not yet in bbolt, in order
	seq     uint64      // the last group bbolt holds
	// done is closed and replaced whenever seq advances or err is set.
	done chan struct{}
	// err is set while bbolt refuses transactions (it wraps
	// store.ErrUnavailable): the groups stay pending, safe in the
	// write-ahead file, and the applier retries with backoff.
	err error
	// mark is the last group written to the write-ahead file, and so
	// acknowledged or about to be: each transaction records it as the
	// high-water mark.
	mark highWater
}

// highWater is the write-ahead file's high-water mark: a group's sequence
// number and the revision after its records.
type highWater struct{ seq, next uint64 }

// getHighWater reads the mark from the meta bucket; zero when absent.
func getHighWater(meta *bolt.Bucket) (highWater, error) {
	var m highWater
	if v := meta.Get([]byte(ackedKey)); v != nil {
		var err error
		if m.seq, err = getUint64(v); err != nil {
			return m, fmt.Errorf("%s: %w", ackedKey, err)
		}
		if m.next, err = getUint64(meta.Get([]byte(ackedNextKey))); err != nil {
			return m, fmt.Errorf("%s: %w", ackedNextKey, err)
		}
	}
	return m, nil
}

func putHighWater(meta *bolt.Bucket, m highWater) error {
	return putMeta(meta, metaInt{ackedKey, m.seq}, metaInt{ackedNextKey, m.next})
}

// queueApply hands a group written to the write-ahead file to the applier.
func (s *Store) queueApply(g *walGroup) {
	s.applyMu.Lock()
	s.apply.pending = append(s.apply.pending, g)
	s.apply.mark = highWater{seq: g.seq, next: g.first + uint64(len(g.values))}
	s.applyMu.Unlock()
	select {
	case s.applyWake <- struct{}{}:
	default:
	}
}

// applyLoop copies queued groups into bbolt, at most one transaction per
// ApplyInterval unless someone waits for them (applyNow), and after a
// failure not before its backoff. On stop it applies what is left and
// returns.
func (s *Store) applyLoop() {
	defer close(s.applyDone)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	// The first groups after Open wait like the others: a store opened
	// with a long ApplyInterval keeps them out of bbolt until a read.
	last := time.Now()
	retry := backoff{min: s.opts.RetryMin, max: s.opts.RetryMax}
	var delay time.Duration // before the next attempt, after a failure
	for {
		urgent := false
		if delay == 0 {
			select {
			case <-s.applyWake:
			case <-s.applyNow:
				urgent = true
			case <-s.applyStop:
				s.applyPending()
				return
			}
		}
		wait := max(s.opts.ApplyInterval-time.Since(last), delay)
		if urgent && delay == 0 {
			wait = 0
		}
		if wait > 0 {
			timer.Reset(wait)
			hurry := s.applyNow
			if delay > 0 {
				hurry = nil // a waiter does not hurry a retry
			}
			select {
			case <-timer.C:
			case <-hurry:
				timer.Stop()
			case <-s.applyStop:
				timer.Stop()
				s.applyPending()
				return
			}
		}
		last = time.Now()
		if s.applyPending() {
			delay = 0
			retry.reset()
		} else {
			delay = retry.next()
			s.health.failed(applyWriter, s.applyFailure(), delay)
		}
	}
}

// applyPending writes every queued group to bbolt in one transaction, with
// the high-water mark, and reports whether it succeeded (or had nothing to
// do). On failure the groups stay queued and apply.err says why.
func (s *Store) applyPending() bool {
	s.applyMu.Lock()
	groups := s.apply.pending
	s.applyMu.Unlock()
	if len(groups) == 0 {
		return true
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		if s.opts.applyFault != nil {
			if err := s.opts.applyFault(); err != nil {
				return err
			}
		}
		if err := applyGroups(tx, groups); err != nil {
			return err
		}
		meta, err := bucket(tx, metaBucket)
		if err != nil {
			return err
		}
		s.applyMu.Lock()
		mark := s.apply.mark
		s.applyMu.Unlock()
		return putHighWater(meta, mark)
	})
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	failed := s.apply.err != nil
	if err != nil {
		s.apply.err = fmt.Errorf("%w: copying groups %d-%d into %s failed (they are safe in %s; retrying): %w",
			store.ErrUnavailable, groups[0].seq, groups[len(groups)-1].seq, s.path, walFileName, err)
	} else {
		s.apply.pending = s.apply.pending[len(groups):]
		if len(s.apply.pending) == 0 {
			s.apply.pending = nil // let the applied groups go
		}
		s.apply.seq = groups[len(groups)-1].seq
		s.apply.err = nil
		s.stats.applies.Add(1)
		if failed {
			s.health.ok(applyWriter)
		}
	}
	close(s.apply.done)
	s.apply.done = make(chan struct{})
	return err == nil
}

// applyFailure returns the applier's error, if it failed.
func (s *Store) applyFailure() error {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	return s.apply.err
}

// waitApplied returns once bbolt holds every group up to seq, hurrying the
// applier along.
func (s *Store) waitApplied(ctx context.Context, seq uint64) error {
	for {
		s.applyMu.Lock()
		applied, done, err := s.apply.seq, s.apply.done, s.apply.err
		s.applyMu.Unlock()
		switch {
		case applied >= seq:
			return nil
		case err != nil:
			return err
		}
		select {
		case s.applyNow <- struct{}{}:
		default:
		}
		select {
		case <-done:
		case <-s.applyDone:
			// Stopped: applyPending ran one last time.
			if s.applyFailure() == nil && s.appliedSeq() >= seq {
				return nil
			}
			return store.ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *Store) appliedSeq() uint64 {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	return s.apply.seq
}

// waitAllApplied waits until bbolt holds every group written so far: reads
// from bbolt see everything Commit returned.
func (s *Store) waitAllApplied(ctx context.Context) error {
	return s.waitApplied(ctx, s.written.Load())
}

// applyGroups writes groups, consecutive from the revision metaBucket's
// nextKey holds, into tx: their records, their keyspace operations, the next
// revision and the last group applied.
func applyGroups(tx *bolt.Tx, groups []*walGroup) error {
	log, err := bucket(tx, logBucket)
	if err != nil {
		return err
	}
	log.FillPercent = 1 // keys only ever grow: pack pages full
	meta, err := bucket(tx, metaBucket)
	if err != nil {
		return err
	}
	next, err := getUint64(meta.Get([]byte(nextKey)))
	if err != nil {
		return fmt.Errorf("%s: %w", nextKey, err)
	}
	spaces := make(map[store.Space]*bolt.Bucket, len(store.Spaces()))
	n := 0
	for _, g := range groups {
		n += len(g.values)
	}
	keys := make([]byte, 8*n) // one allocation for all record keys
	for _, g := range groups {
		if g.first != next {
			return fmt.Errorf("%w: group %d starts at revision %d, the log at %d", store.ErrCorrupt, g.seq, g.first, next)
		}
		for _, v := range g.values {
			k := keys[:8:8]
			keys = keys[8:]
			putRevision(k, next)
			if err := log.Put(k, v); err != nil {
				return fmt.Errorf("append revision %d: %w", next, err)
			}
			next++
		}
		for _, op := range g.ops {
			b := spaces[op.Space]
			if b == nil {
				if b, err = bucket(tx, spaceBucket(op.Space)); err != nil {
					return err
				}
				spaces[op.Space] = b
			}
			if op.Delete {
				err = b.Delete(op.Key)
			} else {
				err = b.Put(op.Key, checksum.SealValue(op.Space, op.Key, op.Value))
			}
			if err != nil {
				return fmt.Errorf("%s %q: %w", op.Space, op.Key, err)
			}
		}
	}
	return putMeta(meta, metaInt{nextKey, next}, metaInt{walSeqKey, groups[len(groups)-1].seq})
}
