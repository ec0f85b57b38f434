// Package storetest is the contract every store.Store backend is held to:
// Run's subtests commit, read, wait, reopen, compact and read damaged data
// through the interface alone (and the Place's Damage), so bboltstore and
// etcdstore pass the same ones. A
// backend's own tests call Run with a Backend that opens it.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/store"
)

// Options are what the suite varies between opens.
type Options struct {
	// Retention is the compaction policy. Backends must not compact in
	// the background: the suite calls Compact.
	Retention store.Retention
	// Clock stamps records; nil means time.Now.
	Clock func() time.Time
}

// Opener opens the store of one test; every call opens the same data, and
// the suite closes a store before it opens the next.
type Opener func(t *testing.T, o Options) store.Store

// Place is one test's place for a store (a directory, a key prefix): how
// to open it, and how to damage what it stored.
type Place struct {
	Open   Opener
	Damage Damage
}

// Backend makes a new, empty place for a store.
type Backend func(t *testing.T) Place

// Run runs the contract's subtests against b.
func Run(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"CommitAndRead", testCommitAndRead},
		{"ReadRange", testReadRange},
		{"Keyspaces", testKeyspaces},
		{"OpsApplyInOrder", testOpsApplyInOrder},
		{"InvalidBatchAppliesNothing", testInvalidBatch},
		{"CommitDoesNotKeepCallerSlices", testCallerSlices},
		{"ConcurrentCommitsDoNotInterleave", testConcurrentCommits},
		{"Wait", testWait},
		{"Reopen", testReopen},
		{"CompactMaxRecords", testCompactMaxRecords},
		{"CompactMaxAge", testCompactMaxAge},
		{"RecordTimes", testRecordTimes},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b(t).Open) })
	}
	damaged := []struct {
		name string
		fn   func(t *testing.T, p Place)
	}{
		{"DamagedRecord", testDamagedRecord},
		{"DamagedValue", testDamagedValue},
	}
	for _, tc := range damaged {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b(t)) })
	}
}

// Rec is a record as the suite compares it.
type Rec struct {
	Revision uint64
	Payload  string
}

// Batch returns a batch appending the payloads.
func Batch(payloads ...string) *store.Batch {
	var b store.Batch
	for _, p := range payloads {
		b.Append([]byte(p))
	}
	return &b
}

// Commit commits b, failing the test on an error.
func Commit(t testing.TB, s store.Store, b *store.Batch) store.CommitResult {
	t.Helper()
	res, err := s.Commit(context.Background(), b)
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return res
}

// ReadAll reads every record from `from` on.
func ReadAll(t testing.TB, s store.Store, from uint64) []Rec {
	t.Helper()
	rs, err := s.Read(context.Background(), from, 0)
	if err != nil {
		t.Fatalf("Read(%d): %v", from, err)
	}
	return recs(rs)
}

func recs(rs []store.Record) []Rec {
	out := make([]Rec, 0, len(rs))
	for _, r := range rs {
		out = append(out, Rec{r.Revision, string(r.Payload)})
	}
	return out
}

// KVs lists a keyspace as a map.
func KVs(t testing.TB, s store.Store, sp store.Space) map[string]string {
	t.Helper()
	list, err := s.List(sp)
	if err != nil {
		t.Fatalf("List(%s): %v", sp, err)
	}
	out := make(map[string]string, len(list))
	for _, kv := range list {
		out[string(kv.Key)] = string(kv.Value)
	}
	return out
}

func closeStore(t testing.TB, s store.Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func testCommitAndRead(t *testing.T, open Opener) {
	s := open(t, Options{})
	defer closeStore(t, s)
	if first, last := s.Revisions(); first != 1 || last != 0 {
		t.Fatalf("new store: Revisions() = %d, %d; want 1, 0", first, last)
	}
	res := Commit(t, s, Batch("a", "b"))
	if res.First != 1 || res.Last != 2 || res.Revision(1) != 2 {
		t.Errorf("first commit = %+v; want revisions 1-2", res)
	}
	if res := Commit(t, s, &store.Batch{Ops: []store.Op{{Space: store.UserMeta, Key: []byte("k"), Value: []byte("v")}}}); res.First != 0 || res.Last != 0 {
		t.Errorf("commit without records = %+v; want zero revisions", res)
	}
	if res := Commit(t, s, Batch("c")); res.First != 3 || res.Last != 3 {
		t.Errorf("third commit = %+v; want revision 3", res)
	}
	want := []Rec{{1, "a"}, {2, "b"}, {3, "c"}}
	if diff := cmp.Diff(want, ReadAll(t, s, 0)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if first, last := s.Revisions(); first != 1 || last != 3 {
		t.Errorf("Revisions() = %d, %d; want 1, 3", first, last)
	}
	if res, err := s.Commit(context.Background(), &store.Batch{}); err != nil || res != (store.CommitResult{}) {
		t.Errorf("empty commit = %+v, %v; want zero, nil", res, err)
	}
}

func testReadRange(t *testing.T, open Opener) {
	s := open(t, Options{})
	defer closeStore(t, s)
	for i := range 10 {
		Commit(t, s, Batch(strconv.Itoa(i+1)))
	}
	tests := []struct {
		from  uint64
		limit int
		want  []uint64
	}{
		{0, 0, seq(1, 10)},
		{1, 3, seq(1, 3)},
		{4, 0, seq(4, 10)},
		{9, 5, seq(9, 10)},
		{10, 1, seq(10, 10)},
		{11, 0, nil},
		{100, 2, nil},
	}
	for _, tc := range tests {
		rs, err := s.Read(context.Background(), tc.from, tc.limit)
		if err != nil {
			t.Fatalf("Read(%d, %d): %v", tc.from, tc.limit, err)
		}
		var got []uint64
		for _, r := range rs {
			if string(r.Payload) != strconv.FormatUint(r.Revision, 10) {
				t.Errorf("Read(%d, %d): revision %d has payload %q", tc.from, tc.limit, r.Revision, r.Payload)
			}
			got = append(got, r.Revision)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Read(%d, %d) revisions (-want +got):\n%s", tc.from, tc.limit, diff)
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

func testKeyspaces(t *testing.T, open Opener) {
	s := open(t, Options{})
	defer closeStore(t, s)
	var b store.Batch
	b.Append([]byte("rec"))
	b.Put(store.Nominations, []byte("pod-b"), []byte("node-2"))
	b.Put(store.Nominations, []byte("pod-a"), []byte("node-1"))
	b.Put(store.Assumed, []byte("pod-a"), []byte("bind"))
	b.Put(store.UserMeta, []byte("empty"), nil)
	Commit(t, s, &b)
	want := map[string]string{"pod-a": "node-1", "pod-b": "node-2"}
	if diff := cmp.Diff(want, KVs(t, s, store.Nominations)); diff != "" {
		t.Errorf("nominations (-want +got):\n%s", diff)
	}
	list, err := s.List(store.Nominations)
	if err != nil || len(list) != 2 || string(list[0].Key) != "pod-a" {
		t.Errorf("List(nominations) = %q, %v; want pod-a first", list, err)
	}
	v, ok, err := s.Get(store.Assumed, []byte("pod-a"))
	if err != nil || !ok || string(v) != "bind" {
		t.Errorf("Get(assumed, pod-a) = %q, %v, %v; want bind", v, ok, err)
	}
	if v, ok, err := s.Get(store.UserMeta, []byte("empty")); err != nil || !ok || len(v) != 0 {
		t.Errorf("Get(meta-user, empty) = %q, %v, %v; want an empty value", v, ok, err)
	}
	if _, ok, err := s.Get(store.Assumed, []byte("pod-b")); err != nil || ok {
		t.Errorf("Get(assumed, pod-b) found %v, %v; want none", ok, err)
	}
	var del store.Batch
	del.Delete(store.Nominations, []byte("pod-a"))
	del.Delete(store.Nominations, []byte("never-there"))
	Commit(t, s, &del)
	if diff := cmp.Diff(map[string]string{"pod-b": "node-2"}, KVs(t, s, store.Nominations)); diff != "" {
		t.Errorf("nominations after delete (-want +got):\n%s", diff)
	}
	for _, sp := range store.Spaces() {
		if _, err := s.List(sp); err != nil {
			t.Errorf("List(%s): %v", sp, err)
		}
	}
	if _, _, err := s.Get("nope", []byte("k")); !errors.Is(err, store.ErrUnknownSpace) {
		t.Errorf("Get(unknown space) = %v; want ErrUnknownSpace", err)
	}
	if _, err := s.List("nope"); !errors.Is(err, store.ErrUnknownSpace) {
		t.Errorf("List(unknown space) = %v; want ErrUnknownSpace", err)
	}
}

// testOpsApplyInOrder: within a batch, and across batches committed
// together, the last operation on a key wins.
func testOpsApplyInOrder(t *testing.T, open Opener) {
	s := open(t, Options{})
	defer closeStore(t, s)
	var b store.Batch
	b.Put(store.Assumed, []byte("put-put"), []byte("1"))
	b.Put(store.Assumed, []byte("put-put"), []byte("2"))
	b.Put(store.Assumed, []byte("put-del"), []byte("1"))
	b.Delete(store.Assumed, []byte("put-del"))
	b.Delete(store.Assumed, []byte("del-put"))
	b.Put(store.Assumed, []byte("del-put"), []byte("3"))
	Commit(t, s, &b)
	want := map[string]string{"put-put": "2", "del-put": "3"}
	if diff := cmp.Diff(want, KVs(t, s, store.Assumed)); diff != "" {
		t.Errorf("assumed (-want +got):\n%s", diff)
	}
	// Many concurrent batches on one key: the value is the last committed.
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			var b store.Batch
			b.Append([]byte(strconv.Itoa(i)))
			b.Put(store.Pressure, []byte("shared"), []byte(strconv.Itoa(i)))
			if _, err := s.Commit(context.Background(), &b); err != nil {
				t.Errorf("Commit: %v", err)
			}
		})
	}
	wg.Wait()
	log := ReadAll(t, s, 0)
	if got, want := KVs(t, s, store.Pressure)["shared"], log[len(log)-1].Payload; got != want {
		t.Errorf("shared key = %q; want the last committed batch's %q", got, want)
	}
}

func testInvalidBatch(t *testing.T, open Opener) {
	s := open(t, Options{})
	defer closeStore(t, s)
	var b store.Batch
	b.Append([]byte("x"))
	b.Put(store.Nominations, []byte("ok"), []byte("v"))
	b.Put(store.Nominations, nil, []byte("v"))
	if _, err := s.Commit(context.Background(), &b); !errors.Is(err, store.ErrInvalidBatch) {
		t.Fatalf("Commit(empty key) = %v; want ErrInvalidBatch", err)
	}
	if _, last := s.Revisions(); last != 0 {
		t.Errorf("last revision %d after a refused batch; want 0", last)
	}
	if got := KVs(t, s, store.Nominations); len(got) != 0 {
		t.Errorf("nominations after a refused batch = %v; want none", got)
	}
}

func testCallerSlices(t *testing.T, open Opener) {
	s := open(t, Options{})
	defer closeStore(t, s)
	p, k, v := []byte("payload"), []byte("key"), []byte("value")
	var b store.Batch
	b.Append(p)
	b.Put(store.UserMeta, k, v)
	Commit(t, s, &b)
	copy(p, "XXXXXXX")
	copy(k, "XXX")
	copy(v, "XXXXX")
	if got := ReadAll(t, s, 1); got[0].Payload != "payload" {
		t.Errorf("payload = %q after the caller reused its slice", got[0].Payload)
	}
	if got := KVs(t, s, store.UserMeta); got["key"] != "value" {
		t.Errorf("meta-user = %v after the caller reused its slices", got)
	}
}

func testConcurrentCommits(t *testing.T, open Opener) {
	s := open(t, Options{})
	defer closeStore(t, s)
	const writers, commits = 8, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for c := range commits {
				n := 1 + (w+c)%3
				var b store.Batch
				for i := range n {
					b.Append(fmt.Appendf(nil, "%d/%d/%d/%d", w, c, i, n))
				}
				res, err := s.Commit(context.Background(), &b)
				if err != nil {
					t.Errorf("Commit: %v", err)
					return
				}
				if res.Last-res.First+1 != uint64(n) {
					t.Errorf("batch of %d got revisions %d-%d", n, res.First, res.Last)
				}
			}
		})
	}
	wg.Wait()
	log := ReadAll(t, s, 0)
	for i := 0; i < len(log); {
		if log[i].Revision != uint64(i+1) {
			t.Fatalf("record %d has revision %d", i, log[i].Revision)
		}
		var w, c, k, n int
		if _, err := fmt.Sscanf(log[i].Payload, "%d/%d/%d/%d", &w, &c, &k, &n); err != nil || k != 0 {
			t.Fatalf("revision %d starts %q, not a batch's first record", log[i].Revision, log[i].Payload)
		}
		for j := range n {
			if want := fmt.Sprintf("%d/%d/%d/%d", w, c, j, n); log[i+j].Payload != want {
				t.Fatalf("revision %d = %q; want %q: batches interleaved", log[i+j].Revision, log[i+j].Payload, want)
			}
		}
		i += n
	}
}

func testWait(t *testing.T, open Opener) {
	s := open(t, Options{})
	defer closeStore(t, s)
	done := make(chan error, 1)
	go func() { done <- s.Wait(context.Background(), 0) }()
	Commit(t, s, Batch("a"))
	if err := <-done; err != nil {
		t.Errorf("Wait(0) = %v after a commit", err)
	}
	if err := s.Wait(context.Background(), 0); err != nil {
		t.Errorf("Wait(0) with revision 1 written = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Wait(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait(1) with a cancelled context = %v; want context.Canceled", err)
	}
}

func testReopen(t *testing.T, open Opener) {
	ret := store.Retention{MaxRecords: 1}
	s := open(t, Options{Retention: ret})
	Commit(t, s, Batch("a", "b", "c"))
	var b store.Batch
	b.Put(store.Evictions, []byte("pod"), []byte("evict"))
	Commit(t, s, &b)
	if n, err := s.Compact(context.Background()); err != nil || n != 2 {
		t.Fatalf("Compact = %d, %v; want 2 removed", n, err)
	}
	closeStore(t, s)

	s = open(t, Options{Retention: ret})
	defer closeStore(t, s)
	if first, last := s.Revisions(); first != 3 || last != 3 {
		t.Errorf("reopened: Revisions() = %d, %d; want 3, 3", first, last)
	}
	if res := Commit(t, s, Batch("d")); res.First != 4 {
		t.Errorf("commit after reopen got revision %d; want 4", res.First)
	}
	if diff := cmp.Diff([]Rec{{3, "c"}, {4, "d"}}, ReadAll(t, s, 3)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"pod": "evict"}, KVs(t, s, store.Evictions)); diff != "" {
		t.Errorf("evictions (-want +got):\n%s", diff)
	}
}

func testCompactMaxRecords(t *testing.T, open Opener) {
	s := open(t, Options{Retention: store.Retention{MaxRecords: 3}})
	defer closeStore(t, s)
	for i := range 10 {
		Commit(t, s, Batch(strconv.Itoa(i+1)))
	}
	n, err := s.Compact(context.Background())
	if err != nil || n != 7 {
		t.Fatalf("Compact = %d, %v; want 7 removed", n, err)
	}
	if first, last := s.Revisions(); first != 8 || last != 10 {
		t.Errorf("Revisions() = %d, %d; want 8, 10", first, last)
	}
	_, err = s.Read(context.Background(), 2, 0)
	var compacted *store.CompactedError
	if !errors.As(err, &compacted) || compacted.Oldest != 8 || compacted.Requested != 2 {
		t.Errorf("Read(2) = %v; want a CompactedError with Oldest 8", err)
	}
	if diff := cmp.Diff([]Rec{{8, "8"}, {9, "9"}, {10, "10"}}, ReadAll(t, s, 8)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if n, err := s.Compact(context.Background()); err != nil || n != 0 {
		t.Errorf("second Compact = %d, %v; want 0", n, err)
	}
}

func testCompactMaxAge(t *testing.T, open Opener) {
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	s := open(t, Options{Retention: store.Retention{MaxAge: time.Hour}, Clock: clock.Now})
	defer closeStore(t, s)
	Commit(t, s, Batch("old-1", "old-2"))
	clock.Advance(30 * time.Minute)
	Commit(t, s, Batch("young"))
	clock.Advance(40 * time.Minute)
	if n, err := s.Compact(context.Background()); err != nil || n != 2 {
		t.Fatalf("Compact = %d, %v; want the 2 records older than an hour removed", n, err)
	}
	clock.Advance(time.Hour)
	if n, err := s.Compact(context.Background()); err != nil || n != 0 {
		t.Errorf("Compact = %d, %v; want 0: the newest record stays", n, err)
	}
	if diff := cmp.Diff([]Rec{{3, "young"}}, ReadAll(t, s, 3)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

func testRecordTimes(t *testing.T, open Opener) {
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	s := open(t, Options{Clock: clock.Now})
	defer closeStore(t, s)
	res := Commit(t, s, Batch("a"))
	clock.Advance(-time.Minute) // the clock steps back
	res2 := Commit(t, s, Batch("b"))
	rs, err := s.Read(context.Background(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !rs[0].Time.Equal(clock.start()) || !res.Time.Equal(rs[0].Time) {
		t.Errorf("record 1 time %v, commit time %v; want %v", rs[0].Time, res.Time, clock.start())
	}
	if rs[1].Time.Before(rs[0].Time) || !res2.Time.Equal(rs[1].Time) {
		t.Errorf("record 2 time %v (commit said %v) before record 1's %v: times went back", rs[1].Time, res2.Time, rs[0].Time)
	}
}

func testClosed(t *testing.T, open Opener) {
	s := open(t, Options{})
	Commit(t, s, Batch("a"))
	closeStore(t, s)
	ctx := context.Background()
	if _, err := s.Commit(ctx, Batch("b")); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Commit after Close = %v; want ErrClosed", err)
	}
	if _, err := s.Read(ctx, 1, 0); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Read after Close = %v; want ErrClosed", err)
	}
	if _, _, err := s.Get(store.UserMeta, []byte("k")); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Get after Close = %v; want ErrClosed", err)
	}
	if _, err := s.List(store.UserMeta); !errors.Is(err, store.ErrClosed) {
		t.Errorf("List after Close = %v; want ErrClosed", err)
	}
	if err := s.Wait(ctx, 5); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Wait after Close = %v; want ErrClosed", err)
	}
	if err := s.Close(); !errors.Is(err, store.ErrClosed) {
		t.Errorf("second Close = %v; want ErrClosed", err)
	}
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	moved time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) start() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now.Add(-c.moved)
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.moved += d
}
