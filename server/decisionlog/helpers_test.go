package decisionlog

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
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

// collector gathers what a watch sends and signals each response.
type collector struct {
	mu        sync.Mutex
	decisions []*berthv1.Decision
	next      uint64
	got       chan struct{} // buffered; one token per response
}

func newCollector() *collector { return &collector{got: make(chan struct{}, 1<<16)} }

func (c *collector) send(r *berthv1.WatchResponse) error {
	c.mu.Lock()
	c.decisions = append(c.decisions, r.GetDecisions()...)
	c.next = r.GetNextRevision()
	c.mu.Unlock()
	c.got <- struct{}{}
	return nil
}

// waitNext waits until the watch's position reaches next.
func (c *collector) waitNext(t *testing.T, next uint64) []*berthv1.Decision {
	t.Helper()
	for {
		c.mu.Lock()
		at, out := c.next, append([]*berthv1.Decision(nil), c.decisions...)
		c.mu.Unlock()
		if at >= next {
			return out
		}
		select {
		case <-c.got:
		case <-t.Context().Done():
			t.Fatalf("watch stopped at %d, want %d", at, next)
		}
	}
}

// watch runs l.Watch on a goroutine until the test ends; the returned
// channel yields its error.
func watch(t *testing.T, l *Log, from uint64, f Filter, send Send) (context.CancelFunc, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- l.Watch(ctx, from, "", f, send)
	}()
	t.Cleanup(func() { cancel(); <-finished })
	return cancel, done
}

// stripTime drops the time of decisions, for comparisons.
func stripTime(ds []*berthv1.Decision) []*berthv1.Decision {
	out := make([]*berthv1.Decision, len(ds))
	for i, d := range ds {
		c := proto.CloneOf(d)
		c.Time = nil
		out[i] = c
	}
	return out
}

func diffDecisions(want, got []*berthv1.Decision) string {
	return cmp.Diff(want, stripTime(got), protocmp.Transform())
}

func bindOf(rev uint64, name, node string) *berthv1.Decision {
	return &berthv1.Decision{Revision: rev, SchedulerName: model.DefaultSchedulerName, Pod: ref(name),
		Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: node}}}
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
		if out[i], err = decode(r); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func name(i int) string { return fmt.Sprintf("p%04d", i) }
