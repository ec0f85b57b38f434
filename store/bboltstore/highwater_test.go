package bboltstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/berthsched/berth/store"
)

// TestTruncatedLogIsRefused zeroes the write-ahead file's tail after
// acknowledged commits that bbolt had not received, as a filesystem did
// after a kill -9 (345 decisions a watcher had seen were silently
// dropped): Open refuses, naming the lost revisions, unless the loss is
// accepted explicitly; then the shortened history is served, and the mark
// moves so that the next Open succeeds.
func TestTruncatedLogIsRefused(t *testing.T) {
	dir := t.TempDir()
	gate := newApplyGate()
	s := open(t, dir, Options{ApplyInterval: time1h, applyFault: gate.fault})
	commit(t, s, batch("r1"))
	go func() { _ = s.waitApplied(context.Background(), 1) }() // hurries the applier, once
	<-gate.entered                                             // its transaction takes group 1...
	commit(t, s, batch("r2", "r3"))                            // ...groups 2 and 3 are acknowledged meanwhile
	commit(t, s, batch("r4"))
	s.applyMu.Lock()
	done := s.apply.done // closed when that transaction ends; waiting does not hurry the next
	s.applyMu.Unlock()
	gate.release()
	<-done
	if got := s.appliedSeq(); got != 1 {
		t.Fatalf("bbolt holds groups up to %d; the test needs 2 and 3 only in the write-ahead file", got)
	}
	crashed := crashCopy(t, dir)
	zeroAfterFirstFrame(t, filepath.Join(crashed, walFileName))

	_, err := Open(context.Background(), crashed, Options{})
	var lost *store.LogTruncatedError
	if !errors.As(err, &lost) || !errors.Is(err, store.ErrLogTruncated) || lost.Last != 1 || lost.Acked != 4 || lost.Groups != 2 {
		t.Fatalf("Open = %v, want a *store.LogTruncatedError: revisions 2-4 (2 groups) lost", err)
	}
	r, err := Open(context.Background(), crashed, Options{AcceptTruncatedLog: true})
	if err != nil {
		t.Fatalf("Open accepting the loss = %v", err)
	}
	wantLogThenNext(t, r, []rec{{1, "r1"}}, "r2 again")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r = open(t, crashed, Options{})
	wantLogThenNext(t, r, []rec{{1, "r1"}, {2, "r2 again"}}, "r3 again")
}

// applyGate blocks the applier's next transaction until released.
type applyGate struct {
	entered, released chan struct{}
	once              bool
}

func newApplyGate() *applyGate {
	return &applyGate{entered: make(chan struct{}), released: make(chan struct{})}
}

// fault is Options.applyFault: the first transaction waits for release.
func (g *applyGate) fault() error {
	if !g.once {
		g.once = true // only the applier goroutine calls it
		close(g.entered)
		<-g.released
	}
	return nil
}

func (g *applyGate) release() { close(g.released) }

// zeroAfterFirstFrame overwrites the write-ahead file with zeros from the
// end of its first frame on.
func zeroAfterFirstFrame(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, n, ok := parseFrame(data)
	if !ok {
		t.Fatal("no frame at the start of the write-ahead file")
	}
	clear(data[n:])
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
