package bboltstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/berthsched/berth/store"
)

// tailModes runs a test with the in-memory tail on, tiny, and off, so both
// read paths are covered.
var tailModes = []struct {
	name string
	size int
}{{"tail default", 0}, {"tail 2", 2}, {"no tail", -1}}

func TestCommitAndRead(t *testing.T) {
	ops := &store.Batch{}
	ops.Put(store.UserMeta, []byte("k"), []byte("v"))
	tests := []struct {
		name        string
		batches     []*store.Batch
		wantResults [][2]uint64 // First, Last per batch
		wantRecords []rec
	}{
		{
			name:        "one record per batch",
			batches:     []*store.Batch{batch("a"), batch("b"), batch("c")},
			wantResults: [][2]uint64{{1, 1}, {2, 2}, {3, 3}},
			wantRecords: []rec{{1, "a"}, {2, "b"}, {3, "c"}},
		},
		{
			name:        "several records per batch keep their order",
			batches:     []*store.Batch{batch("a", "b", "c"), batch("d"), batch("e", "f")},
			wantResults: [][2]uint64{{1, 3}, {4, 4}, {5, 6}},
			wantRecords: []rec{{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}, {5, "e"}, {6, "f"}},
		},
		{
			name:        "a batch without records takes no revision",
			batches:     []*store.Batch{batch("a"), ops, batch("b")},
			wantResults: [][2]uint64{{1, 1}, {0, 0}, {2, 2}},
			wantRecords: []rec{{1, "a"}, {2, "b"}},
		},
		{
			name:        "empty batch and empty payload",
			batches:     []*store.Batch{{}, batch(""), batch("x")},
			wantResults: [][2]uint64{{0, 0}, {1, 1}, {2, 2}},
			wantRecords: []rec{{1, ""}, {2, "x"}},
		},
	}
	for _, mode := range tailModes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				clock := newFakeClock()
				s := open(t, t.TempDir(), Options{TailSize: mode.size, Clock: clock.Now})
				var got [][2]uint64
				for _, b := range tt.batches {
					res := commit(t, s, b)
					got = append(got, [2]uint64{res.First, res.Last})
					if res.First != 0 && !res.Time.Equal(clock.Now()) {
						t.Errorf("result time %v, want %v", res.Time, clock.Now())
					}
				}
				if diff := cmp.Diff(tt.wantResults, got); diff != "" {
					t.Errorf("commit results (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantRecords, readAll(t, s, 1)); diff != "" {
					t.Errorf("records (-want +got):\n%s", diff)
				}
				first, last := s.Revisions()
				if want := uint64(len(tt.wantRecords)); first != 1 || last != want {
					t.Errorf("Revisions() = %d, %d, want 1, %d", first, last, want)
				}
			})
		}
	}
}

func TestRecordTimes(t *testing.T) {
	clock := newFakeClock()
	s := open(t, t.TempDir(), Options{TailSize: -1, Clock: clock.Now})
	t0 := clock.Now()
	commit(t, s, batch("a", "b"))
	clock.Advance(-time1h) // a clock going back does not reorder record times
	commit(t, s, batch("c"))
	clock.Advance(2 * time1h)
	commit(t, s, batch("d"))
	rs, err := s.Read(context.Background(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.Time.Sub(t0).String())
	}
	if diff := cmp.Diff([]string{"0s", "0s", "0s", "1h0m0s"}, got); diff != "" {
		t.Errorf("record times after t0 (-want +got):\n%s", diff)
	}
}

func TestReadRange(t *testing.T) {
	tests := []struct {
		name  string
		from  uint64
		limit int
		want  []uint64
	}{
		{name: "from zero reads from the start", from: 0, want: seq(1, 10)},
		{name: "all", from: 1, want: seq(1, 10)},
		{name: "limit", from: 1, limit: 3, want: seq(1, 3)},
		{name: "middle with limit", from: 5, limit: 2, want: seq(5, 6)},
		{name: "end", from: 8, want: seq(8, 10)},
		{name: "limit past the end", from: 10, limit: 5, want: seq(10, 10)},
		{name: "just past the end", from: 11},
		{name: "far past the end", from: 1000},
	}
	for _, mode := range tailModes {
		s := open(t, t.TempDir(), Options{TailSize: mode.size})
		for i := 1; i <= 10; i++ {
			commit(t, s, batch(fmt.Sprint("r", i)))
		}
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				rs, err := s.Read(context.Background(), tt.from, tt.limit)
				if err != nil {
					t.Fatalf("Read = %v", err)
				}
				var got []uint64
				for _, r := range rs {
					got = append(got, r.Revision)
					if want := fmt.Sprint("r", r.Revision); string(r.Payload) != want {
						t.Errorf("revision %d payload %q, want %q", r.Revision, r.Payload, want)
					}
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("revisions (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func seq(from, to uint64) []uint64 {
	var out []uint64
	for r := from; r <= to; r++ {
		out = append(out, r)
	}
	return out
}

func TestKeyspaces(t *testing.T) {
	type state map[store.Space]map[string]string
	steps := []struct {
		name  string
		build func(b *store.Batch)
		want  state
	}{
		{
			name: "puts land with the record",
			build: func(b *store.Batch) {
				b.Append([]byte("bind p1 n1"))
				b.Put(store.Assumed, []byte("p1"), []byte("n1@1"))
				b.Put(store.Nominations, []byte("p2"), []byte("n2"))
				b.Put(store.UserMeta, []byte("empty"), nil)
				b.Put(store.Evictions, []byte("p4"), []byte("evict p4"))
				b.Put(store.Unschedulable, []byte("p5"), []byte("0/1 nodes are available"))
				b.Put(store.Pressure, []byte("n1"), []byte(`{"state":{}}`))
				b.Put(store.Deadlines, []byte("taint/p6"), []byte("t"))
				b.Put(store.Claims, []byte("default/c"), []byte("{}"))
				b.Put(store.Admissions, []byte("team-a/pod-x-1a2b3"), []byte("admit"))
			},
			want: state{
				store.Assumed:       {"p1": "n1@1"},
				store.Nominations:   {"p2": "n2"},
				store.Evictions:     {"p4": "evict p4"},
				store.UserMeta:      {"empty": ""},
				store.Unschedulable: {"p5": "0/1 nodes are available"},
				store.Pressure:      {"n1": `{"state":{}}`},
				store.Deadlines:     {"taint/p6": "t"},
				store.Claims:        {"default/c": "{}"},
				store.Admissions:    {"team-a/pod-x-1a2b3": "admit"},
			},
		},
		{
			name: "operations apply in order",
			build: func(b *store.Batch) {
				b.Append([]byte("nominate p2 n3"))
				b.Delete(store.Nominations, []byte("p2"))
				b.Put(store.Nominations, []byte("p2"), []byte("n3"))
				b.Put(store.Assumed, []byte("p3"), []byte("x"))
				b.Delete(store.Assumed, []byte("p3"))
				b.Delete(store.Assumed, []byte("never-there"))
			},
			want: state{
				store.Assumed:       {"p1": "n1@1"},
				store.Nominations:   {"p2": "n3"},
				store.Evictions:     {"p4": "evict p4"},
				store.UserMeta:      {"empty": ""},
				store.Unschedulable: {"p5": "0/1 nodes are available"},
				store.Pressure:      {"n1": `{"state":{}}`},
				store.Deadlines:     {"taint/p6": "t"},
				store.Claims:        {"default/c": "{}"},
				store.Admissions:    {"team-a/pod-x-1a2b3": "admit"},
			},
		},
		{
			name: "operations without records",
			build: func(b *store.Batch) {
				b.Delete(store.Assumed, []byte("p1"))
				b.Delete(store.Evictions, []byte("p4"))
				b.Put(store.UserMeta, []byte("a"), []byte("1"))
				b.Delete(store.Unschedulable, []byte("p5"))
				b.Delete(store.Pressure, []byte("n1"))
				b.Delete(store.Deadlines, []byte("taint/p6"))
				b.Delete(store.Claims, []byte("default/c"))
				b.Delete(store.Admissions, []byte("team-a/pod-x-1a2b3"))
			},
			want: state{
				store.Assumed:       {},
				store.Nominations:   {"p2": "n3"},
				store.Evictions:     {},
				store.UserMeta:      {"a": "1", "empty": ""},
				store.Unschedulable: {},
				store.Pressure:      {},
				store.Deadlines:     {},
				store.Claims:        {},
				store.Admissions:    {},
			},
		},
	}
	s := open(t, t.TempDir(), Options{})
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			var b store.Batch
			st.build(&b)
			commit(t, s, &b)
			got := state{}
			for _, sp := range store.Spaces() {
				got[sp] = kvs(t, s, sp)
				for k, v := range st.want[sp] {
					val, ok, err := s.Get(sp, []byte(k))
					if err != nil || !ok || string(val) != v {
						t.Errorf("Get(%s, %s) = %q, %v, %v, want %q", sp, k, val, ok, err, v)
					}
				}
			}
			if diff := cmp.Diff(st.want, got); diff != "" {
				t.Errorf("keyspaces (-want +got):\n%s", diff)
			}
		})
	}
	if _, ok, err := s.Get(store.Assumed, []byte("p1")); ok || err != nil {
		t.Errorf("Get(deleted) = ok %v, err %v, want not found", ok, err)
	}
	if _, _, err := s.Get("bogus", []byte("k")); !errors.Is(err, store.ErrUnknownSpace) {
		t.Errorf("Get(bogus) = %v, want ErrUnknownSpace", err)
	}
	if _, err := s.List("bogus"); !errors.Is(err, store.ErrUnknownSpace) {
		t.Errorf("List(bogus) = %v, want ErrUnknownSpace", err)
	}
}

func TestCommitDoesNotKeepCallerSlices(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	payload, key, value := []byte("payload"), []byte("key"), []byte("value")
	var b store.Batch
	b.Append(payload)
	b.Put(store.UserMeta, key, value)
	commit(t, s, &b)
	copy(payload, "XXXXXXX")
	copy(key, "XXX")
	copy(value, "XXXXX")
	if diff := cmp.Diff([]rec{{1, "payload"}}, readAll(t, s, 1)); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"key": "value"}, kvs(t, s, store.UserMeta)); diff != "" {
		t.Errorf("keyspace (-want +got):\n%s", diff)
	}
}

func TestInvalidBatchAppliesNothing(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	var b store.Batch
	b.Append([]byte("a"))
	b.Put(store.Assumed, []byte("p"), []byte("n"))
	b.Put(store.Assumed, nil, []byte("n"))
	if _, err := s.Commit(context.Background(), &b); !errors.Is(err, store.ErrInvalidBatch) {
		t.Fatalf("Commit = %v, want ErrInvalidBatch", err)
	}
	if first, last := s.Revisions(); first != 1 || last != 0 {
		t.Errorf("Revisions() = %d, %d, want 1, 0", first, last)
	}
	if got := kvs(t, s, store.Assumed); len(got) != 0 {
		t.Errorf("assumed = %v, want empty", got)
	}
}

func TestCommitContext(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Commit(ctx, batch("a")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit(cancelled) = %v, want context.Canceled", err)
	}
	if _, last := s.Revisions(); last != 0 {
		t.Errorf("last revision %d after a cancelled commit, want 0", last)
	}
}

func TestReopen(t *testing.T) {
	tests := []struct {
		name      string
		retention store.Retention
		tail      int
		wantFirst uint64
	}{
		{name: "all records", wantFirst: 1},
		{name: "no tail", tail: -1, wantFirst: 1},
		{name: "compacted to the newest", retention: store.Retention{MaxRecords: 1}, wantFirst: 5},
		{name: "compacted, small tail", retention: store.Retention{MaxRecords: 3}, tail: 2, wantFirst: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{Retention: tt.retention, TailSize: tt.tail, CompactInterval: -1}
			s := open(t, dir, opts)
			var b store.Batch
			b.Append([]byte("r1"))
			b.Append([]byte("r2"))
			b.Put(store.Nominations, []byte("p"), []byte("n"))
			b.Put(store.Assumed, []byte("q"), []byte("m@2"))
			commit(t, s, &b)
			commit(t, s, batch("r3", "r4", "r5"))
			if _, err := s.Compact(context.Background()); err != nil {
				t.Fatal(err)
			}
			before := readAll(t, s, tt.wantFirst)
			if err := s.Close(); err != nil {
				t.Fatalf("Close = %v", err)
			}

			s = open(t, dir, opts)
			if first, last := s.Revisions(); first != tt.wantFirst || last != 5 {
				t.Errorf("Revisions() after reopen = %d, %d, want %d, 5", first, last, tt.wantFirst)
			}
			if diff := cmp.Diff(before, readAll(t, s, tt.wantFirst)); diff != "" {
				t.Errorf("records after reopen (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(map[string]string{"p": "n"}, kvs(t, s, store.Nominations)); diff != "" {
				t.Errorf("nominations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[string]string{"q": "m@2"}, kvs(t, s, store.Assumed)); diff != "" {
				t.Errorf("assumed (-want +got):\n%s", diff)
			}
			if res := commit(t, s, batch("r6")); res.First != 6 {
				t.Errorf("first commit after reopen got revision %d, want 6", res.First)
			}
		})
	}
}

func TestReopenKeepsRevisionWhenLogEmpty(t *testing.T) {
	// A store whose log was emptied (only possible by damage or by older
	// tooling) must still continue from next-revision, never reuse one.
	dir := t.TempDir()
	s := open(t, dir, Options{})
	commit(t, s, batch("a", "b", "c"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	editDataFile(t, dir, func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket([]byte(logBucket)); err != nil {
			return err
		}
		_, err := tx.CreateBucket([]byte(logBucket))
		return err
	})
	s = open(t, dir, Options{})
	if first, last := s.Revisions(); first != 4 || last != 3 {
		t.Errorf("Revisions() = %d, %d, want 4, 3", first, last)
	}
	var ce *store.CompactedError
	if _, err := s.Read(context.Background(), 2, 0); !errors.As(err, &ce) || ce.Oldest != 4 {
		t.Errorf("Read(2) = %v, want CompactedError with Oldest 4", err)
	}
	if res := commit(t, s, batch("d")); res.First != 4 {
		t.Errorf("next commit got revision %d, want 4", res.First)
	}
}

func TestSecondOpenIsLocked(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	_, err := Open(context.Background(), dir, Options{LockTimeout: 10 * ms})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "another berthd is using the data dir "+dir) {
		t.Errorf("message %q does not say another berthd uses %s", msg, dir)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	open(t, dir, Options{LockTimeout: 10 * ms}) // free again
}

func TestSchemaVersion(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(tx *bolt.Tx) error
		want    error
		wantMsg string
	}{
		{
			name:    "newer",
			damage:  setMeta(schemaKey, putUint64(schemaVersion+1)),
			want:    store.ErrSchemaVersion,
			wantMsg: "has schema version 4, newer than version 3 that this berthd supports",
		},
		{
			name:    "older",
			damage:  setMeta(schemaKey, putUint64(0)),
			want:    store.ErrSchemaVersion,
			wantMsg: "has schema version 0, older than version 3",
		},
		{
			name:    "malformed version",
			damage:  setMeta(schemaKey, []byte("v1")),
			want:    store.ErrCorrupt,
			wantMsg: "schema-version",
		},
		{
			name: "not a berth file",
			damage: func(tx *bolt.Tx) error {
				if err := tx.DeleteBucket([]byte(metaBucket)); err != nil {
					return err
				}
				_, err := tx.CreateBucket([]byte("something-else"))
				return err
			},
			want:    store.ErrCorrupt,
			wantMsg: "not a Berth data file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, Options{})
			commit(t, s, batch("a"))
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			path := dir + "/" + fileName
			editDataFile(t, dir, tt.damage)
			_, err := Open(context.Background(), dir, Options{})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Open = %v, want %v containing %q", err, tt.want, tt.wantMsg)
			}
			var sv *store.SchemaVersionError
			if errors.As(err, &sv) && sv.Path != path {
				t.Errorf("SchemaVersionError.Path = %q, want %q", sv.Path, path)
			}
		})
	}
}

func setMeta(key string, value []byte) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error { return tx.Bucket([]byte(metaBucket)).Put([]byte(key), value) }
}

func TestClosed(t *testing.T) {
	s := open(t, t.TempDir(), Options{Retention: store.Retention{MaxRecords: 1}})
	commit(t, s, batch("a"))
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	ctx := context.Background()
	calls := map[string]error{}
	_, calls["Commit"] = s.Commit(ctx, batch("b"))
	_, calls["Read"] = s.Read(ctx, 1, 0)
	_, _, calls["Get"] = s.Get(store.Assumed, []byte("k"))
	_, calls["List"] = s.List(store.Assumed)
	_, calls["Compact"] = s.Compact(ctx)
	calls["Wait"] = s.Wait(ctx, 5)
	calls["Close"] = s.Close()
	for name, err := range calls {
		if !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

// TestOpenAddsMissingSpaces: a file written before a keyspace was declared
// (no bucket for it) opens with the bucket created, its data intact.
func TestOpenAddsMissingSpaces(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	var b store.Batch
	b.Append([]byte("a"))
	b.Put(store.Nominations, []byte("p1"), []byte("n1"))
	if _, err := s.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	editDataFile(t, dir, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte(spaceBucket(store.Evictions))) })
	s = open(t, dir, Options{})
	if got := kvs(t, s, store.Nominations); got["p1"] != "n1" {
		t.Errorf("nominations after reopening: %v", got)
	}
	b = store.Batch{}
	b.Put(store.Evictions, []byte("p1"), []byte("evict"))
	if _, err := s.Commit(context.Background(), &b); err != nil {
		t.Fatalf("writing the new keyspace: %v", err)
	}
	if diff := cmp.Diff(map[string]string{"p1": "evict"}, kvs(t, s, store.Evictions)); diff != "" {
		t.Errorf("evictions (-want +got):\n%s", diff)
	}
}

// TestTailServesANewStore: the records of a store created by this Open
// are read from the in-memory tail, without waiting for bbolt (here
// failing every transaction), as those of a reopened one are.
func TestTailServesANewStore(t *testing.T) {
	failing := errors.New("bbolt transaction refused")
	s := open(t, t.TempDir(), Options{ApplyInterval: time1h, applyFault: func() error { return failing }})
	commit(t, s, batch("a", "b", "c"))
	ctx, cancel := context.WithTimeout(context.Background(), time1h)
	defer cancel()
	rs, err := s.Read(ctx, 2, 0)
	if err != nil || len(rs) != 2 || string(rs[0].Payload) != "b" {
		t.Fatalf("Read(2) = %v, %v; want b and c from the tail", recs(rs), err)
	}
}
