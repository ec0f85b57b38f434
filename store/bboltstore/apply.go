package bboltstore

import (
	"context"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
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
	// err is set when bbolt refused a transaction: the groups are safe in
	// the write-ahead file, but nothing more is written until the store is
	// reopened (and replays them).
	err error
}

// queueApply hands a group written to the write-ahead file to the applier.
func (s *Store) queueApply(g *walGroup) {
	s.applyMu.Lock()
	s.apply.pending = append(s.apply.pending, g)
	s.applyMu.Unlock()
	select {
	case s.applyWake <- struct{}{}:
	default:
	}
}

// applyLoop copies queued groups into bbolt, at most one transaction per
// ApplyInterval unless someone waits for them (applyNow). On stop it
// applies what is left and returns.
func (s *Store) applyLoop() {
	defer close(s.applyDone)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	last := time.Time{}
	for {
		urgent := false
		select {
		case <-s.applyWake:
		case <-s.applyNow:
			urgent = true
		case <-s.applyStop:
			s.applyPending()
			return
		}
		if wait := s.opts.ApplyInterval - time.Since(last); !urgent && wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-s.applyNow:
				timer.Stop()
			case <-s.applyStop:
				timer.Stop()
				s.applyPending()
				return
			}
		}
		last = time.Now()
		s.applyPending()
	}
}

// applyPending writes every queued group to bbolt in one transaction.
func (s *Store) applyPending() {
	s.applyMu.Lock()
	groups, failed := s.apply.pending, s.apply.err
	s.apply.pending = nil
	s.applyMu.Unlock()
	if len(groups) == 0 || failed != nil {
		return
	}
	err := s.db.Update(func(tx *bolt.Tx) error { return applyGroups(tx, groups) })
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	if err != nil {
		s.apply.err = fmt.Errorf("bboltstore: copying groups %d-%d into %s failed (they are safe in %s), reopen the store: %w",
			groups[0].seq, groups[len(groups)-1].seq, s.path, walFileName, err)
		s.opts.Logger.Error("store apply failed", "err", s.apply.err)
	} else {
		s.apply.seq = groups[len(groups)-1].seq
		s.stats.applies.Add(1)
	}
	close(s.apply.done)
	s.apply.done = make(chan struct{})
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
				err = b.Put(op.Key, op.Value)
			}
			if err != nil {
				return fmt.Errorf("%s %q: %w", op.Space, op.Key, err)
			}
		}
	}
	if err := meta.Put([]byte(nextKey), putUint64(next)); err != nil {
		return err
	}
	return meta.Put([]byte(walSeqKey), putUint64(groups[len(groups)-1].seq))
}
