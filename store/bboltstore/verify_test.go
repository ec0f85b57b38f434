package bboltstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
)

func TestVerify(t *testing.T) {
	tests := []struct {
		name        string
		damage      func(t *testing.T, dir string)
		wantDamaged []uint64
		wantProblem string // in one of the problems; "" for a clean report
	}{
		{name: "clean", damage: func(*testing.T, string) {}},
		{name: "record changed", damage: editLog(func(log *bolt.Bucket) error {
			v := bytes.Clone(log.Get(putUint64(2)))
			v[timeSize] ^= 1
			return log.Put(putUint64(2), v)
		}), wantDamaged: []uint64{2}, wantProblem: "record at revision 2 is damaged"},
		{name: "record missing", damage: editLog(func(log *bolt.Bucket) error {
			return log.Delete(putUint64(3))
		}), wantProblem: "revisions jump from 2 to 4"},
		{name: "keyspace value changed", damage: func(t *testing.T, dir string) {
			editDataFile(t, dir, func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte(spaceBucket(store.Assumed)))
				v := bytes.Clone(b.Get([]byte("k")))
				v[0] ^= 1
				return b.Put([]byte("k"), v)
			})
		}, wantProblem: `keyspace assumed: the value of "k" fails its checksum`},
		{name: "data file truncated", damage: func(t *testing.T, dir string) {
			truncateTo(12<<10)(t, filepath.Join(dir, fileName))
		}, wantProblem: "the file was truncated"},
		{name: "write-ahead file went backwards", damage: func(t *testing.T, dir string) {
			editDataFile(t, dir, func(tx *bolt.Tx) error {
				return putHighWater(tx.Bucket([]byte(metaBucket)), highWater{seq: 99, next: 200})
			})
		}, wantProblem: "revisions up to 199 were acknowledged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, Options{})
			for range 5 {
				b := batch(strings.Repeat("decision ", 300))
				b.Put(store.Assumed, []byte("k"), []byte("v"))
				commit(t, s, b)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			tt.damage(t, dir)
			rep, err := Verify(context.Background(), dir, Options{})
			if err != nil {
				t.Fatalf("Verify = %v", err)
			}
			if diff := cmp.Diff(tt.wantDamaged, rep.Damaged); diff != "" {
				t.Errorf("damaged revisions (-want +got):\n%s", diff)
			}
			if tt.wantProblem == "" {
				if !rep.OK() || rep.Records != 5 || rep.First != 1 || rep.Last != 5 || rep.ChecksumFrom != 1 {
					t.Errorf("report of a clean directory = %+v", rep)
				}
				// Closed cleanly: every group is in bbolt, the mark at the last.
				wantWAL := WALReport{Path: filepath.Join(dir, walFileName), Present: true, Size: DefaultWALSize, Applied: 5, Last: 5, Acked: 5, AckedNext: 6}
				if diff := cmp.Diff(wantWAL, rep.WAL); diff != "" {
					t.Errorf("write-ahead file (-want +got):\n%s", diff)
				}
				return
			}
			if rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), tt.wantProblem) {
				t.Errorf("problems %q, want one containing %q", rep.Problems, tt.wantProblem)
			}
		})
	}
}

// Verify reads the write-ahead file as Open would: the groups it would
// replay, and an old data file without checksums is not damage.
func TestVerifyVersion2WithGroupsToReplay(t *testing.T) {
	dir := crashCopy(t, filepath.Join("testdata", "v2")) // a copy: opening upgrades it
	rep, err := Verify(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &VerifyReport{Path: filepath.Join(dir, fileName), SchemaVersion: 2, First: 1, Last: 2, Records: 2, ChecksumFrom: 3, Replay: 1, ReplayLast: 3,
		WAL: WALReport{Path: filepath.Join(dir, walFileName), Present: true, Size: 16384, Applied: 1, Last: 2}}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

// TestRepair drops the damaged keyspace values after keeping a copy of
// the files, leaves the intact values and a damaged record (a decision)
// alone, and a second run finds nothing to do.
func TestRepair(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	b := batch("bind a", "bind b")
	b.Put(store.Assumed, []byte("a"), []byte("bind a"))
	b.Put(store.Assumed, []byte("b"), []byte("bind b"))
	b.Put(store.Unschedulable, []byte("c"), []byte("0/1 nodes are available"))
	commit(t, s, b)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	editDataFile(t, dir, func(tx *bolt.Tx) error {
		for _, kv := range []struct {
			sp  store.Space
			key string
		}{{store.Assumed, "b"}, {store.Unschedulable, "c"}} {
			sp := tx.Bucket([]byte(spaceBucket(kv.sp)))
			v := bytes.Clone(sp.Get([]byte(kv.key)))
			v[0] ^= 1
			if err := sp.Put([]byte(kv.key), v); err != nil {
				return err
			}
		}
		log := tx.Bucket([]byte(logBucket))
		v := bytes.Clone(log.Get(putUint64(2)))
		v[timeSize] ^= 1
		return log.Put(putUint64(2), v)
	})
	original, err := os.ReadFile(filepath.Join(dir, fileName))
	if err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return time.Date(2026, 12, 1, 23, 30, 0, 0, time.UTC) }
	rep, err := Repair(context.Background(), dir, Options{Clock: clock})
	if err != nil {
		t.Fatalf("Repair: %v", err)
	}
	want := &RepairReport{
		Backup:  filepath.Join(dir, "backup-20261201T233000Z"),
		Dropped: []ValueRef{{store.Assumed, "b"}, {store.Unschedulable, "c"}},
	}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("Repair (-want +got):\n%s", diff)
	}
	if kept, err := os.ReadFile(filepath.Join(want.Backup, fileName)); err != nil || !bytes.Equal(kept, original) {
		t.Errorf("the copy of %s differs from the file before the repair (err %v)", fileName, err)
	}
	if _, err := os.Stat(filepath.Join(want.Backup, walFileName)); err != nil {
		t.Errorf("no copy of the write-ahead file: %v", err)
	}
	after, err := Verify(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.DamagedValues) != 0 || !reflect.DeepEqual(after.Damaged, []uint64{2}) {
		t.Errorf("after the repair: damaged values %v, damaged revisions %v; want none and [2] (records are never dropped)", after.DamagedValues, after.Damaged)
	}
	r := open(t, dir, Options{})
	if diff := cmp.Diff(map[string]string{"a": "bind a"}, kvs(t, r, store.Assumed)); diff != "" {
		t.Errorf("assumed after the repair (-want +got):\n%s", diff)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if again, err := Repair(context.Background(), dir, Options{}); err != nil || again.Backup != "" || len(again.Dropped) != 0 {
		t.Errorf("second Repair = %+v, %v; want nothing to do", again, err)
	}
}

func TestVerifyRefusesAnOpenStore(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, Options{})
	if _, err := Verify(context.Background(), dir, Options{LockTimeout: 50 * ms}); !errors.Is(err, store.ErrLocked) {
		t.Errorf("Verify of an open store = %v, want ErrLocked", err)
	}
}

func editLog(fn func(log *bolt.Bucket) error) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		editDataFile(t, dir, func(tx *bolt.Tx) error { return fn(tx.Bucket([]byte(logBucket))) })
	}
}
