package decisionlog

import (
	"fmt"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/decisionlog/decisiontest"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

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

// newLog opens a store in a temporary directory and a Log over it.
func newLog(t *testing.T, opts bboltstore.Options) (*Log, *bboltstore.Store) {
	t.Helper()
	st := openStore(t, t.TempDir(), opts)
	l := New(st, Options{})
	t.Cleanup(func() { _ = l.Close() })
	return l, st
}

// reopen closes l (flushing its queued removals) and st, and opens the
// store in dir again with a new Log over it, closed at the end of the test.
func reopen(t *testing.T, l *Log, st *bboltstore.Store, dir string) (*Log, *bboltstore.Store) {
	t.Helper()
	st2 := closeAndOpen(t, l, st, dir)
	l2 := New(st2, Options{})
	t.Cleanup(func() { _ = l2.Close() })
	return l2, st2
}

// closeAndOpen closes l and st and opens the store in dir again.
func closeAndOpen(t *testing.T, l *Log, st *bboltstore.Store, dir string) *bboltstore.Store {
	t.Helper()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return openStore(t, dir, bboltstore.Options{})
}

func pod(name string) *model.Pod {
	return &model.Pod{UID: "uid-" + name, Namespace: "ns", Name: name}
}

func ref(name string) *berthv1.PodRef {
	return &berthv1.PodRef{Namespace: "ns", Name: name, Uid: "uid-" + name}
}

func diffDecisions(want, got []*berthv1.Decision) string {
	return decisiontest.Diff(want, got)
}

// readAll reads every decision in the store.
func readAll(t *testing.T, st store.Store) []*berthv1.Decision {
	t.Helper()
	recs, err := st.Read(t.Context(), 1, 0)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	out := make([]*berthv1.Decision, len(recs))
	for i, r := range recs {
		if out[i], err = Decode(r); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func name(i int) string { return fmt.Sprintf("p%04d", i) }
