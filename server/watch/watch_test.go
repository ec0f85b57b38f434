package watch

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// A revision beyond the end of the log, or another log's id, fails the
// watch at once: a watcher resuming against a new data directory would
// otherwise skip the decisions up to its old position.
func TestWatchAnotherLog(t *testing.T) {
	e := open(t, bboltstore.Options{}, Options{})
	if err := e.log.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.bindN(t, 0, 3)
	id := e.feed.ID()
	if id == "" || id != e.log.ID() {
		t.Fatalf("feed id %q, want the log's %q", id, e.log.ID())
	}
	other := open(t, bboltstore.Options{}, Options{})
	if err := other.log.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}

	noop := func(*berthv1.WatchResponse) error { return nil }
	var ahead *AheadError
	if err := e.feed.Watch(t.Context(), 5, "", Filter{}, noop); !errors.As(err, &ahead) || ahead.Next != 4 || ahead.Requested != 5 {
		t.Errorf("from 5 of 3: %v, want an AheadError with Next 4", err)
	}
	var mismatch *LogMismatchError
	if err := e.feed.Watch(t.Context(), 1, other.log.ID(), Filter{}, noop); !errors.As(err, &mismatch) || mismatch.Actual != id {
		t.Errorf("another log's id: %v, want a LogMismatchError", err)
	}
	// Its own id, and the next revision, are fine; every response
	// carries the id.
	c := newCollector()
	var ids []string
	watch(t, e.feed, 4, Filter{}, func(r *berthv1.WatchResponse) error {
		c.mu.Lock()
		ids = append(ids, r.GetLogId())
		c.mu.Unlock()
		return c.send(r)
	})
	c.waitNext(t, 4)
	e.bindN(t, 3, 4)
	c.waitNext(t, 5)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, got := range ids {
		if got != id {
			t.Errorf("response log id %q, want %q", got, id)
		}
	}
}

// A watch replays the log from its revision, then follows new decisions;
// from 0 it sees only decisions made after it started.
func TestWatchReplayThenLive(t *testing.T) {
	tests := []struct {
		name string
		from uint64
		want []*berthv1.Decision // after 3 decisions before and 2 after the watch starts
	}{
		{name: "from 1", from: 1, want: bindsOf(0, 5)},
		{name: "from 3", from: 3, want: bindsOf(2, 5)},
		{name: "from 0", from: 0, want: bindsOf(3, 5)},
		{name: "from the next revision", from: 4, want: bindsOf(3, 5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := open(t, bboltstore.Options{}, Options{})
			e.bindN(t, 0, 3)
			c := newCollector()
			watch(t, e.feed, tt.from, Filter{}, c.send)
			c.waitNext(t, max(tt.from, 4)) // established
			e.bindN(t, 3, 5)
			got := c.waitNext(t, 6)
			if diff := diffDecisions(tt.want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}

// Filters keep a profile's decisions and given types; the position still
// advances past what they drop.
func TestWatchFilter(t *testing.T) {
	e := open(t, bboltstore.Options{}, Options{})
	a, b := pod("a"), pod("b")
	b.SchedulerName = "other"
	for _, item := range []framework.PlanItem{
		&framework.Bind{Pod: a, Node: "n1"},
		&framework.Nomination{Pod: b, Node: "n2"},
		&framework.Bind{Pod: b, Node: "n2"},
		&framework.UnschedulableReport{Pod: a, Message: "0/1 nodes are available"},
	} {
		e.submit(t, item)
	}
	bindType := []berthv1.DecisionType{berthv1.DecisionType_DECISION_TYPE_BIND}
	tests := []struct {
		name   string
		filter Filter
		want   []uint64
	}{
		{name: "all", want: []uint64{1, 2, 3, 4}},
		{name: "profile", filter: Filter{SchedulerName: "other"}, want: []uint64{2, 3}},
		{name: "type", filter: Filter{Types: bindType}, want: []uint64{1, 3}},
		{name: "both", filter: Filter{SchedulerName: "default-scheduler", Types: bindType}, want: []uint64{1}},
		{name: "none", filter: Filter{SchedulerName: "nobody"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCollector()
			watch(t, e.feed, 1, tt.filter, c.send)
			var got []uint64
			for _, d := range c.waitNext(t, 5) {
				got = append(got, d.GetRevision())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("revisions %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("revisions %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// A stalled watcher holds up neither the writers nor another watcher, and
// once it moves again it catches up from the log, past the memory tail.
func TestStalledWatcher(t *testing.T) {
	e := open(t, bboltstore.Options{TailSize: 64}, Options{ReadChunk: 100})
	release := make(chan struct{})
	stalled := newCollector()
	first := true
	stall := func(r *berthv1.WatchResponse) error {
		if !first {
			select {
			case <-release:
			case <-t.Context().Done():
				return t.Context().Err()
			}
		}
		first = false
		return stalled.send(r)
	}
	watch(t, e.feed, 1, Filter{}, stall)
	stalled.waitNext(t, 1)

	live := newCollector()
	watch(t, e.feed, 1, Filter{}, live.send)
	const n = 1000
	e.bindN(t, 0, n) // returns although one watcher takes nothing
	if diff := diffDecisions(bindsOf(0, n), live.waitNext(t, n+1)); diff != "" {
		t.Fatalf("live watcher (-want +got):\n%s", diff)
	}
	close(release)
	if diff := diffDecisions(bindsOf(0, n), stalled.waitNext(t, n+1)); diff != "" {
		t.Errorf("stalled watcher after release (-want +got):\n%s", diff)
	}
}

// Watching from a compacted revision fails with the oldest kept; so does
// a watcher that fell behind compaction.
func TestWatchCompacted(t *testing.T) {
	e := open(t, bboltstore.Options{Retention: store.Retention{MaxRecords: 5}, CompactInterval: -1}, Options{})
	e.bindN(t, 0, 20)
	if _, err := e.st.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	err := e.feed.Watch(t.Context(), 3, "", Filter{}, func(*berthv1.WatchResponse) error { return nil })
	var ce *store.CompactedError
	if !errors.As(err, &ce) || ce.Oldest != 16 || ce.Requested != 3 {
		t.Fatalf("Watch from 3: %v, want a CompactedError with oldest 16", err)
	}

	// From the oldest kept revision it works.
	c := newCollector()
	watch(t, e.feed, 16, Filter{}, c.send)
	if got := c.waitNext(t, 21); len(got) != 5 {
		t.Errorf("from 16: %d decisions, want 5", len(got))
	}
}

// A failing send ends the watch with its error; a closing store ends it
// with store.ErrClosed.
func TestWatchEnds(t *testing.T) {
	e := open(t, bboltstore.Options{}, Options{})
	boom := errors.New("client gone")
	if err := e.feed.Watch(t.Context(), 0, "", Filter{}, func(*berthv1.WatchResponse) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Watch with a failing send: %v, want %v", err, boom)
	}
	c := newCollector()
	_, done := watch(t, e.feed, 0, Filter{}, c.send)
	c.waitNext(t, 1)
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, store.ErrClosed) {
		t.Errorf("Watch after close: %v, want store.ErrClosed", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := e.feed.Watch(ctx, 0, "", Filter{}, func(*berthv1.WatchResponse) error { return nil }); err == nil {
		t.Error("Watch with an ended context returned nil")
	}
}

// Watch responses stay under the byte bound, a decision larger than it
// goes alone, and nothing is lost or reordered.
func TestWatchResponseSize(t *testing.T) {
	const maxBytes = 4 << 10
	e := open(t, bboltstore.Options{}, Options{MaxResponseBytes: maxBytes})
	const n = 60
	for i := range n {
		size := 300
		if i == 40 {
			size = 10 << 10 // larger than a response may be
		}
		e.submit(t, &framework.UnschedulableReport{Pod: pod(name(i)), Message: strings.Repeat("x", size)})
	}
	var (
		mu    sync.Mutex
		sizes []int
		lens  []int
		revs  []uint64
		nexts []uint64
	)
	c := newCollector()
	watch(t, e.feed, 1, Filter{}, func(r *berthv1.WatchResponse) error {
		mu.Lock()
		sizes, lens, nexts = append(sizes, proto.Size(r)), append(lens, len(r.GetDecisions())), append(nexts, r.GetNextRevision())
		for _, d := range r.GetDecisions() {
			revs = append(revs, d.GetRevision())
		}
		mu.Unlock()
		return c.send(r)
	})
	c.waitNext(t, n+1)
	mu.Lock()
	defer mu.Unlock()
	for i := range revs {
		if revs[i] != uint64(i+1) {
			t.Fatalf("revisions %v, want 1..%d in order", revs, n)
		}
	}
	if len(revs) != n {
		t.Fatalf("%d decisions, want %d", len(revs), n)
	}
	for i, s := range sizes {
		if s > maxBytes && lens[i] != 1 {
			t.Errorf("response %d: %d bytes with %d decisions, over the bound of %d", i, s, lens[i], maxBytes)
		}
		if i > 0 && nexts[i] <= nexts[i-1] {
			t.Errorf("next_revision went from %d to %d", nexts[i-1], nexts[i])
		}
	}
	if len(sizes) < 5 {
		t.Errorf("%d responses for %d decisions of 300 bytes under a 4 KiB bound", len(sizes), n)
	}
}
