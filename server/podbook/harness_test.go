package podbook_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/bboltstore"
)

// env is a book with its decision log over a bbolt store, and the rules
// over a fake scheduler.
type env struct {
	dir      string
	st       *bboltstore.Store
	book     *podbook.Book
	log      *decisionlog.Log
	sched    *fakeScheduler
	outcomes *podbook.Outcomes
	restored podbook.Facts
}

// open opens (or reopens) the store in dir and restores the podbook.
func open(t *testing.T, dir string, opts bboltstore.Options) *env {
	t.Helper()
	st, err := bboltstore.Open(t.Context(), dir, opts)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	e := &env{dir: dir, st: st, book: podbook.New(st, podbook.Options{}), sched: newFakeScheduler()}
	if e.restored, err = e.book.Restore(t.Context()); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	e.sched.Restore(e.restored.Scheduler())
	e.log = decisionlog.New(st, decisionlog.Options{Book: e.book})
	if err := e.log.Recover(t.Context()); err != nil {
		t.Fatalf("Recover: %v", err)
	}
	e.outcomes = podbook.NewOutcomes(e.book, e.sched, nil)
	t.Cleanup(func() { e.close(t) })
	return e
}

// close flushes the log's queued removals and closes the store; again is
// a no-op.
func (e *env) close(t *testing.T) {
	t.Helper()
	if e.st == nil {
		return
	}
	if err := e.closeLog(); err != nil {
		t.Error(err)
	}
	if err := e.st.Close(); err != nil {
		t.Error(err)
	}
	e.st = nil
}

// closeLog closes the log and the book, flushing the removals queued.
func (e *env) closeLog() error {
	return errors.Join(e.log.Close(), e.book.Close())
}

// resynced is the end of a re-list as the daemon runs it: the scheduler
// forgets first, then the book.
func (e *env) resynced(ctx context.Context) {
	e.outcomes.Resynced(ctx, e.sched.forgetUnknownEvictions())
}

// submit submits one decision to the log; a Bind is awaited as the fake
// scheduler says, as the scheduler's planner has it.
func (e *env) submit(ctx context.Context, item framework.PlanItem) error {
	if b, ok := item.(*framework.Bind); ok && b.Awaiter == nil {
		b.Awaiter = e.sched
	}
	_, err := framework.SubmitOne(ctx, e.log, item)
	return err
}

// bind adds the pod pending to the fake scheduler, wanting its bind, and
// has the log write the Bind.
func (e *env) bind(t *testing.T, p *model.Pod, node string) {
	t.Helper()
	e.sched.add(p)
	if err := e.submit(t.Context(), &framework.Bind{Pod: p, Node: node}); err != nil {
		t.Fatalf("bind %s: %v", p.Name, err)
	}
}

// keys lists the keys of a keyspace.
func keys(t *testing.T, st store.Store, sp store.Space) []string {
	t.Helper()
	kvs, err := st.List(sp)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, kv := range kvs {
		out = append(out, string(kv.Key))
	}
	return out
}

func pod(name string) *model.Pod {
	return &model.Pod{UID: "uid-" + name, Namespace: "ns", Name: name}
}

func name(i int) string { return fmt.Sprintf("p%04d", i) }

// fakeScheduler is the scheduler's side as the book's rules drive it:
// pods by uid, each wanting the bind of the version it holds, and the
// evicted set.
type fakeScheduler struct {
	mu      sync.Mutex
	pods    map[string]*model.Pod
	evicted map[string]bool
	// calls records the calls that change a pod's outcome, in order.
	calls []string
	// onReport, if set, runs when ReportBindResult or Unbind is called.
	onReport func(uid string)
}

var _ podbook.Scheduler = (*fakeScheduler)(nil)

func newFakeScheduler() *fakeScheduler {
	return &fakeScheduler{pods: map[string]*model.Pod{}, evicted: map[string]bool{}}
}

func (f *fakeScheduler) add(p *model.Pod) {
	f.mu.Lock()
	f.pods[p.UID] = p
	f.mu.Unlock()
}

func (f *fakeScheduler) Binding(p *model.Pod) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pods[p.UID] == p
}

func (f *fakeScheduler) record(call string) {
	f.mu.Lock()
	f.calls = append(f.calls, call)
	f.mu.Unlock()
}

func (f *fakeScheduler) AddPod(_ context.Context, p *model.Pod) error {
	f.add(p)
	f.record("add " + p.Name + " on " + p.NodeName)
	return nil
}

func (f *fakeScheduler) DeletePod(_ context.Context, p *model.Pod) error {
	f.mu.Lock()
	delete(f.pods, p.UID)
	delete(f.evicted, p.UID)
	f.mu.Unlock()
	return nil
}

func (f *fakeScheduler) ReportBindResult(_ context.Context, uid, node string, ok bool, _ string) error {
	if f.onReport != nil {
		f.onReport(uid)
	}
	f.record(fmt.Sprintf("report %s %s %v", uid, node, ok))
	return nil
}

func (f *fakeScheduler) Unbind(_ context.Context, uid string) error {
	if f.onReport != nil {
		f.onReport(uid)
	}
	f.record("unbind " + uid)
	return nil
}

func (f *fakeScheduler) Pod(uid string) (*model.Pod, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.pods[uid]
	return p, ok
}

func (f *fakeScheduler) Restore(r scheduler.Restored) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, uid := range r.Evictions {
		f.evicted[uid] = true
	}
}

func (f *fakeScheduler) forgetUnknownEvictions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for uid := range f.evicted {
		if _, ok := f.pods[uid]; !ok {
			delete(f.evicted, uid)
			out = append(out, uid)
		}
	}
	slices.Sort(out)
	return out
}

func (f *fakeScheduler) evictedUIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []string{}
	for uid := range f.evicted {
		out = append(out, uid)
	}
	slices.Sort(out)
	return out
}
