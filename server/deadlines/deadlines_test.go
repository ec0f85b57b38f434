package deadlines

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/store/bboltstore"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func openStore(t *testing.T, dir string) *bboltstore.Store {
	t.Helper()
	st, err := bboltstore.Open(t.Context(), dir, bboltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// recorder is a Fire that records what fired and fails while failing is set.
type recorder struct {
	fired   []string
	failing bool
}

func (r *recorder) fire(_ context.Context, name string, value []byte) error {
	if r.failing {
		return errors.New("injected")
	}
	r.fired = append(r.fired, name+"="+string(value))
	return nil
}

func TestFireDueInOrderOnlyAfterStart(t *testing.T) {
	ctx := t.Context()
	st := openStore(t, t.TempDir())
	defer st.Close()
	tm := New(st, Options{})
	var r recorder
	tm.Own("taint/", r.fire)
	for _, d := range []Deadline{
		{Name: "taint/b", At: t0.Add(2 * time.Second), Value: []byte("n1")},
		{Name: "taint/a", At: t0.Add(1 * time.Second), Value: []byte("n1")},
		{Name: "taint/c", At: t0.Add(5 * time.Second), Value: []byte("n2")},
	} {
		if err := tm.Set(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if n := tm.FireDue(ctx, t0.Add(time.Hour)); n != 0 || len(r.fired) != 0 {
		t.Fatalf("fired before Start: %v", r.fired)
	}
	tm.Start()
	tm.FireDue(ctx, t0.Add(2*time.Second))
	if diff := cmp.Diff([]string{"taint/a=n1", "taint/b=n1"}, r.fired); diff != "" {
		t.Errorf("fired (-want +got):\n%s", diff)
	}
	if next, ok := tm.Next(); !ok || !next.Equal(t0.Add(5*time.Second)) {
		t.Errorf("Next = %v, %v; want the 5 s deadline", next, ok)
	}
}

func TestCancelAndReplace(t *testing.T) {
	ctx := t.Context()
	st := openStore(t, t.TempDir())
	defer st.Close()
	tm := New(st, Options{})
	var r recorder
	tm.Own("taint/", r.fire)
	tm.Start()
	must(t, tm.Set(ctx, Deadline{Name: "taint/a", At: t0.Add(time.Second)}))
	must(t, tm.Set(ctx, Deadline{Name: "taint/b", At: t0.Add(time.Second)}))
	must(t, tm.Cancel(ctx, "taint/a"))
	must(t, tm.Set(ctx, Deadline{Name: "taint/b", At: t0.Add(3 * time.Second)}))
	tm.FireDue(ctx, t0.Add(2*time.Second))
	if len(r.fired) != 0 {
		t.Fatalf("fired %v; want nothing (a cancelled, b moved)", r.fired)
	}
	tm.FireDue(ctx, t0.Add(3*time.Second))
	if diff := cmp.Diff([]string{"taint/b="}, r.fired); diff != "" {
		t.Errorf("fired (-want +got):\n%s", diff)
	}
	if got := tm.List(""); len(got) != 0 {
		t.Errorf("left %v after firing", got)
	}
}

func TestFailedFireIsRetriedAfterDelay(t *testing.T) {
	ctx := t.Context()
	st := openStore(t, t.TempDir())
	defer st.Close()
	tm := New(st, Options{RetryDelay: time.Second})
	r := recorder{failing: true}
	tm.Own("p/", r.fire)
	tm.Start()
	must(t, tm.Set(ctx, Deadline{Name: "p/x", At: t0}))
	if n := tm.FireDue(ctx, t0); n != 1 {
		t.Fatalf("failed = %d, want 1", n)
	}
	if next, _ := tm.Next(); !next.Equal(t0.Add(time.Second)) {
		t.Errorf("retry at %v, want t0+1s", next)
	}
	r.failing = false
	tm.FireDue(ctx, t0.Add(500*time.Millisecond))
	if len(r.fired) != 0 {
		t.Fatal("retried before its delay")
	}
	tm.FireDue(ctx, t0.Add(time.Second))
	if diff := cmp.Diff([]string{"p/x="}, r.fired); diff != "" {
		t.Errorf("fired (-want +got):\n%s", diff)
	}
}

// A deadline survives a restart (the store closed without Cancel) and one
// that passed meanwhile fires as soon as Start is called.
func TestRestoreAcrossRestart(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	st := openStore(t, dir)
	tm := New(st, Options{})
	must(t, tm.Set(ctx, Deadline{Name: "taint/a", At: t0.Add(2 * time.Second), Value: []byte("n1")}))
	must(t, tm.Set(ctx, Deadline{Name: "taint/b", At: t0.Add(time.Hour), Value: []byte("n2")}))
	must(t, st.Close())

	st = openStore(t, dir)
	defer st.Close()
	tm = New(st, Options{})
	must(t, tm.Restore())
	var r recorder
	tm.Own("taint/", r.fire)
	want := []Deadline{
		{Name: "taint/a", At: t0.Add(2 * time.Second), Value: []byte("n1")},
		{Name: "taint/b", At: t0.Add(time.Hour), Value: []byte("n2")},
	}
	if diff := cmp.Diff(want, tm.List("taint/")); diff != "" {
		t.Fatalf("restored (-want +got):\n%s", diff)
	}
	tm.FireDue(ctx, t0.Add(time.Minute))
	if len(r.fired) != 0 {
		t.Fatal("fired before Start (the re-list)")
	}
	tm.Start()
	tm.FireDue(ctx, t0.Add(time.Minute))
	if diff := cmp.Diff([]string{"taint/a=n1"}, r.fired); diff != "" {
		t.Errorf("fired (-want +got):\n%s", diff)
	}
	kvs, err := st.List("deadlines")
	must(t, err)
	if len(kvs) != 1 || string(kvs[0].Key) != "taint/b" {
		t.Errorf("durable deadlines = %v, want only taint/b", kvs)
	}
}

// fakeClock's After fires at once, so Run's loop is exercised without
// waiting; the time it reports is fixed.
type fakeClock struct{ now time.Time }

func (c fakeClock) Now() time.Time { return c.now }
func (c fakeClock) After(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func TestRunFiresDue(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	st := openStore(t, t.TempDir())
	defer st.Close()
	tm := New(st, Options{Clock: fakeClock{t0.Add(time.Minute)}})
	done := make(chan string, 1)
	tm.Own("x/", func(_ context.Context, name string, _ []byte) error { done <- name; return nil })
	must(t, tm.Set(ctx, Deadline{Name: "x/1", At: t0}))
	tm.Start()
	go tm.Run(ctx)
	if got := <-done; got != "x/1" {
		t.Errorf("fired %q", got)
	}
	cancel()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
