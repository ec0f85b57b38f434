package bboltstore

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
)

// Revisions implements store.Store.
func (s *Store) Revisions() (first, last uint64) { return s.revs.Get() }

// Wait implements store.Store.
func (s *Store) Wait(ctx context.Context, after uint64) error { return s.revs.Wait(ctx, after) }

// DamagedValues counts the damaged keyspace values skipped since Open, by
// keyspace.
func (s *Store) DamagedValues() map[store.Space]uint64 { return s.values.Damaged() }

// Read implements store.Store. Records within the in-memory tail are served
// from it; older ones from bbolt.
func (s *Store) Read(ctx context.Context, from uint64, limit int) ([]store.Record, error) {
	if s.in.Closed() {
		return nil, store.ErrClosed
	}
	return s.revs.Read(ctx, from, limit, s.readLog)
}

// readLog reads up to n records from `from` on from bbolt, once the
// applier has copied them in; on a damaged record, the ones before it and
// its *store.CorruptRecordError (logstore.Older).
func (s *Store) readLog(ctx context.Context, from, n uint64) ([]store.Record, error) {
	if err := s.waitAllApplied(ctx); err != nil {
		return nil, s.readErr(err)
	}
	out := make([]store.Record, 0, min(n, 4096))
	err := s.db.View(func(tx *bolt.Tx) error {
		log, err := bucket(tx, logBucket)
		if err != nil {
			return err
		}
		c := log.Cursor()
		// Compaction removes from the front, so the first key tells
		// whether from is still there.
		if k, _ := c.First(); k != nil {
			oldest, err := getUint64(k)
			if err != nil {
				return fmt.Errorf("log key: %w", err)
			}
			if from < oldest {
				return &store.CompactedError{Requested: from, Oldest: oldest}
			}
		}
		key := make([]byte, 8)
		putRevision(key, from)
		for k, v := c.Seek(key); k != nil && uint64(len(out)) < n; k, v = c.Next() {
			if len(out)%1024 == 1023 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			r, err := decodeRecord(k, v, s.checked(k), false)
			if err != nil {
				return err
			}
			if want := from + uint64(len(out)); r.Revision != want {
				return fmt.Errorf("%w: log has revision %d where %d belongs", store.ErrCorrupt, r.Revision, want)
			}
			out = append(out, r)
		}
		return nil
	})
	return out, s.readErr(err)
}

// readErr passes a CompactedError and context errors as they are and wraps
// the rest.
func (s *Store) readErr(err error) error {
	if err == nil {
		return nil
	}
	err = mapClosed(err)
	var compacted *store.CompactedError
	var damaged *store.CorruptRecordError
	if errors.As(err, &compacted) || errors.As(err, &damaged) || errors.Is(err, store.ErrClosed) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("bboltstore: read %s: %w", s.path, err)
}

// Get implements store.Store.
func (s *Store) Get(space store.Space, key []byte) ([]byte, bool, error) {
	if err := s.readable(space); err != nil {
		return nil, false, err
	}
	if err := s.waitAllApplied(context.Background()); err != nil {
		return nil, false, s.readErr(err)
	}
	var value []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		b, err := bucket(tx, spaceBucket(space))
		if err != nil {
			return err
		}
		if v := b.Get(key); v != nil {
			if open, ok := s.values.Open(space, key, v); ok {
				value = clone(open)
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, s.readErr(err)
	}
	return value, value != nil, nil
}

// List implements store.Store.
func (s *Store) List(space store.Space) ([]store.KV, error) {
	if err := s.readable(space); err != nil {
		return nil, err
	}
	var out []store.KV
	err := s.db.View(func(tx *bolt.Tx) error {
		b, err := bucket(tx, spaceBucket(space))
		if err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			if open, ok := s.values.Open(space, k, v); ok {
				out = append(out, store.KV{Key: clone(k), Value: clone(open)})
			}
			return nil
		})
	})
	if err != nil {
		return nil, s.readErr(err)
	}
	return out, nil
}

// readable checks a keyspace read: a known keyspace, the store open, and
// bbolt holding every group written before it.
func (s *Store) readable(space store.Space) error {
	if err := s.in.Readable(space); err != nil {
		return err
	}
	return s.readErr(s.waitAllApplied(context.Background()))
}

// clone copies b out of bbolt's memory map, where it is valid only during
// its transaction.
func clone(b []byte) []byte { return append(make([]byte, 0, len(b)), b...) }
