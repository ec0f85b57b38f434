package bboltstore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/store"
)

func TestCompact(t *testing.T) {
	// Each case commits records in phases, advancing the clock after each.
	type phase struct {
		records int
		advance time.Duration
	}
	tests := []struct {
		name        string
		retention   store.Retention
		phases      []phase
		wantRemoved int
		wantFirst   uint64
	}{
		{name: "zero keeps everything", phases: []phase{{10, time1h}}, wantFirst: 1},
		{name: "by count", retention: store.Retention{MaxRecords: 3}, phases: []phase{{10, 0}}, wantRemoved: 7, wantFirst: 8},
		{name: "count above size", retention: store.Retention{MaxRecords: 100}, phases: []phase{{10, 0}}, wantFirst: 1},
		{name: "count of one", retention: store.Retention{MaxRecords: 1}, phases: []phase{{10, 0}}, wantRemoved: 9, wantFirst: 10},
		{
			name:      "by age",
			retention: store.Retention{MaxAge: 5 * time.Minute},
			phases:    []phase{{5, 10 * time.Minute}, {3, time.Minute}},
			// The first five are 11m old, the next three 1m.
			wantRemoved: 5, wantFirst: 6,
		},
		{
			name:        "by age keeps the newest",
			retention:   store.Retention{MaxAge: time.Minute},
			phases:      []phase{{4, time1h}},
			wantRemoved: 3, wantFirst: 4,
		},
		{
			name:        "age and count: count wins",
			retention:   store.Retention{MaxRecords: 2, MaxAge: time1h},
			phases:      []phase{{6, time.Minute}},
			wantRemoved: 4, wantFirst: 5,
		},
		{
			name:        "age and count: age wins",
			retention:   store.Retention{MaxRecords: 5, MaxAge: 2 * time.Minute},
			phases:      []phase{{3, 3 * time.Minute}, {3, 0}},
			wantRemoved: 3, wantFirst: 4,
		},
		{
			name:        "more than one transaction",
			retention:   store.Retention{MaxRecords: 1},
			phases:      []phase{{compactChunk + 500, 0}},
			wantRemoved: compactChunk + 499, wantFirst: compactChunk + 500,
		},
	}
	for _, mode := range tailModes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				clock := newFakeClock()
				s := open(t, t.TempDir(), Options{Retention: tt.retention, TailSize: mode.size, Clock: clock.Now, CompactInterval: -1})
				var last uint64
				for i, ph := range tt.phases {
					var b store.Batch
					for j := range ph.records {
						b.Append(fmt.Appendf(nil, "p%d-%d", i, j))
					}
					last = commit(t, s, &b).Last
					clock.Advance(ph.advance)
				}
				want, err := s.Read(context.Background(), tt.wantFirst, 0)
				if err != nil {
					t.Fatal(err)
				}

				removed, err := s.Compact(context.Background())
				if err != nil {
					t.Fatalf("Compact = %v", err)
				}
				if removed != tt.wantRemoved {
					t.Errorf("Compact removed %d, want %d", removed, tt.wantRemoved)
				}
				if first, gotLast := s.Revisions(); first != tt.wantFirst || gotLast != last {
					t.Errorf("Revisions() = %d, %d, want %d, %d", first, gotLast, tt.wantFirst, last)
				}
				got, err := s.Read(context.Background(), tt.wantFirst, 0)
				if err != nil {
					t.Fatalf("Read(%d) = %v", tt.wantFirst, err)
				}
				if diff := cmp.Diff(recs(want), recs(got)); diff != "" {
					t.Errorf("records left (-want +got):\n%s", diff)
				}
				for _, from := range []uint64{0, tt.wantFirst - 1} {
					if tt.wantFirst == 1 {
						break
					}
					_, err := s.Read(context.Background(), from, 1)
					var ce *store.CompactedError
					if !errors.As(err, &ce) || !errors.Is(err, store.ErrCompacted) {
						t.Fatalf("Read(%d) = %v, want CompactedError", from, err)
					}
					want := store.CompactedError{Requested: max(from, 1), Oldest: tt.wantFirst}
					if diff := cmp.Diff(want, *ce); diff != "" {
						t.Errorf("Read(%d) CompactedError (-want +got):\n%s", from, diff)
					}
				}
				if removed, err := s.Compact(context.Background()); removed != 0 || err != nil {
					t.Errorf("second Compact = %d, %v, want 0, nil", removed, err)
				}
			})
		}
	}
}

func TestCompactReadFromDiskBelowTail(t *testing.T) {
	// With the tail holding only the newest records, a read that starts
	// below the tail is checked against the log's first key.
	s := open(t, t.TempDir(), Options{Retention: store.Retention{MaxRecords: 5}, TailSize: 2, CompactInterval: -1})
	for i := range 10 {
		commit(t, s, batch(fmt.Sprint(i)))
	}
	if _, err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, 6); len(got) != 5 || got[0].Rev != 6 {
		t.Errorf("Read(6) = %v, want revisions 6..10", got)
	}
	var ce *store.CompactedError
	if _, err := s.Read(context.Background(), 5, 0); !errors.As(err, &ce) || ce.Oldest != 6 {
		t.Errorf("Read(5) = %v, want CompactedError with Oldest 6", err)
	}
}

func TestCompactContext(t *testing.T) {
	s := open(t, t.TempDir(), Options{Retention: store.Retention{MaxRecords: 1}, CompactInterval: -1})
	commit(t, s, batch("a", "b"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Compact(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Compact(cancelled) = %v, want context.Canceled", err)
	}
	if first, _ := s.Revisions(); first != 1 {
		t.Errorf("first = %d after a cancelled compaction, want 1", first)
	}
}

func TestCompactInBackground(t *testing.T) {
	s := open(t, t.TempDir(), Options{Retention: store.Retention{MaxRecords: 2}, CompactInterval: ms})
	commit(t, s, batch("a", "b", "c", "d"))
	// Wait for the loop, bounded by the test's own deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if first, _ := s.Revisions(); first == 3 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("background compaction did not run")
		}
		runtime.Gosched()
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
}
