package bboltstore

import (
	"context"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
)

// compactChunk bounds the records one compaction transaction removes, so
// that commits interleave with a large compaction.
const compactChunk = 8192

// compactInBackground applies the retention policy, every
// CompactInterval until Close (logstore.Intake.Every).
func (s *Store) compactInBackground() {
	if _, err := s.Compact(s.bg); err != nil && s.bg.Err() == nil {
		s.opts.Logger.Warn("store compaction failed", "path", s.path, "err", err)
	}
}

// Compact implements store.Store. It judges age by one reading of the clock
// and removes, oldest first, every record the policy expires, stopping at the
// first it keeps, in transactions of at most compactChunk records.
func (s *Store) Compact(ctx context.Context) (int, error) {
	return s.in.Compact(s.opts.Retention, func() (int, error) { return s.compact(ctx) })
}

func (s *Store) compact(ctx context.Context) (int, error) {
	now := s.opts.Clock()
	_, last := s.Revisions()
	// The policy is judged on bbolt's log, which must reach last.
	if err := s.waitAllApplied(ctx); err != nil {
		return 0, fmt.Errorf("bboltstore: compact %s: %w", s.path, err)
	}
	removed := 0
	for {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		if s.in.Closed() {
			return removed, store.ErrClosed
		}
		n, next, err := s.compactOnce(now, last)
		if err != nil {
			return removed, fmt.Errorf("bboltstore: compact %s: %w", s.path, mapClosed(err))
		}
		if n == 0 {
			return removed, nil
		}
		removed += n
		s.revs.Advance(next, 0)
	}
}

// compactOnce removes up to compactChunk expired records from the front of
// the log and returns how many, and the oldest revision left.
func (s *Store) compactOnce(now time.Time, last uint64) (n int, oldest uint64, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		log, err := bucket(tx, logBucket)
		if err != nil {
			return err
		}
		// Find the end of the expired prefix, then delete it: deleting
		// while a cursor walks would make it skip keys.
		var expired [][]byte
		c := log.Cursor()
		for k, v := c.First(); k != nil && len(expired) < compactChunk; k, v = c.Next() {
			r, err := decodeRecord(k, v, false, true) // age only: a damaged record goes like the others
			if err != nil {
				return err
			}
			if !s.opts.Retention.Expired(r.Revision, last, r.Time, now) {
				break
			}
			expired = append(expired, clone(k))
		}
		for _, k := range expired {
			if err := log.Delete(k); err != nil {
				return err
			}
		}
		if k, _ := log.Cursor().First(); k != nil {
			if oldest, err = getUint64(k); err != nil {
				return fmt.Errorf("log key: %w", err)
			}
		}
		n = len(expired)
		return nil
	})
	return n, oldest, err
}

// Retention is the compaction policy the store applies (Options.Retention).
func (s *Store) Retention() store.Retention { return s.opts.Retention }
