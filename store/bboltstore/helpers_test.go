package bboltstore

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
)

// fakeClock is a settable clock for age-based compaction.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// open opens a store in dir and closes it when the test ends.
func open(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("Open(%s) = %v", dir, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// batch builds a Batch from record payloads.
func batch(payloads ...string) *store.Batch {
	var b store.Batch
	for _, p := range payloads {
		b.Append([]byte(p))
	}
	return &b
}

func commit(t testing.TB, s *Store, b *store.Batch) store.CommitResult {
	t.Helper()
	res, err := s.Commit(context.Background(), b)
	if err != nil {
		t.Fatalf("Commit = %v", err)
	}
	return res
}

// rec is a record reduced to what tests compare.
type rec struct {
	Rev     uint64
	Payload string
}

func recs(rs []store.Record) []rec {
	out := make([]rec, 0, len(rs))
	for _, r := range rs {
		out = append(out, rec{r.Revision, string(r.Payload)})
	}
	return out
}

func readAll(t testing.TB, s *Store, from uint64) []rec {
	t.Helper()
	rs, err := s.Read(context.Background(), from, 0)
	if err != nil {
		t.Fatalf("Read(%d) = %v", from, err)
	}
	return recs(rs)
}

// kvs lists a keyspace as strings.
func kvs(t testing.TB, s *Store, sp store.Space) map[string]string {
	t.Helper()
	list, err := s.List(sp)
	if err != nil {
		t.Fatalf("List(%s) = %v", sp, err)
	}
	out := map[string]string{}
	for _, kv := range list {
		out[string(kv.Key)] = string(kv.Value)
	}
	return out
}

// editDataFile runs fn in a write transaction on dir's closed data file, as
// other tooling (or damage) would.
func editDataFile(t testing.TB, dir string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, fileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fn); err != nil {
		t.Fatal(errors.Join(err, db.Close()))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

const (
	ms     = time.Millisecond
	time1h = time.Hour
)

// toOldEncoding rewrites a data file in the encoding of schema version
// (1 or 2): records and keyspace values without checksums, none of the
// keys version 3 added.
func toOldEncoding(tx *bolt.Tx, version uint64) error {
	meta := tx.Bucket([]byte(metaBucket))
	from, err := getUint64(meta.Get([]byte(checksumFromKey)))
	if err != nil {
		return err
	}
	strip := func(b *bolt.Bucket, keep func(k []byte) bool) error {
		var kvs []store.KV
		err := b.ForEach(func(k, v []byte) error {
			if !keep(k) {
				kvs = append(kvs, store.KV{Key: clone(k), Value: clone(v[:len(v)-crcSize])})
			}
			return nil
		})
		for _, kv := range kvs {
			err = errors.Join(err, b.Put(kv.Key, kv.Value))
		}
		return err
	}
	if err := strip(tx.Bucket([]byte(logBucket)), func(k []byte) bool { return binary.BigEndian.Uint64(k) < from }); err != nil {
		return err
	}
	for _, sp := range store.Spaces() {
		if err := strip(tx.Bucket([]byte(spaceBucket(sp))), func([]byte) bool { return false }); err != nil {
			return err
		}
	}
	for _, k := range []string{checksumFromKey, ackedKey, ackedNextKey} {
		if err := meta.Delete([]byte(k)); err != nil {
			return err
		}
	}
	return meta.Put([]byte(schemaKey), putUint64(version))
}
