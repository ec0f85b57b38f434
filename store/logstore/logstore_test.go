package logstore

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/checksum"
)

func records(from, to uint64) []store.Record {
	var out []store.Record
	for r := from; r <= to; r++ {
		out = append(out, store.Record{Revision: r, Payload: []byte(strconv.FormatUint(r, 10))})
	}
	return out
}

func revisionsOf(rs []store.Record) []uint64 {
	var out []uint64
	for _, r := range rs {
		out = append(out, r.Revision)
	}
	return out
}

// TestRead: the tail serves what it holds, the backend the rest, and a
// damaged record stops a read short of it.
func TestRead(t *testing.T) {
	const damaged = 4
	// Revisions 2-10, 8-10 in the tail; the backend's medium has 4 damaged.
	older := func(_ context.Context, from, n uint64) ([]store.Record, error) {
		var out []store.Record
		for r := from; r < from+n; r++ {
			if r == damaged {
				return out, &store.CorruptRecordError{Revision: r, Reason: "test"}
			}
			out = append(out, records(r, r)...)
		}
		return out, nil
	}
	revs := NewRevisions(2, 10, records(8, 10), 4)
	tests := []struct {
		name    string
		from    uint64
		limit   int
		want    []uint64
		wantErr error
	}{
		{name: "from the tail", from: 9, want: []uint64{9, 10}},
		{name: "from the backend", from: 5, limit: 2, want: []uint64{5, 6}},
		{name: "up to the damaged record", from: 2, want: []uint64{2, 3}},
		{name: "0 reads as 1, compacted", from: 0, wantErr: store.ErrCompacted},
		{name: "the damaged record", from: damaged, wantErr: store.ErrCorrupt},
		{name: "past the end", from: 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := revs.Read(context.Background(), tt.from, tt.limit, older)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Read(%d, %d) error = %v, want %v", tt.from, tt.limit, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, revisionsOf(got)); diff != "" {
				t.Errorf("Read(%d, %d) (-want +got):\n%s", tt.from, tt.limit, diff)
			}
		})
	}
}

// TestPublishAndAdvance: the tail keeps at most twice its size, ends at
// the newest revision and loses what compaction removed; Wait wakes on a
// new revision and on Shut.
func TestPublishAndAdvance(t *testing.T) {
	revs := NewRevisions(1, 0, nil, 2)
	woken := make(chan error, 1)
	go func() { woken <- revs.Wait(context.Background(), 0) }()
	revs.Publish(records(1, 3))
	if err := <-woken; err != nil {
		t.Fatalf("Wait(0) after a publish = %v", err)
	}
	revs.Publish(records(4, 5))
	if diff := cmp.Diff([]uint64{4, 5}, revisionsOf(revs.tail)); diff != "" {
		t.Errorf("tail after 5 records with room for 2 (-want +got):\n%s", diff)
	}
	revs.Advance(5, 0)
	if first, last := revs.Get(); first != 5 || last != 5 || len(revs.tail) != 1 {
		t.Errorf("after compaction to 5: Get() = %d, %d, tail %v; want 5, 5 and one record", first, last, revisionsOf(revs.tail))
	}
	revs.Advance(9, 0) // never past last+1
	if first, _ := revs.Get(); first != 6 {
		t.Errorf("first = %d after advancing past the end; want 6", first)
	}
	revs.Shut()
	if err := revs.Wait(context.Background(), 7); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Wait after Shut = %v; want ErrClosed", err)
	}
}

// TestValues: a damaged value is skipped and counted once per key.
func TestValues(t *testing.T) {
	vs := NewValues(slog.New(slog.DiscardHandler))
	good := checksum.SealValue(store.Assumed, []byte("a"), []byte("bind"))
	if v, ok := vs.Open(store.Assumed, []byte("a"), good); !ok || string(v) != "bind" {
		t.Errorf("Open(intact) = %q, %v", v, ok)
	}
	for range 3 {
		if _, ok := vs.Open(store.Assumed, []byte("b"), good); ok { // a's value under b
			t.Error("Open(a value moved to another key) succeeded")
		}
	}
	vs.Open(store.Claims, []byte("c"), []byte("xy"))
	if diff := cmp.Diff(map[store.Space]uint64{store.Assumed: 1, store.Claims: 1}, vs.Damaged()); diff != "" {
		t.Errorf("Damaged (-want +got):\n%s", diff)
	}
}

// TestClock: stamps never go back and carry no monotonic reading.
func TestClock(t *testing.T) {
	now := time.Unix(100, 5)
	c := NewClock(func() time.Time { return now }, time.Unix(200, 0))
	if got := c.Stamp(); !got.Equal(time.Unix(200, 0)) {
		t.Errorf("Stamp with the clock behind the newest record = %v; want the record's time", got)
	}
	now = time.Now()
	got := c.Stamp()
	if got != time.Unix(0, now.UnixNano()) {
		t.Errorf("Stamp = %#v; want %v as decoded from Unix nanoseconds", got, now)
	}
}

// TestIntakeClose: Close refuses new commits, waits for background work
// and reports a second call.
func TestIntakeClose(t *testing.T) {
	in := NewIntake[*Call]("test", 1)
	ran := make(chan struct{})
	in.Go(func() { <-in.Stopping(); close(ran) })
	if !in.Close() {
		t.Fatal("first Close = false")
	}
	select {
	case <-ran:
	default:
		t.Error("Close returned before the background work")
	}
	if in.Close() {
		t.Error("second Close = true")
	}
	var c Call
	c.Init(context.Background(), 1)
	if err := in.HandOver(context.Background(), &c); !errors.Is(err, store.ErrClosed) {
		t.Errorf("HandOver after Close = %v; want ErrClosed", err)
	}
	if _, err := in.Compact(store.Retention{MaxRecords: 1}, func() (int, error) { return 1, nil }); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Compact after Close = %v; want ErrClosed", err)
	}
}
