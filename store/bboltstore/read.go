package bboltstore

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
)

// Revisions implements store.Store.
func (s *Store) Revisions() (first, last uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.first, s.last
}

// Wait implements store.Store.
func (s *Store) Wait(ctx context.Context, after uint64) error {
	for {
		s.mu.RLock()
		last, ch, shut := s.last, s.notify, s.shut
		s.mu.RUnlock()
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

// Read implements store.Store. Records within the in-memory tail are served
// from it; older ones from bbolt.
func (s *Store) Read(ctx context.Context, from uint64, limit int) ([]store.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	from = max(from, 1)
	s.mu.RLock()
	first, last := s.first, s.last
	if from < first {
		s.mu.RUnlock()
		return nil, &store.CompactedError{Requested: from, Oldest: first}
	}
	if from > last {
		s.mu.RUnlock()
		return nil, nil
	}
	if len(s.tail) > 0 && from >= s.tail[0].Revision {
		recs := s.tail[from-s.tail[0].Revision:]
		if limit > 0 && limit < len(recs) {
			recs = recs[:limit]
		}
		out := append([]store.Record(nil), recs...)
		s.mu.RUnlock()
		return out, nil
	}
	s.mu.RUnlock()
	return s.readLog(ctx, from, last, limit)
}

// readLog reads records from..last (at most limit) from bbolt, once the
// applier has copied them in.
func (s *Store) readLog(ctx context.Context, from, last uint64, limit int) ([]store.Record, error) {
	if err := s.waitAllApplied(ctx); err != nil {
		return nil, s.readErr(err)
	}
	n := last - from + 1
	if limit > 0 && uint64(limit) < n {
		n = uint64(limit)
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
	if err != nil {
		return nil, s.readErr(err)
	}
	return out, nil
}

// readErr passes a CompactedError and context errors as they are and wraps
// the rest.
func (s *Store) readErr(err error) error {
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
	if !space.Known() {
		return nil, false, fmt.Errorf("%w %q", store.ErrUnknownSpace, space)
	}
	if s.closed.Load() {
		return nil, false, store.ErrClosed
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
			open, err := checksum.OpenValue(space, key, v)
			if err != nil {
				return err
			}
			value = clone(open)
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
	if !space.Known() {
		return nil, fmt.Errorf("%w %q", store.ErrUnknownSpace, space)
	}
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	if err := s.waitAllApplied(context.Background()); err != nil {
		return nil, s.readErr(err)
	}
	var out []store.KV
	err := s.db.View(func(tx *bolt.Tx) error {
		b, err := bucket(tx, spaceBucket(space))
		if err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			open, err := checksum.OpenValue(space, k, v)
			if err != nil {
				return err
			}
			out = append(out, store.KV{Key: clone(k), Value: clone(open)})
			return nil
		})
	})
	if err != nil {
		return nil, s.readErr(err)
	}
	return out, nil
}

// clone copies b out of bbolt's memory map, where it is valid only during
// its transaction.
func clone(b []byte) []byte { return append(make([]byte, 0, len(b)), b...) }
