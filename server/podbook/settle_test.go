package podbook

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// TestSettlerWakesOncePerBatch queues many settles nobody waits for: only
// the first wakes the loop (which then lingers), not each one; a settle
// that waits wakes it again, and the deletes all become durable.
func TestSettlerWakesOncePerBatch(t *testing.T) {
	st := openStore(t, t.TempDir(), bboltstore.Options{})
	s := newSettler(st, func(time.Duration) {}, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	var b store.Batch
	for i := range 100 {
		b.Put(store.Nominations, []byte(name(i)), []byte("n"))
	}
	if _, err := st.Commit(ctx, &b); err != nil {
		t.Fatal(err)
	}
	for i := range 99 {
		if err := s.remove(ctx, name(i), false, store.Nominations); err != nil {
			t.Fatal(err)
		}
	}
	// The linger (20 ms) may have ended and a batch been written meanwhile,
	// each batch's first settle waking the loop again: at most a few.
	if n := s.notifies.Load(); n < 1 || n > 10 {
		t.Errorf("99 settles woke the loop %d times, want 1 (a few if batches were written meanwhile)", n)
	}
	before := s.notifies.Load()
	if err := s.remove(ctx, name(99), true, store.Nominations); err != nil {
		t.Fatal(err)
	}
	if got := s.notifies.Load() - before; got != 1 {
		t.Errorf("a waiting settle woke the loop %d times, want 1", got)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, ok, err := st.Get(store.Nominations, []byte(name(i))); err != nil || ok {
			t.Errorf("%s: still there (%v) or %v", name(i), ok, err)
		}
	}
}

// openStore opens a bbolt store in dir, closed at the end of the test.
func openStore(t *testing.T, dir string, opts bboltstore.Options) *bboltstore.Store {
	t.Helper()
	st, err := bboltstore.Open(t.Context(), dir, opts)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func name(i int) string { return fmt.Sprintf("p%04d", i) }
