package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// While held, the loop pops nothing: pods added meanwhile wait, and when
// the hold ends they go in the queue's order, against the state as it is
// then.
func TestHoldKeepsPodsQueued(t *testing.T) {
	// Binding inline, binds come in the order of the cycles.
	ctx, e := runningEnv(t, nil)

	release, err := e.s.Hold(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.s.Hold(ctx) // holds nest
	if err != nil {
		t.Fatal(err)
	}
	// The pods arrive before the node they need (a re-list sending pods
	// first): a cycle now would find no node.
	e.addPods(mt.MakePod("low").RequestedPriority(1).Obj(), mt.MakePod("high").RequestedPriority(10).Obj())
	noDecision(t, e, "the holds were released")
	if got := e.reporter.reports(); len(got) != 0 {
		t.Fatalf("attempts while held: %v", got)
	}
	e.addNodes(mt.MakeNode("n1").Capacity(mt.Res(1000, mt.Gi)).Obj())
	release()
	release() // idempotent: the second hold still holds
	if !e.s.View().Held() {
		t.Fatal("released once, two holds: not held any more")
	}
	noDecision(t, e, "the second hold was released")
	second()
	var order []string
	for range 2 {
		order = append(order, waitDecision(t, e.sink.ch).Pod)
	}
	if order[0] != "default/high" || order[1] != "default/low" {
		t.Errorf("bind order %v, want high then low", order)
	}
	if got := e.reporter.reports(); len(got) != 0 {
		t.Errorf("pods found unschedulable: %v", got)
	}
}

// Hold waits for the cycle in progress; a cancelled wait holds nothing.
func TestHoldWaitsForTheCycle(t *testing.T) {
	e := newEnv(t, &testPlugins{}, nil)
	e.s.cycleMu.Lock() // a cycle in progress
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.s.Hold(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Hold during a cycle: %v, want it to wait until the deadline", err)
	}
	if e.s.View().Held() {
		t.Error("a Hold that gave up still holds")
	}
	got := make(chan error, 1)
	go func() {
		release, err := e.s.Hold(context.Background())
		if err == nil {
			release()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	e.s.cycleMu.Unlock()
	if err := <-got; err != nil {
		t.Errorf("Hold after the cycle: %v", err)
	}
}

// A bound pod does not become pending again under the same uid: the
// upsert is refused and the pod keeps its node. Unbind does it.
func TestBoundPodCannotBeUnbound(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, &testPlugins{}, nil)
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("p").Node("n1").Obj())
	if err := e.s.AddPod(ctx, mt.MakePod("p").Obj()); !errors.Is(err, ErrPodBound) {
		t.Fatalf("upserting a bound pod without its node: %v, want ErrPodBound", err)
	}
	if ex, _ := e.s.View().Explain("default", "p"); ex.Phase != PhaseBound || ex.Node != "n1" {
		t.Errorf("after the refusal: %s on %q, want bound to n1", ex.Phase, ex.Node)
	}
	if st := e.s.queue.Stats(); st.Active+st.Backoff+st.Unschedulable != 0 {
		t.Errorf("queued after the refusal: %+v", st)
	}
	if err := e.s.Unbind(ctx, "uid-p"); err != nil {
		t.Fatal(err)
	}
	if ex, _ := e.s.View().Explain("default", "p"); ex.Phase != PhasePending {
		t.Errorf("after Unbind: %s, want pending", ex.Phase)
	}
	if att := e.scheduleOne(); att.Result != ResultScheduled {
		t.Errorf("after Unbind: %s, want scheduled", att.Result)
	}
}

// A cycle cut short by shutdown is not an error worth an ERROR line.
func TestShutdownIsNotAnError(t *testing.T) {
	var logs logRecorder
	e := newEnv(t, &testPlugins{}, func(o *Options) { o.Logger = slog.New(&logs) })
	e.sink.bindErr = context.Canceled // the decision log's commit, cut short
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("p").Obj())
	qpi, err := e.s.queue.Pop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.s.scheduleOnePod(ctx, qpi, true, false)
	if got := logs.errors(); len(got) > 0 {
		t.Errorf("logged at ERROR while stopping: %v", got)
	}
	// The same failure while running is an error.
	e.expireBackoff()
	e.scheduleOne()
	if got := logs.errors(); len(got) == 0 {
		t.Error("a bind failing while running was not logged as an error")
	}
}

// A pod deleted while its binding cycle runs is dropped without an ERROR
// line: the ordinary race between a deletion and a bind is not an error.
func TestDeletedDuringBindIsNotAnError(t *testing.T) {
	var logs logRecorder
	pb := &fakePreBind{name: "PB", code: framework.Success}
	e := newEnv(t, &testPlugins{preBind: pb}, func(o *Options) { o.Logger = slog.New(&logs) })
	pb.hook = func(pod *model.Pod) {
		if err := e.s.DeletePod(context.Background(), pod); err != nil {
			t.Error(err)
		}
	}
	e.addNodes(mt.MakeNode("n1").Obj())
	e.addPods(mt.MakePod("p").Obj())
	att := e.scheduleOne()
	if att.BindStatus.IsSuccess() {
		t.Errorf("bind status %v, want the deletion's failure", att.BindStatus)
	}
	if got := logs.errors(); len(got) > 0 {
		t.Errorf("logged at ERROR for a pod deleted during its bind: %v", got)
	}
	if d := e.sink.decisions(); len(d) != 0 {
		t.Errorf("decisions %+v for a deleted pod", d)
	}
	if st := e.s.queue.Stats(); st.Active+st.Backoff+st.Unschedulable != 0 {
		t.Errorf("the deleted pod was requeued: %+v", st)
	}
}

// logRecorder is a slog.Handler keeping the messages of ERROR records.
type logRecorder struct {
	mu   sync.Mutex
	errs []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		l.mu.Lock()
		l.errs = append(l.errs, r.Message)
		l.mu.Unlock()
	}
	return nil
}

func (l *logRecorder) errors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errs...)
}
