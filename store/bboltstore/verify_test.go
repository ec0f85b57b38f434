package bboltstore

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

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
		}, wantProblem: `assumed "k": checksum`},
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
	want := &VerifyReport{Path: filepath.Join(dir, fileName), SchemaVersion: 2, First: 1, Last: 2, Records: 2, ChecksumFrom: 3, Replay: 1, ReplayLast: 3}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
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
