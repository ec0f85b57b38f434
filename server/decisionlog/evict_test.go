package decisionlog

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/store/bboltstore"
)

// Many Evicts of one pod, for different causes and at once: exactly one is
// written, the others are refused with ErrAlreadyEvicted.
func TestEvictPodAtMostOnce(t *testing.T) {
	l, st := newLog(t, bboltstore.Options{})
	victim := pod("v")
	causes := []framework.EvictCause{
		framework.EvictPreemption, framework.EvictTaint, framework.EvictAPI, framework.EvictNodePressure,
	}
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			err := l.EvictPod(t.Context(), framework.Eviction{Victim: victim, Node: "n1", Cause: causes[i%len(causes)]})
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrAlreadyEvicted):
				refused.Add(1)
			default:
				t.Errorf("EvictPod: %v", err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || refused.Load() != 15 {
		t.Fatalf("written %d, refused %d; want 1 and 15", ok.Load(), refused.Load())
	}
	if _, last := st.Revisions(); last != 1 {
		t.Errorf("log holds %d decisions, want 1", last)
	}
}

// A pod whose Evict was forgotten (the pod deleted) may be evicted again,
// and a restart keeps refusing a second Evict of a pod still awaiting
// deletion.
func TestEvictPodAfterRestart(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir, bboltstore.Options{})
	l := New(st, Options{})
	if err := l.EvictPod(t.Context(), framework.Eviction{Victim: pod("v"), Node: "n1", Cause: framework.EvictTaint}); err != nil {
		t.Fatal(err)
	}
	l2, _ := reopenRestored(t, l, st, dir)
	err := l2.EvictPod(t.Context(), framework.Eviction{Victim: pod("v"), Node: "n1", Cause: framework.EvictAPI})
	if !errors.Is(err, ErrAlreadyEvicted) {
		t.Fatalf("second Evict after restart: %v, want ErrAlreadyEvicted", err)
	}
	var ae *AlreadyEvictedError
	if !errors.As(err, &ae) || ae.ErrorReason() != "POD_ALREADY_EVICTED" || ae.ErrorMetadata()["pod"] != "ns/v" {
		t.Errorf("error %#v does not name the pod and reason", err)
	}
}

// reopenRestored is reopen with the book restored from the store, as the
// daemon opens it.
func reopenRestored(t *testing.T, l *Log, st *bboltstore.Store, dir string) (*Log, *bboltstore.Store) {
	t.Helper()
	l2, st2 := reopen(t, l, st, dir)
	if _, err := l2.Book().Restore(t.Context()); err != nil {
		t.Fatal(err)
	}
	return l2, st2
}
