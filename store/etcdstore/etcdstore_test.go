package etcdstore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/etcdstore"
	"github.com/berthsched/berth/store/etcdstore/etcdtest"
	"github.com/berthsched/berth/store/storetest"
)

func open(t *testing.T, cli *clientv3.Client, opts etcdstore.Options) *etcdstore.Store {
	t.Helper()
	s, err := etcdstore.Open(context.Background(), cli, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSchemaVersionRefused(t *testing.T) {
	_, cli := etcdtest.New(t)
	ctx := context.Background()
	if _, err := cli.Put(ctx, "/other/meta/schema-version", "7"); err != nil {
		t.Fatal(err)
	}
	_, err := etcdstore.Open(ctx, cli, etcdstore.Options{Prefix: "/other/"})
	var sv *store.SchemaVersionError
	if !errors.As(err, &sv) || sv.Found != 7 || sv.Supported != 1 {
		t.Fatalf("Open over schema 7 = %v; want a SchemaVersionError naming 7 and 1", err)
	}
	want := `store: etcd key prefix "/other/" has schema version 7, newer than version 1 that this berthd supports`
	if err.Error() != want {
		t.Errorf("error = %q; want %q", err, want)
	}
}

func TestPrefixesAreApart(t *testing.T) {
	_, cli := etcdtest.New(t)
	a := open(t, cli, etcdstore.Options{Prefix: "/a/"})
	b := open(t, cli, etcdstore.Options{Prefix: "/ab/"})
	storetest.Commit(t, a, storetest.Batch("a1", "a2"))
	storetest.Commit(t, b, storetest.Batch("b1"))
	if diff := cmp.Diff([]storetest.Rec{{Revision: 1, Payload: "b1"}}, storetest.ReadAll(t, b, 0)); diff != "" {
		t.Errorf("prefix /ab/ log (-want +got):\n%s", diff)
	}
	if _, last := a.Revisions(); last != 2 {
		t.Errorf("prefix /a/ last revision %d; want 2", last)
	}
}

// TestBatchTooLarge: a batch that cannot fit in one transaction is
// refused, not split.
func TestBatchTooLarge(t *testing.T) {
	_, cli := etcdtest.New(t)
	s := open(t, cli, etcdstore.Options{Prefix: "/big/"})
	var many store.Batch
	for i := range 128 {
		many.Append([]byte{byte(i)})
	}
	_, err := s.Commit(context.Background(), &many)
	if !errors.Is(err, store.ErrInvalidBatch) || !strings.Contains(err.Error(), "need 129 operations") {
		t.Errorf("Commit(128 records) = %v; want ErrInvalidBatch naming 129 operations", err)
	}
	var big store.Batch
	big.Append(make([]byte, 2<<20))
	_, err = s.Commit(context.Background(), &big)
	if !errors.Is(err, store.ErrInvalidBatch) || !strings.Contains(err.Error(), "--max-request-bytes") {
		t.Errorf("Commit(2 MiB record) = %v; want ErrInvalidBatch naming the request limit", err)
	}
	if _, last := s.Revisions(); last != 0 {
		t.Errorf("last revision %d after refused batches; want 0", last)
	}
	// The largest batch that fits goes through.
	var fits store.Batch
	for i := range 127 {
		fits.Append([]byte{byte(i)})
	}
	if res, err := s.Commit(context.Background(), &fits); err != nil || res.Last != 127 {
		t.Errorf("Commit(127 records) = %+v, %v; want revisions 1-127", res, err)
	}
}

// TestGroupsBelowLimits: concurrent commits that together exceed a
// transaction's limits are split between transactions, batch by batch.
func TestGroupsBelowLimits(t *testing.T) {
	_, cli := etcdtest.New(t)
	s := open(t, cli, etcdstore.Options{Prefix: "/group/", MaxTxnOps: 8, MaxTxnBytes: 64 << 10})
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for range 10 {
				var b store.Batch
				b.Append(make([]byte, 10<<10))
				b.Append(make([]byte, 10<<10))
				b.Put(store.UserMeta, []byte{byte(w)}, []byte("v"))
				if _, err := s.Commit(context.Background(), &b); err != nil {
					t.Errorf("Commit: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if _, last := s.Revisions(); last != 320 {
		t.Errorf("last revision %d; want 320", last)
	}
	if n := len(storetest.ReadAll(t, s, 0)); n != 320 {
		t.Errorf("read %d records; want 320", n)
	}
}

// TestFollowerSeesCommits: a second store on the prefix (a follower) sees
// the first one's commits through its watch.
func TestFollowerSeesCommits(t *testing.T) {
	_, cli := etcdtest.New(t)
	leader := open(t, cli, etcdstore.Options{Prefix: "/f/"})
	storetest.Commit(t, leader, storetest.Batch("before"))
	follower := open(t, cli, etcdstore.Options{Prefix: "/f/"})
	if _, last := follower.Revisions(); last != 1 {
		t.Fatalf("follower opened at last revision %d; want 1", last)
	}
	storetest.Commit(t, leader, storetest.Batch("a", "b"))
	if err := follower.Wait(context.Background(), 2); err != nil {
		t.Fatalf("follower Wait(2): %v", err)
	}
	want := []storetest.Rec{{Revision: 1, Payload: "before"}, {Revision: 2, Payload: "a"}, {Revision: 3, Payload: "b"}}
	if diff := cmp.Diff(want, storetest.ReadAll(t, follower, 0)); diff != "" {
		t.Errorf("follower's log (-want +got):\n%s", diff)
	}
}

// TestCorruptRecord: a record whose checksum fails, changed under an open
// store, is refused naming its revision, after the intact one before it;
// a damaged keyspace value is skipped (storetest's DamagedRecord and
// DamagedValue hold the rest).
func TestCorruptRecord(t *testing.T) {
	_, cli := etcdtest.New(t)
	s := open(t, cli, etcdstore.Options{Prefix: "/c/"})
	storetest.Commit(t, s, storetest.Batch("good", "damaged"))
	var b store.Batch
	b.Put(store.Nominations, []byte("pod"), []byte("node"))
	storetest.Commit(t, s, &b)
	ctx := context.Background()
	key := "/c/log/00000000000000000002"
	resp, err := cli.Get(ctx, key)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("get %s: %v, %v", key, resp, err)
	}
	v := resp.Kvs[0].Value
	v[9] ^= 0xff
	if _, err := cli.Put(ctx, key, string(v)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]storetest.Rec{{Revision: 1, Payload: "good"}}, storetest.ReadAll(t, s, 1)); diff != "" {
		t.Errorf("Read(1) over a damaged record 2 (-want +got):\n%s", diff)
	}
	_, err = s.Read(ctx, 2, 0)
	var cr *store.CorruptRecordError
	if !errors.As(err, &cr) || cr.Revision != 2 || !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("Read(2) over a damaged record = %v; want a CorruptRecordError at revision 2", err)
	}
	if _, err := cli.Put(ctx, "/c/space/nominations/pod", "node\x00\x00\x00\x00"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Get(store.Nominations, []byte("pod")); ok || err != nil {
		t.Errorf("Get of a damaged value = %q, %v, %v; want it skipped as absent", v, ok, err)
	}
}
