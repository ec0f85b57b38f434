package bboltstore

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
)

// TestDamagedRecordIsRefused changes bytes of stored records, as the
// adversarial run did (bbolt pages carry no checksum): reading the record
// fails with an error naming its revision, from bbolt and from the tail
// loaded at Open, and the records around it are still served (a read from
// before it stops short of it).
func TestDamagedRecordIsRefused(t *testing.T) {
	tests := []struct {
		name   string
		damage func(v []byte) []byte
	}{
		{"payload byte", func(v []byte) []byte { v[timeSize+2] ^= 0x20; return v }},
		{"time byte", func(v []byte) []byte { v[3] ^= 0x01; return v }},
		{"checksum byte", func(v []byte) []byte { v[len(v)-1] ^= 0x80; return v }},
		{"cut short", func(v []byte) []byte { return v[:5] }},
		{"trailer dropped", func(v []byte) []byte { return v[:len(v)-crcSize] }},
		{"record of another revision", func([]byte) []byte { return nil }}, // filled below
	}
	for _, tt := range tests {
		for _, tail := range []int{-1, 0} {
			name := tt.name + "/from bbolt"
			if tail == 0 {
				name = tt.name + "/from the tail"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				s := open(t, dir, Options{})
				commit(t, s, batch("bind pod-1 to node-a", "bind pod-2 to node-b", "bind pod-3 to node-c"))
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				editDataFile(t, dir, func(tx *bolt.Tx) error {
					log := tx.Bucket([]byte(logBucket))
					k2, k3 := putUint64(2), putUint64(3)
					v := tt.damage(bytes.Clone(log.Get(k2)))
					if v == nil {
						v = bytes.Clone(log.Get(k3)) // record 3 stored as 2
					}
					return log.Put(k2, v)
				})
				r := open(t, dir, Options{TailSize: tail})
				if got, want := readAll(t, r, 1), []rec{{1, "bind pod-1 to node-a"}}; !reflect.DeepEqual(got, want) {
					t.Errorf("Read(1) = %v, want %v: the intact record before the damaged one", got, want)
				}
				_, err := r.Read(context.Background(), 2, 0)
				var damaged *store.CorruptRecordError
				if !errors.As(err, &damaged) || damaged.Revision != 2 || !errors.Is(err, store.ErrCorrupt) {
					t.Fatalf("Read(2) = %v, want a *store.CorruptRecordError for revision 2", err)
				}
				if got, want := readAll(t, r, 3), []rec{{3, "bind pod-3 to node-c"}}; !reflect.DeepEqual(got, want) {
					t.Errorf("Read(3) = %v, want %v", got, want)
				}
				if rs, err := r.Read(context.Background(), 1, 1); err != nil || len(rs) != 1 || string(rs[0].Payload) != "bind pod-1 to node-a" {
					t.Errorf("Read(1, limit 1) = %v, %v; want revision 1", recs(rs), err)
				}
			})
		}
	}
}

// TestDamagedKeyspaceValueIsSkipped changes a stored keyspace value: Get
// and List skip it as absent rather than return it, and count it
// (storetest holds both backends to the rest).
func TestDamagedKeyspaceValueIsSkipped(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	b := batch("bind")
	b.Put(store.Assumed, []byte("uid-1"), []byte("node-a"))
	commit(t, s, b)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	editDataFile(t, dir, func(tx *bolt.Tx) error {
		sp := tx.Bucket([]byte(spaceBucket(store.Assumed)))
		v := bytes.Clone(sp.Get([]byte("uid-1")))
		v[0] = 'N'
		return sp.Put([]byte("uid-1"), v)
	})
	r := open(t, dir, Options{})
	if v, ok, err := r.Get(store.Assumed, []byte("uid-1")); ok || err != nil {
		t.Errorf("Get = %q, %v, %v; want the damaged value skipped", v, ok, err)
	}
	if kvs, err := r.List(store.Assumed); len(kvs) != 0 || err != nil {
		t.Errorf("List = %q, %v; want the damaged value skipped", kvs, err)
	}
	if got := r.DamagedValues(); !reflect.DeepEqual(got, map[store.Space]uint64{store.Assumed: 1}) {
		t.Errorf("DamagedValues = %v, want one in assumed", got)
	}
}

// TestUpgradeFromSchemaVersion2 opens a data directory written by the
// previous version (testdata/v2, see its README): records without
// checksums, one group only in the write-ahead file. Old records are
// served, the replayed and new ones carry checksums, keyspace values are
// sealed, and a damaged record of the new encoding is caught.
func TestUpgradeFromSchemaVersion2(t *testing.T) {
	dir := crashCopy(t, filepath.Join("testdata", "v2")) // a copy: opening upgrades it
	s := open(t, dir, Options{})
	if s.checksumFrom != 3 {
		t.Errorf("checksums start at revision %d, want 3 (the first replayed)", s.checksumFrom)
	}
	wantLogThenNext(t, s, []rec{{1, "bind a"}, {2, "bind b"}, {3, "evict c"}}, "bind d")
	want := map[store.Space]map[string]string{
		store.Assumed:   {},
		store.Evictions: {"uid-c": "evict c"},
		store.UserMeta:  {"decision-log-id": "0123456789abcdef"},
	}
	for sp, kv := range want {
		if got := kvs(t, s, sp); !reflect.DeepEqual(got, kv) {
			t.Errorf("%s = %v, want %v", sp, got, kv)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	editDataFile(t, dir, func(tx *bolt.Tx) error {
		if v, _ := getUint64(tx.Bucket([]byte(metaBucket)).Get([]byte(schemaKey))); v != schemaVersion {
			t.Errorf("schema version %d after the upgrade, want %d", v, schemaVersion)
		}
		log := tx.Bucket([]byte(logBucket))
		v := bytes.Clone(log.Get(putUint64(4)))
		v[timeSize] ^= 0x01
		return log.Put(putUint64(4), v)
	})
	r := open(t, dir, Options{TailSize: -1})
	var damaged *store.CorruptRecordError
	if _, err := r.Read(context.Background(), 4, 0); !errors.As(err, &damaged) || damaged.Revision != 4 {
		t.Fatalf("Read after damaging revision 4 = %v, want a *store.CorruptRecordError for it", err)
	}
	if rs, err := r.Read(context.Background(), 1, 0); err != nil || len(rs) != 3 {
		t.Errorf("Read(1) = %v, %v; want the 3 intact records before revision 4", recs(rs), err)
	}
}

func TestDecodeRecord(t *testing.T) {
	v := append(append(make([]byte, timeSize), "payload"...), make([]byte, crcSize)...)
	fakeNow := time.Unix(0, 1_700_000_000_123_456_789)
	sealRecordValue(v, 7, fakeNow)
	r, err := decodeRecord(putUint64(7), v, true, true)
	if err != nil || r.Revision != 7 || !r.Time.Equal(fakeNow) || string(r.Payload) != "payload" {
		t.Fatalf("decodeRecord = %+v, %v", r, err)
	}
	for i := range v {
		bad := bytes.Clone(v)
		bad[i] ^= 0x04
		if _, err := decodeRecord(putUint64(7), bad, true, true); !errors.Is(err, store.ErrCorrupt) {
			t.Fatalf("byte %d flipped: decodeRecord = %v, want ErrCorrupt", i, err)
		}
	}
	if _, err := decodeRecord(putUint64(8), v, true, true); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("record under another revision: decodeRecord = %v, want ErrCorrupt", err)
	}
	old := append(make([]byte, timeSize), "old payload"...)
	if r, err := decodeRecord(putUint64(1), old, false, true); err != nil || string(r.Payload) != "old payload" {
		t.Errorf("unchecked decodeRecord = %+v, %v", r, err)
	}
}
