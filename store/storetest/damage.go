package storetest

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/store"
)

// Damage changes a closed store's stored bytes behind its back, as a
// failing disk or a stray write would; the stored checksum is left as it
// was, so the change shows.
type Damage struct {
	// Record changes the bytes of the record at rev.
	Record func(t *testing.T, rev uint64)
	// Value changes the bytes of the value under key in sp.
	Value func(t *testing.T, sp store.Space, key []byte)
}

// damageCounter is what the contract asks of every backend besides
// store.Store: how many damaged keyspace values it skipped since it was
// opened, by keyspace (berthd exports it as a metric).
type damageCounter interface {
	DamagedValues() map[store.Space]uint64
}

// testDamagedRecord: a damaged record is refused with an error naming its
// revision, and every intact record before and after it is still served,
// so that a watcher gets everything up to the damage before DATA_LOSS.
func testDamagedRecord(t *testing.T, p Place) {
	s := p.Open(t, Options{})
	for i := range 10 {
		Commit(t, s, Batch(strconv.Itoa(i+1)))
	}
	closeStore(t, s)
	p.Damage.Record(t, 6)

	s = p.Open(t, Options{})
	defer closeStore(t, s)
	tests := []struct {
		from  uint64
		limit int
		want  []uint64 // nil with damaged set: the read fails
	}{
		{1, 0, seq(1, 5)},
		{0, 0, seq(1, 5)},
		{3, 2, seq(3, 4)},
		{4, 5, seq(4, 5)},
		{5, 0, seq(5, 5)},
		{7, 0, seq(7, 10)},
		{6, 0, nil},
		{6, 1, nil},
	}
	for _, tc := range tests {
		rs, err := s.Read(context.Background(), tc.from, tc.limit)
		if tc.want == nil {
			var damaged *store.CorruptRecordError
			if !errors.As(err, &damaged) || damaged.Revision != 6 || !errors.Is(err, store.ErrCorrupt) {
				t.Errorf("Read(%d, %d) = %v, %v; want a *store.CorruptRecordError naming revision 6", tc.from, tc.limit, recs(rs), err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Read(%d, %d): %v; want the intact records before the damaged one", tc.from, tc.limit, err)
			continue
		}
		var got []uint64
		for _, r := range rs {
			got = append(got, r.Revision)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Read(%d, %d) revisions (-want +got):\n%s", tc.from, tc.limit, diff)
		}
	}
}

// testDamagedValue: keyspace values are derived or recomputable, so a
// damaged one is skipped by List and Get (as if absent), counted once, and
// a later put over it heals it; the records are untouched.
func testDamagedValue(t *testing.T, p Place) {
	s := p.Open(t, Options{})
	var b store.Batch
	b.Append([]byte("rec"))
	for _, k := range []string{"pod-a", "pod-b", "pod-c"} {
		b.Put(store.Nominations, []byte(k), []byte("node-of-"+k))
	}
	b.Put(store.Assumed, []byte("pod-b"), []byte("bind"))
	Commit(t, s, &b)
	closeStore(t, s)
	p.Damage.Value(t, store.Nominations, []byte("pod-b"))

	s = p.Open(t, Options{})
	defer closeStore(t, s)
	counter, ok := s.(damageCounter)
	if !ok {
		t.Fatalf("%T does not count damaged keyspace values (DamagedValues)", s)
	}
	if got := counter.DamagedValues(); got[store.Nominations] != 0 {
		t.Errorf("DamagedValues before any read = %v; want none", got)
	}
	want := map[string]string{"pod-a": "node-of-pod-a", "pod-c": "node-of-pod-c"}
	if diff := cmp.Diff(want, KVs(t, s, store.Nominations)); diff != "" {
		t.Errorf("List(nominations) over a damaged value (-want +got):\n%s", diff)
	}
	if v, ok, err := s.Get(store.Nominations, []byte("pod-b")); err != nil || ok {
		t.Errorf("Get(nominations, pod-b) = %q, %v, %v; want the damaged value skipped as absent", v, ok, err)
	}
	KVs(t, s, store.Nominations)
	if diff := cmp.Diff(map[store.Space]uint64{store.Nominations: 1}, counter.DamagedValues()); diff != "" {
		t.Errorf("DamagedValues after reading one damaged value three times (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"pod-b": "bind"}, KVs(t, s, store.Assumed)); diff != "" {
		t.Errorf("another keyspace's value under the same key (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Rec{{1, "rec"}}, ReadAll(t, s, 1)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	var heal store.Batch
	heal.Put(store.Nominations, []byte("pod-b"), []byte("node-2"))
	Commit(t, s, &heal)
	want["pod-b"] = "node-2"
	if diff := cmp.Diff(want, KVs(t, s, store.Nominations)); diff != "" {
		t.Errorf("List(nominations) after a put over the damaged value (-want +got):\n%s", diff)
	}
}
