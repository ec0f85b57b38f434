package watch

import (
	"context"
	"fmt"
	"sync"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/decisionlog/decisiontest"
	"github.com/berthsched/berth/store/bboltstore"
)

// env is a decision log over a bbolt store, to write what the feed reads.
type env struct {
	log  *decisionlog.Log
	st   *bboltstore.Store
	feed *Feed
}

// open opens a store in a temporary directory, a Log writing it and a
// Feed reading it, closed at the end of the test.
func open(t *testing.T, stOpts bboltstore.Options, opts Options) *env {
	t.Helper()
	st, err := bboltstore.Open(t.Context(), t.TempDir(), stOpts)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	l := decisionlog.New(st, decisionlog.Options{})
	t.Cleanup(func() { _ = l.Close() })
	return &env{log: l, st: st, feed: New(st, l.ID, opts)}
}

// submit makes one decision durable.
func (e *env) submit(t *testing.T, item framework.PlanItem) {
	t.Helper()
	if _, err := framework.SubmitOne(t.Context(), e.log, item); err != nil {
		t.Fatal(err)
	}
}

// bindN binds the pods name(from) to name(to-1) to n1, one by one.
func (e *env) bindN(t *testing.T, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		e.submit(t, &framework.Bind{Pod: pod(name(i)), Node: "n1"})
	}
}

func bindsOf(from, to int) []*berthv1.Decision {
	var out []*berthv1.Decision
	for i := from; i < to; i++ {
		out = append(out, bindOf(uint64(i+1), name(i), "n1"))
	}
	return out
}

func pod(name string) *model.Pod {
	return &model.Pod{UID: "uid-" + name, Namespace: "ns", Name: name}
}

func name(i int) string { return fmt.Sprintf("p%04d", i) }

func bindOf(rev uint64, name, node string) *berthv1.Decision {
	return &berthv1.Decision{Revision: rev, SchedulerName: model.DefaultSchedulerName,
		Pod:    &berthv1.PodRef{Namespace: "ns", Name: name, Uid: "uid-" + name},
		Action: &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: node}}}
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

// watch runs fd.Watch on a goroutine until the test ends; the returned
// channel yields its error.
func watch(t *testing.T, fd *Feed, from uint64, f Filter, send Send) (context.CancelFunc, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- fd.Watch(ctx, from, "", f, send)
	}()
	t.Cleanup(func() { cancel(); <-finished })
	return cancel, done
}

func diffDecisions(want, got []*berthv1.Decision) string {
	return decisiontest.Diff(want, got)
}
