package bboltstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
	"github.com/berthsched/berth/store/logstore"
)

// load checks or writes the schema version, creates missing buckets,
// replays the write-ahead groups bbolt lacks, checks the high-water mark and
// reads the revisions and the tail.
func (s *Store) load() error {
	var applied uint64
	var mark highWater
	err := s.db.Update(func(tx *bolt.Tx) error {
		walStale, found, err := s.checkSchema(tx)
		if err != nil {
			return err
		}
		if walStale {
			// A new data file (or one from before the write-ahead file):
			// a write-ahead file found belongs to another data file, and
			// its frames must never be replayed into this one. Emptied
			// before the new file is committed, so a crash in between
			// cannot pair the two.
			if err := s.wal.reset(); err != nil {
				return err
			}
		}
		for _, name := range bucketNames() {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return fmt.Errorf("create bucket %q: %w", name, err)
			}
		}
		if found != 0 && found < 3 {
			if err := sealSpaces(tx); err != nil {
				return err
			}
		}
		meta, err := bucket(tx, metaBucket)
		if err != nil {
			return err
		}
		if applied, err = getUint64(meta.Get([]byte(walSeqKey))); err != nil {
			return fmt.Errorf("%s: %w", walSeqKey, err)
		}
		if s.checksumFrom, err = getUint64(meta.Get([]byte(checksumFromKey))); err != nil {
			return fmt.Errorf("%s: %w", checksumFromKey, err)
		}
		if s.next, err = getUint64(meta.Get([]byte(nextKey))); err != nil {
			return fmt.Errorf("%s: %w", nextKey, err)
		}
		mark, err = getHighWater(meta)
		return err
	})
	if err != nil {
		return fmt.Errorf("bboltstore: load %s: %w", s.path, err)
	}
	if err := s.wal.preallocate(); err != nil {
		return fmt.Errorf("bboltstore: %w", err)
	}
	groups, last, err := s.wal.scan(applied)
	if err != nil {
		return fmt.Errorf("bboltstore: replay: %w", err)
	}
	if err := s.replay(groups, last, mark); err != nil {
		return err
	}
	// Everything is in bbolt now: the next frame goes to the file's start.
	s.wal.seq, s.wal.off = last, 0
	s.written.Store(last)
	s.apply.seq = last
	err = s.db.View(func(tx *bolt.Tx) error {
		meta, err := bucket(tx, metaBucket)
		if err != nil {
			return err
		}
		if s.next, err = getUint64(meta.Get([]byte(nextKey))); err != nil {
			return fmt.Errorf("%s: %w", nextKey, err)
		}
		return s.loadLog(tx)
	})
	if err != nil {
		return fmt.Errorf("bboltstore: load %s: %w", s.path, err)
	}
	s.apply.mark = highWater{seq: last, next: s.next}
	return nil
}

// replay copies the groups the scan found into bbolt, after checking that
// the write-ahead file reaches its high-water mark: a file that ends before
// it lost groups that were acknowledged, and opening fails with a
// *store.LogTruncatedError unless Options.AcceptTruncatedLog. The mark then
// moves to where the file ends.
func (s *Store) replay(groups []*walGroup, last uint64, mark highWater) error {
	next := s.next
	if len(groups) > 0 {
		g := groups[len(groups)-1]
		next = g.first + uint64(len(g.values))
	}
	truncated := last < mark.seq
	if truncated {
		lost := &store.LogTruncatedError{Path: s.wal.path, Last: next - 1, Acked: max(mark.next, next) - 1, Groups: mark.seq - last}
		if !s.opts.AcceptTruncatedLog {
			return fmt.Errorf("bboltstore: %w (start with the shortened history only by accepting the loss explicitly)", lost)
		}
		s.opts.Logger.Error("store: the write-ahead file lost acknowledged decisions; serving the shortened history as asked", "err", lost)
	}
	if len(groups) == 0 && !truncated {
		return nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		if len(groups) > 0 {
			if err := applyGroups(tx, groups); err != nil {
				return err
			}
		}
		meta, err := bucket(tx, metaBucket)
		if err != nil {
			return err
		}
		return putHighWater(meta, highWater{seq: last, next: next})
	})
	if err != nil {
		return fmt.Errorf("bboltstore: replay %d groups of %s into %s: %w", len(groups), s.wal.path, s.path, err)
	}
	return nil
}

// checkSchema stamps a new file with schemaVersion, upgrades a version 1
// or 2 file and refuses any other version. walStale reports a file that
// was new or from version 1: no write-ahead file belongs to it yet. found
// is the version the file had, 0 for a new one.
func (s *Store) checkSchema(tx *bolt.Tx) (walStale bool, found uint64, err error) {
	meta := tx.Bucket([]byte(metaBucket))
	if meta == nil {
		empty := true
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
		if !empty {
			return false, 0, fmt.Errorf("%w: not a Berth data file (no %q bucket)", store.ErrCorrupt, metaBucket)
		}
		meta, err := tx.CreateBucket([]byte(metaBucket))
		if err != nil {
			return false, 0, fmt.Errorf("create bucket %q: %w", metaBucket, err)
		}
		return true, 0, putMeta(meta, metaInt{schemaKey, schemaVersion}, metaInt{walSeqKey, 0}, metaInt{nextKey, 1}, metaInt{checksumFromKey, 1})
	}
	v, err := getUint64(meta.Get([]byte(schemaKey)))
	if err != nil {
		return false, 0, fmt.Errorf("%s: %w", schemaKey, err)
	}
	switch v {
	case schemaVersion:
		return false, v, nil
	case 1, 2:
		// Records from the next revision on carry a checksum.
		next, err := getUint64(meta.Get([]byte(nextKey)))
		if err != nil {
			return false, v, fmt.Errorf("%s: %w", nextKey, err)
		}
		if err := putMeta(meta, metaInt{schemaKey, schemaVersion}, metaInt{checksumFromKey, next}); err != nil {
			return false, v, err
		}
		if v == 1 {
			// Version 1 wrote bbolt directly: no group to replay, and
			// the write-ahead file is emptied, so no high-water mark.
			for _, k := range []string{ackedKey, ackedNextKey} {
				if err := meta.Delete([]byte(k)); err != nil {
					return false, v, err
				}
			}
			return true, v, meta.Put([]byte(walSeqKey), putUint64(0))
		}
		return false, v, nil
	}
	return false, v, &store.SchemaVersionError{Path: s.path, Found: v, Supported: schemaVersion}
}

// sealSpaces rewrites every keyspace value of a file from before version 3
// with its checksum.
func sealSpaces(tx *bolt.Tx) error {
	for _, sp := range store.Spaces() {
		b, err := bucket(tx, spaceBucket(sp))
		if err != nil {
			return err
		}
		var kvs []store.KV
		if err := b.ForEach(func(k, v []byte) error {
			kvs = append(kvs, store.KV{Key: clone(k), Value: checksum.SealValue(sp, k, v)})
			return nil
		}); err != nil {
			return err
		}
		for _, kv := range kvs {
			if err := b.Put(kv.Key, kv.Value); err != nil {
				return fmt.Errorf("seal %s %q: %w", sp, kv.Key, err)
			}
		}
	}
	return nil
}

// loadLog sets the revisions, the tail and the clock from the log bucket.
// A damaged record does not fail it: the tail starts after the newest one,
// and reading it fails with its revision.
func (s *Store) loadLog(tx *bolt.Tx) error {
	s.revs = logstore.NewRevisions(s.next, s.next-1, nil, s.opts.TailSize)
	s.clock = logstore.NewClock(s.opts.Clock, time.Time{})
	log, err := bucket(tx, logBucket)
	if err != nil {
		return err
	}
	c := log.Cursor()
	k, v := c.Last()
	if k == nil {
		return nil
	}
	// Unchecked: the time of a damaged newest record is the best there is.
	newest, err := decodeRecord(k, v, false, true)
	if err != nil {
		return err
	}
	if newest.Revision >= s.next {
		return fmt.Errorf("%w: log reaches revision %d but %s is %d", store.ErrCorrupt, newest.Revision, nextKey, s.next)
	}
	s.clock = logstore.NewClock(s.opts.Clock, newest.Time)
	fk, _ := c.First()
	first, err := getUint64(fk)
	if err != nil {
		return fmt.Errorf("log key: %w", err)
	}
	last := s.next - 1
	s.revs = logstore.NewRevisions(first, last, nil, s.opts.TailSize)
	// The tail must end at last with consecutive revisions; if the newest
	// record is not last (it cannot be, short of damage), start it empty.
	if newest.Revision != last || s.opts.TailSize == 0 {
		return nil
	}
	var tail []store.Record
	for ; k != nil && len(tail) < s.opts.TailSize; k, v = c.Prev() {
		r, err := decodeRecord(k, v, s.checked(k), false)
		var damaged *store.CorruptRecordError
		if errors.As(err, &damaged) {
			s.opts.Logger.Error("store: damaged record in the log; reading it fails", "err", err)
			break
		}
		if err != nil {
			return err
		}
		if len(tail) > 0 && r.Revision != tail[len(tail)-1].Revision-1 {
			return fmt.Errorf("%w: log jumps from revision %d to %d", store.ErrCorrupt, r.Revision, tail[len(tail)-1].Revision)
		}
		tail = append(tail, r)
	}
	slices.Reverse(tail)
	s.revs = logstore.NewRevisions(first, last, tail, s.opts.TailSize)
	return nil
}

// checked reports whether the record under log key k carries a checksum.
func (s *Store) checked(k []byte) bool {
	return len(k) == 8 && binary.BigEndian.Uint64(k) >= s.checksumFrom
}
