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
		{name: "from a future revision", from: 5, want: bindsOf(4, 5)},
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
	err := l.Watch(t.Context(), 3, Filter{}, func(*berthv1.WatchResponse) error { return nil })
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
	if err := l.Watch(t.Context(), 0, Filter{}, func(*berthv1.WatchResponse) error { return boom }); !errors.Is(err, boom) {
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
	if err := l.Watch(ctx, 0, Filter{}, func(*berthv1.WatchResponse) error { return nil }); err == nil {
		t.Error("Watch with an ended context returned nil")
	}
}
