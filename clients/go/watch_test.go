package berth

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// collect returns a handler that sends each revision to a channel, and
// cancels ctx once it has seen the revision stopAt.
func collect(cancel context.CancelFunc, stopAt uint64) (Handler, <-chan uint64) {
	ch := make(chan uint64, 100)
	return func(_ context.Context, d *berthv1.Decision) error {
		ch <- d.GetRevision()
		if d.GetRevision() == stopAt {
			cancel()
		}
		return nil
	}, ch
}

func drain(ch <-chan uint64) []uint64 {
	var out []uint64
	for {
		select {
		case r := <-ch:
			out = append(out, r)
		default:
			return out
		}
	}
}

func TestWatcherResumesAfterStreamBreaks(t *testing.T) {
	tests := []struct {
		name       string
		breaks     []int // decisions sent by each stream before it breaks
		wantFroms  []uint64
		wantWaited int // backoff waits (streams that made progress reset it)
	}{
		{name: "no break", wantFroms: []uint64{1}},
		{name: "two breaks", breaks: []int{2, 1}, wantFroms: []uint64{1, 3, 4}, wantWaited: 2},
		{name: "break before anything", breaks: []int{0, 0, 5}, wantFroms: []uint64{1, 1, 1}, wantWaited: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.fake.decide("a", "b", "c", "d", "e")
			h.fake.watchBreaks = tt.breaks
			clock := &fakeClock{}
			c := h.client(clock)
			ctx, cancel := context.WithCancel(t.Context())
			handle, got := collect(cancel, 5)
			cp := &MemoryCheckpoint{}

			err := c.NewWatcher(cp, handle, StartAt(1)).Run(ctx)

			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run() = %v, want context.Canceled", err)
			}
			if diff := cmp.Diff([]uint64{1, 2, 3, 4, 5}, drain(got)); diff != "" {
				t.Errorf("revisions handled (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFroms, h.fake.watchFrom); diff != "" {
				t.Errorf("from_revision of each Watch (-want +got):\n%s", diff)
			}
			if len(clock.waits) != tt.wantWaited {
				t.Errorf("backoff waits = %v, want %d", clock.waits, tt.wantWaited)
			}
			if rev, _ := cp.Load(t.Context()); rev != 6 {
				t.Errorf("checkpoint = %d, want 6", rev)
			}
		})
	}
}

func TestWatcherResumesAcrossServerRestart(t *testing.T) {
	h := newHarness(t)
	h.fake.decide("a", "b", "c")
	c := h.client(&fakeClock{})
	ctx, cancel := context.WithCancel(t.Context())
	handle, got := collect(cancel, 5)
	cp := FileCheckpoint{Path: filepath.Join(t.TempDir(), "rev")}
	done := make(chan error, 1)
	go func() { done <- c.NewWatcher(cp, handle, StartAt(1)).Run(ctx) }()

	var before []uint64
	for len(before) < 3 {
		before = append(before, <-got)
	}
	h.restart()
	h.fake.decide("d", "e")
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run() = %v, want context.Canceled", err)
	}

	if diff := cmp.Diff([]uint64{1, 2, 3, 4, 5}, append(before, drain(got)...)); diff != "" {
		t.Errorf("revisions handled (-want +got):\n%s", diff)
	}
	if rev, err := cp.Load(t.Context()); err != nil || rev != 6 {
		t.Errorf("checkpoint = %d, %v, want 6", rev, err)
	}
	if froms := h.fake.watchFrom; len(froms) < 2 || froms[0] != 1 || froms[len(froms)-1] != 4 {
		t.Errorf("from_revision of each Watch = %v, want 1 first and 4 last", froms)
	}
}

// TestWatcherRevisionNotWrittenIsNotCompaction: a position beyond the end
// of the log is OUT_OF_RANGE too, but belongs to another log; it must stop
// the watcher with the server's error, not go to OnCompacted.
func TestWatcherRevisionNotWrittenIsNotCompaction(t *testing.T) {
	h := newHarness(t)
	h.fake.decide("1", "2", "3")
	h.fake.refuseAhead = true
	c := h.client(&fakeClock{})
	cp := &MemoryCheckpoint{}
	_ = cp.Save(t.Context(), 50)
	compactions := 0
	err := c.NewWatcher(cp, func(context.Context, *berthv1.Decision) error { return nil },
		OnCompacted(func(context.Context, *CompactedError) (uint64, error) { compactions++; return 0, nil })).Run(t.Context())
	if ce := (*CompactedError)(nil); errors.As(err, &ce) || compactions > 0 {
		t.Fatalf("Run() = %v after %d OnCompacted calls; want no compaction", err, compactions)
	}
	if status.Code(err) != codes.OutOfRange || ErrorInfo(err).GetReason() != ReasonRevisionNotWritten {
		t.Errorf("Run() = %v, want OUT_OF_RANGE with reason %s", err, ReasonRevisionNotWritten)
	}
}

func TestWatcherCompaction(t *testing.T) {
	tests := []struct {
		name        string
		onCompacted func(context.Context, *CompactedError) (uint64, error)
		wantErr     *CompactedError
		want        []uint64
	}{
		{
			name:    "surfaced without callback",
			wantErr: &CompactedError{From: 3, Oldest: 10},
		},
		{
			name:        "callback resumes from the oldest revision",
			onCompacted: func(_ context.Context, ce *CompactedError) (uint64, error) { return ce.Oldest, nil },
			want:        []uint64{10, 11, 12},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.fake.decide("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12")
			h.fake.oldest = 10
			c := h.client(&fakeClock{})
			ctx, cancel := context.WithCancel(t.Context())
			handle, got := collect(cancel, 12)
			cp := &MemoryCheckpoint{}
			_ = cp.Save(t.Context(), 3)
			var opts []WatchOption
			if tt.onCompacted != nil {
				opts = append(opts, OnCompacted(tt.onCompacted))
			}

			err := c.NewWatcher(cp, handle, opts...).Run(ctx)

			if tt.wantErr != nil {
				var ce *CompactedError
				if !errors.As(err, &ce) {
					t.Fatalf("Run() = %v, want a *CompactedError", err)
				}
				if diff := cmp.Diff(tt.wantErr, ce, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())); diff != "" {
					t.Errorf("CompactedError (-want +got):\n%s", diff)
				}
			} else if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run() = %v, want context.Canceled", err)
			}
			if diff := cmp.Diff(tt.want, drain(got)); diff != "" {
				t.Errorf("revisions handled (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWatcherHandlerErrorStopsAtThatRevision(t *testing.T) {
	h := newHarness(t)
	h.fake.decide("a", "b", "c")
	c := h.client(&fakeClock{})
	cp := &MemoryCheckpoint{}
	boom := errors.New("boom")
	handle := func(_ context.Context, d *berthv1.Decision) error {
		if d.GetRevision() == 2 {
			return boom
		}
		return nil
	}

	err := c.NewWatcher(cp, handle, StartAt(1)).Run(t.Context())

	if !errors.Is(err, boom) {
		t.Fatalf("Run() = %v, want boom", err)
	}
	if rev, _ := cp.Load(t.Context()); rev != 2 {
		t.Errorf("checkpoint = %d, want 2 (the failed decision is handled again)", rev)
	}
}

// A gRPC error from the handler (a ReportBindResult that failed, say) stops
// the watcher like any handler error: it is not taken for a broken stream.
func TestWatcherHandlerGRPCErrorIsNotRetried(t *testing.T) {
	h := newHarness(t)
	h.fake.decide("a", "b")
	clock := &fakeClock{}
	c := h.client(clock)
	unavailable := status.Error(codes.Unavailable, "report failed")
	calls := 0
	handle := func(context.Context, *berthv1.Decision) error { calls++; return unavailable }

	err := c.NewWatcher(&MemoryCheckpoint{}, handle, StartAt(1)).Run(t.Context())

	if !errors.Is(err, unavailable) || calls != 1 || len(clock.waits) != 0 {
		t.Errorf("Run() = %v after %d handler calls and %d waits, want the handler's error at once", err, calls, len(clock.waits))
	}
}

func TestWatcherRefusedWatchIsNotRetried(t *testing.T) {
	lis := bufconn.Listen(1 << 16)
	srv := grpc.NewServer() // no services: every call is UNIMPLEMENTED
	go srv.Serve(lis)       //nolint:errcheck // ends with Stop
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bare", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	clock := &fakeClock{}
	c := New(conn, WithClock(clock))

	err = c.NewWatcher(&MemoryCheckpoint{}, func(context.Context, *berthv1.Decision) error { return nil }).Run(t.Context())

	if status.Code(errors.Unwrap(err)) != codes.Unimplemented || len(clock.waits) != 0 {
		t.Errorf("Run() = %v after %d waits, want UNIMPLEMENTED at once", err, len(clock.waits))
	}
}
