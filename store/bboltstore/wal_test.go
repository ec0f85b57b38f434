package bboltstore

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
)

func TestGroupEncodingRoundTrip(t *testing.T) {
	now := time.Unix(0, 1_700_000_000_123_456_789)
	rev := uint64(42)
	rec := func(p string) []byte {
		v := append(append(make([]byte, timeSize), p...), make([]byte, crcSize)...)
		sealRecordValue(v, rev, now)
		rev++
		return v
	}
	in := &walGroup{
		first:  42,
		time:   now,
		values: [][]byte{rec("bind a"), rec(""), rec(strings.Repeat("x", 300))},
		ops: []store.Op{
			{Space: store.Assumed, Key: []byte("uid-1"), Value: []byte("node-7")},
			{Space: store.Nominations, Key: []byte("uid-2"), Delete: true},
			{Space: store.Unschedulable, Key: []byte("uid-3"), Value: []byte{}},
		},
	}
	frame := encodeGroup(nil, 9, in)
	seq, payload, n, ok := parseFrame(append(frame, 0, 0, 0))
	if !ok || seq != 9 || n != len(frame) {
		t.Fatalf("parseFrame = seq %d, %d bytes, ok %v; want 9, %d, true", seq, n, ok, len(frame))
	}
	out, err := decodeGroup(payload)
	if err != nil {
		t.Fatal(err)
	}
	if out.first != in.first || !out.time.Equal(in.time) || !reflect.DeepEqual(out.values, in.values) {
		t.Errorf("decoded first %d time %v values %q; want %d %v %q", out.first, out.time, out.values, in.first, in.time, in.values)
	}
	if !reflect.DeepEqual(out.ops, in.ops) {
		t.Errorf("decoded ops %+v, want %+v", out.ops, in.ops)
	}
	if out.ops[2].Value == nil {
		t.Error("an empty value decodes as nil; bbolt refuses a nil value")
	}

	// Any damage makes the frame unreadable: a scan stops there.
	for i := range frame {
		bad := bytes.Clone(frame)
		bad[i] ^= 0x10
		if _, _, _, ok := parseFrame(bad); ok {
			t.Fatalf("frame with byte %d flipped still parses", i)
		}
	}
	if _, _, _, ok := parseFrame(frame[:len(frame)-1]); ok {
		t.Fatal("a torn frame parses")
	}
}

// crashCopy copies the data dir of an open store, as a kill -9 would leave
// it: the write-ahead file holds what Commit returned, bbolt maybe less.
func crashCopy(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	for _, name := range []string{fileName, walFileName} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// neverApply keeps groups out of bbolt until something reads from it.
var neverApply = Options{ApplyInterval: time.Hour}

func TestReplayAfterCrash(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, neverApply)
	b := batch("r1", "r2")
	b.Put(store.Assumed, []byte("p1"), []byte("n1"))
	commit(t, s, b)
	b = batch("r3")
	b.Put(store.Assumed, []byte("p2"), []byte("n2"))
	b.Delete(store.Assumed, []byte("p1"))
	commit(t, s, b)
	if st := s.Stats(); st.Applies != 0 {
		t.Fatalf("bbolt was written %d times before anything read it; the test needs it behind", st.Applies)
	}

	crashed := crashCopy(t, dir)
	r := open(t, crashed, Options{})
	if got := kvs(t, r, store.Assumed); !reflect.DeepEqual(got, map[string]string{"p2": "n2"}) {
		t.Fatalf("after replay assumed = %v", got)
	}
	wantLogThenNext(t, r, []rec{{1, "r1"}, {2, "r2"}, {3, "r3"}}, "r4")
	// Replayed groups are not replayed twice.
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r = open(t, crashed, Options{})
	if got := readAll(t, r, 1); len(got) != 4 || got[3] != (rec{4, "r4"}) {
		t.Fatalf("after a second restart the log is %v", got)
	}
}

func TestReplayIgnoresTornFrame(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, neverApply)
	commit(t, s, batch("kept"))
	crashed := crashCopy(t, dir)

	// A frame cut short by the crash follows the last whole one.
	w, err := os.OpenFile(filepath.Join(crashed, walFileName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := io.ReadAll(w)
	if err != nil {
		t.Fatal(err)
	}
	_, _, n, ok := parseFrame(frames)
	if !ok {
		t.Fatal("no frame at the start of the write-ahead file")
	}
	torn := encodeGroup(nil, 2, &walGroup{first: 2, time: time.Now(), values: [][]byte{append(make([]byte, timeSize), "lost"...)}})
	if _, err := w.WriteAt(torn[:len(torn)-3], int64(n)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r := open(t, crashed, Options{})
	wantLogThenNext(t, r, []rec{{1, "kept"}}, "next") // only the whole frame's record
}

func TestWriteAheadFileWrapsAround(t *testing.T) {
	dir := t.TempDir()
	const size = 4 << 10
	s := open(t, dir, Options{WALSize: size, ApplyInterval: time.Hour})
	var want []rec
	for i := range 200 { // ~40 bytes a frame: several laps
		p := strings.Repeat("p", i%7) + string(rune('a'+i%26))
		b := batch(p)
		b.Put(store.UserMeta, []byte("count"), []byte{byte(i)})
		commit(t, s, b)
		want = append(want, rec{uint64(i + 1), p})
	}
	if st := s.Stats(); st.Applies == 0 {
		t.Fatal("the file never filled: nothing was applied to make room")
	}
	crashed := crashCopy(t, dir)
	fi, err := os.Stat(filepath.Join(dir, walFileName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != size {
		t.Errorf("write-ahead file is %d bytes, want its preallocated %d", fi.Size(), size)
	}
	for _, d := range []string{dir, crashed} {
		if d == dir {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		r := open(t, d, Options{WALSize: size})
		if got := readAll(t, r, 1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: reopened log has %d records, want %d", d, len(got), len(want))
		}
		if v, ok, err := r.Get(store.UserMeta, []byte("count")); err != nil || !ok || v[0] != 199 {
			t.Fatalf("%s: count = %v, %v, %v; want 199", d, v, ok, err)
		}
	}
}

func TestReplayRefusesMissingGroups(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{WALSize: 1 << 10, ApplyInterval: time.Hour})
	for range 100 { // the file laps, so its first frame is far past group 1
		commit(t, s, batch("0123456789"))
	}
	crashed := crashCopy(t, dir)
	editDataFile(t, crashed, setMeta(walSeqKey, putUint64(1)))
	_, err := Open(t.Context(), crashed, Options{})
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "bbolt holds groups only up to 1") {
		t.Fatalf("Open = %v, want ErrCorrupt naming the missing groups", err)
	}
}

func TestUpgradeFromSchemaVersion1(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	commit(t, s, batch("old"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A version 1 file: records without checksums, no wal-seq key and no
	// write-ahead file.
	editDataFile(t, dir, func(tx *bolt.Tx) error {
		if err := toOldEncoding(tx, 1); err != nil {
			return err
		}
		return tx.Bucket([]byte(metaBucket)).Delete([]byte(walSeqKey))
	})
	if err := os.Remove(filepath.Join(dir, walFileName)); err != nil {
		t.Fatal(err)
	}

	r := open(t, dir, Options{})
	wantLogThenNext(t, r, []rec{{1, "old"}}, "new")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	editDataFile(t, dir, func(tx *bolt.Tx) error {
		v, err := getUint64(tx.Bucket([]byte(metaBucket)).Get([]byte(schemaKey)))
		if err == nil && v != schemaVersion {
			err = errors.New("schema version not bumped")
		}
		return err
	})
}

// A write-ahead file left beside a new data file (berth.db deleted, the
// directory otherwise kept) belongs to the old one: none of its frames may
// reach the new file, even where the new frames line up with the old ones.
func TestNewDataFileIgnoresOldWriteAheadFile(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, neverApply)
	for _, p := range []string{"old-1", "old-2", "old-3"} {
		commit(t, s, batch(p))
	}
	crashed := crashCopy(t, dir)
	if err := os.Remove(filepath.Join(crashed, fileName)); err != nil {
		t.Fatal(err)
	}

	r := open(t, crashed, neverApply)
	if first, last := r.Revisions(); first != 1 || last != 0 {
		t.Fatalf("new data file has revisions %d-%d, want none", first, last)
	}
	commit(t, r, batch("new-1")) // the same frame size as old-1's
	again := crashCopy(t, crashed)
	r2 := open(t, again, Options{})
	if got := readAll(t, r2, 1); !reflect.DeepEqual(got, []rec{{1, "new-1"}}) {
		t.Fatalf("after a crash the new data file holds %v, want only new-1", got)
	}
}

// wantLogThenNext fails unless s's log is want and a commit of next, made
// now, continues it at the following revision.
func wantLogThenNext(t *testing.T, s *Store, want []rec, next string) {
	t.Helper()
	if got := readAll(t, s, 1); !reflect.DeepEqual(got, want) {
		t.Fatalf("the log is %v, want %v", got, want)
	}
	if res := commit(t, s, batch(next)); res.First != uint64(len(want))+1 {
		t.Fatalf("commit of %q got revision %d, want %d", next, res.First, len(want)+1)
	}
}
