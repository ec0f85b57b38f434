package leader

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/etcdstore"
	"github.com/berthsched/berth/store/etcdstore/etcdtest"
	"github.com/berthsched/berth/store/storetest"
)

// eventually polls cond (the election is asynchronous by nature) for up to
// ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestDeposedLeaderCannotAppend: once the leader's lease is revoked (as
// when it expires), its store refuses every commit with store.ErrFenced,
// the next leader's store appends after the last revision, and the old one
// still cannot.
func TestDeposedLeaderCannotAppend(t *testing.T) {
	_, cli := etcdtest.New(t)
	ctx := context.Background()
	const prefix = "/fence/"
	e1, _ := New(Options{Client: cli, Prefix: prefix, Address: "replica-1:7070", HTTPAddress: "replica-1:8080", TTL: time.Second})
	e2, _ := New(Options{Client: cli, Prefix: prefix, Address: "replica-2:7070", TTL: time.Second})
	watcher, _ := New(Options{Client: cli, Prefix: prefix, Address: "replica-3:7070"})
	obsCtx, stopObs := context.WithCancel(ctx)
	defer stopObs()
	go watcher.Observe(obsCtx)

	t1, err := e1.Campaign(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s1, err := etcdstore.Open(ctx, cli, etcdstore.Options{Prefix: prefix, Fence: t1.Fence(),
		Retention: store.Retention{MaxRecords: 1}, CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	storetest.Commit(t, s1, storetest.Batch("from-1"))
	eventually(t, "the observer to see replica-1 lead", func() bool { addr, _ := watcher.Leader(); return addr == "replica-1:7070" })
	if got := watcher.LeaderHTTP(); got != "replica-1:8080" {
		t.Errorf("observed leader's HTTP address %q; want replica-1:8080", got)
	}

	won := make(chan *Term, 1)
	go func() {
		t2, err := e2.Campaign(ctx)
		if err != nil {
			t.Error(err)
		}
		won <- t2
	}()
	if _, err := cli.Revoke(ctx, t1.session.Lease()); err != nil {
		t.Fatal(err)
	}
	<-t1.Done()
	_, err = s1.Commit(ctx, storetest.Batch("late-1"))
	if !errors.Is(err, store.ErrFenced) || !strings.Contains(err.Error(), "is gone (its lease expired or was revoked)") {
		t.Fatalf("deposed leader's commit = %v; want ErrFenced saying its key is gone", err)
	}
	t2 := <-won
	if t2.Number() <= t1.Number() {
		t.Errorf("term numbers %d then %d; want growing", t1.Number(), t2.Number())
	}
	s2, err := etcdstore.Open(ctx, cli, etcdstore.Options{Prefix: prefix, Fence: t2.Fence()})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if res := storetest.Commit(t, s2, storetest.Batch("from-2")); res.First != 2 {
		t.Errorf("new leader's first revision %d; want 2", res.First)
	}
	if _, err := s1.Commit(ctx, storetest.Batch("later-1")); !errors.Is(err, store.ErrFenced) {
		t.Errorf("deposed leader's commit after the new one's = %v; want ErrFenced", err)
	}
	if err := s1.Wait(ctx, 1); err != nil { // it sees revision 2 through its watch
		t.Fatal(err)
	}
	if n, err := s1.Compact(ctx); !errors.Is(err, store.ErrFenced) || n != 0 {
		t.Errorf("deposed leader's compaction = %d, %v; want 0, ErrFenced", n, err)
	}
	want := []storetest.Rec{{Revision: 1, Payload: "from-1"}, {Revision: 2, Payload: "from-2"}}
	if got := storetest.ReadAll(t, s2, 0); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("log = %v; want %v", got, want)
	}
	eventually(t, "the observer to see replica-2 lead", func() bool {
		addr, term := watcher.Leader()
		return addr == "replica-2:7070" && term == t2.Number()
	})
	if got := watcher.LeaderHTTP(); got != "" {
		t.Errorf("replica-2 advertised no HTTP address, observed %q", got)
	}
	if err := t2.Resign(ctx); err != nil {
		t.Errorf("Resign: %v", err)
	}
	eventually(t, "the observer to see no leader", func() bool { addr, _ := watcher.Leader(); return addr == "" })
}

// TestPausedLeaderIsFenced: a leader whose keep-alives stop (a paused
// process) loses its key after the TTL, and its commits fail.
func TestPausedLeaderIsFenced(t *testing.T) {
	_, cli := etcdtest.New(t)
	ctx := context.Background()
	e, _ := New(Options{Client: cli, Prefix: "/pause/", Address: "replica-1:7070", TTL: time.Second})
	term, err := e.Campaign(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := etcdstore.Open(ctx, cli, etcdstore.Options{Prefix: "/pause/", Fence: term.Fence()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.Commit(t, s, storetest.Batch("a"))
	term.session.Orphan() // keep-alives stop; the lease runs out
	eventually(t, "the lease to expire", func() bool {
		resp, err := cli.Get(ctx, term.Fence().Key)
		return err == nil && len(resp.Kvs) == 0
	})
	if _, err := s.Commit(ctx, storetest.Batch("b")); !errors.Is(err, store.ErrFenced) {
		t.Errorf("paused leader's commit = %v; want ErrFenced", err)
	}
}
