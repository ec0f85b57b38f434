package decisionlog

import (
	"testing"

	"github.com/berthsched/berth/store/bboltstore"
)

// The log's identity is made with its data and kept with it: a new Log
// over the store has the same, a follower's ReadID finds it, a log of
// another data directory has another, and none is read before the first
// Recover wrote it.
func TestLogID(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	if id, found, err := ReadID(st); err != nil || found || id != "" {
		t.Fatalf("ReadID before Recover = %q, %v, %v; want none", id, found, err)
	}
	if err := l.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	id := l.ID()
	if len(id) != 32 {
		t.Fatalf("log id %q, want 32 hex digits", id)
	}
	if got, found, err := ReadID(st); err != nil || !found || got != id {
		t.Errorf("ReadID = %q, %v, %v; want %q", got, found, err, id)
	}
	l2 := New(st, Options{})
	t.Cleanup(func() { _ = l2.Close() })
	if err := l2.Recover(t.Context()); err != nil || l2.ID() != id {
		t.Fatalf("id after reopening: %q (%v), want %q", l2.ID(), err, id)
	}
	other, _ := newLog(t, bboltstore.Options{})
	if err := other.Recover(t.Context()); err != nil || other.ID() == id || other.ID() == "" {
		t.Fatalf("another log's id %q (%v); this one's %q", other.ID(), err, id)
	}
}
