package decisionlog

import (
	"context"
	"errors"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

func bindN(t *testing.T, l *Log, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if err := l.Bind(t.Context(), pod(name(i)), "n1"); err != nil {
			t.Fatal(err)
		}
	}
}

func bindsOf(from, to int) []*berthv1.Decision {
	var out []*berthv1.Decision
	for i := from; i < to; i++ {
		out = append(out, bindOf(uint64(i+1), name(i), "n1"))
	}
	return out
}

// A revision beyond the end of the log, or another log's id, fails the
// watch at once: a watcher resuming against a new data directory would
// otherwise skip the decisions up to its old position.
func TestWatchAnotherLog(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	if err := l.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	bindN(t, l, 0, 3)
	id := l.ID()
	if len(id) != 32 {
		t.Fatalf("log id %q, want 32 hex digits", id)
	}
	// The id is kept with the data: a new Log over the store has the same.
	l2 := New(st, Options{})
	t.Cleanup(func() { _ = l2.Close() })
	if err := l2.Recover(t.Context()); err != nil || l2.ID() != id {
		t.Fatalf("id after reopening: %q (%v), want %q", l2.ID(), err, id)
	}
	// A log of another data directory has another id.
	other, _ := newLog(t, bboltstore.Options{})
	if err := other.Recover(t.Context()); err != nil || other.ID() == id || other.ID() == "" {
		t.Fatalf("another log's id %q (%v); this one's %q", other.ID(), err, id)
	}

	noop := func(*berthv1.WatchResponse) error { return nil }
	var ahead *AheadError
	if err := l.Watch(t.Context(), 5, "", Filter{}, noop); !errors.As(err, &ahead) || ahead.Next != 4 || ahead.Requested != 5 {
		t.Errorf("from 5 of 3: %v, want an AheadError with Next 4", err)
	}
	var mismatch *LogMismatchError
	if err := l.Watch(t.Context(), 1, other.ID(), Filter{}, noop); !errors.As(err, &mismatch) || mismatch.Actual != id {
		t.Errorf("another log's id: %v, want a LogMismatchError", err)
	}
	// Its own id, and the next revision, are fine; every response
	// carries the id.
	c := newCollector()
	var ids []string
	watch(t, l, 4, Filter{}, func(r *berthv1.WatchResponse) error {
		c.mu.Lock()
		ids = append(ids, r.GetLogId())
		c.mu.Unlock()
		return c.send(r)
	})
	c.waitNext(t, 4)
	bindN(t, l, 3, 4)
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
			l, _ := newLog(t, bboltstore.Options{})
			bindN(t, l, 0, 3)
			c := newCollector()
			watch(t, l, tt.from, Filter{}, c.send)
			c.waitNext(t, max(tt.from, 4)) // established
			bindN(t, l, 3, 5)
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
	l, _ := newLog(t, bboltstore.Options{})
	ctx := t.Context()
	a, b := pod("a"), pod("b")
	b.SchedulerName = "other"
	for _, err := range []error{
		l.Bind(ctx, a, "n1"),
		l.Nominate(ctx, b, "n2"),
		l.Bind(ctx, b, "n2"),
		l.Unschedulable(ctx, a, "0/1 nodes are available", nil),
	} {
		if err != nil {
			t.Fatal(err)
		}
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
			watch(t, l, 1, tt.filter, c.send)
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
	l, _ := newLog(t, bboltstore.Options{TailSize: 64})
	l.opts.ReadChunk = 100
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
	watch(t, l, 1, Filter{}, stall)
	stalled.waitNext(t, 1)

	live := newCollector()
	watch(t, l, 1, Filter{}, live.send)
	const n = 1000
	bindN(t, l, 0, n) // returns although one watcher takes nothing
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
	l, st := newLog(t, bboltstore.Options{Retention: store.Retention{MaxRecords: 5}, CompactInterval: -1})
	bindN(t, l, 0, 20)
	if _, err := st.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	err := l.Watch(t.Context(), 3, "", Filter{}, func(*berthv1.WatchResponse) error { return nil })
	var ce *store.CompactedError
	if !errors.As(err, &ce) || ce.Oldest != 16 || ce.Requested != 3 {
		t.Fatalf("Watch from 3: %v, want a CompactedError with oldest 16", err)
	}

	// From the oldest kept revision it works.
	c := newCollector()
	watch(t, l, 16, Filter{}, c.send)
	if got := c.waitNext(t, 21); len(got) != 5 {
		t.Errorf("from 16: %d decisions, want 5", len(got))
	}
}

// A failing send ends the watch with its error; a closing store ends it
// with store.ErrClosed.
func TestWatchEnds(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	boom := errors.New("client gone")
	if err := l.Watch(t.Context(), 0, "", Filter{}, func(*berthv1.WatchResponse) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Watch with a failing send: %v, want %v", err, boom)
	}
	c := newCollector()
	_, done := watch(t, l, 0, Filter{}, c.send)
	c.waitNext(t, 1)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, store.ErrClosed) {
		t.Errorf("Watch after close: %v, want store.ErrClosed", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.Watch(ctx, 0, "", Filter{}, func(*berthv1.WatchResponse) error { return nil }); err == nil {
		t.Error("Watch with an ended context returned nil")
	}
}
