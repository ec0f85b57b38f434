package objstore_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
)

const gate = "example.com/held"

// holdLabelled gates the pods labelled "queue" while held says so.
func holdLabelled(mu *sync.Mutex, held map[string]bool) objstore.PodMutator {
	return func(p *model.Pod) *model.Pod {
		if _, ok := p.Labels["queue"]; !ok {
			return p
		}
		mu.Lock()
		h := held[p.UID]
		mu.Unlock()
		if !h {
			return p
		}
		cp := *p
		cp.SchedulingGates = append(slices.Clone(p.SchedulingGates), gate)
		return &cp
	}
}

// Pod mutators run on Upsert; the pod sent is kept as sent; RefreshPod
// applies it again once the mutator's answer changed, and only then;
// subscribers see the pod as applied.
func TestPodMutators(t *testing.T) {
	ctx := t.Context()
	f, r := newFake(t)
	var mu sync.Mutex
	held := map[string]bool{"u1": true}
	s := objstore.New(r, objstore.Options{PodMutators: []objstore.PodMutator{holdLabelled(&mu, held)}})
	var events []*model.Pod
	var evMu sync.Mutex
	sub := s.Subscribe(ctx, "test", func(_ context.Context, ev objstore.Event) {
		if p, ok := ev.New.(*model.Pod); ok {
			evMu.Lock()
			events = append(events, p)
			evMu.Unlock()
		}
	})
	sent := &model.Pod{UID: "u1", Namespace: "ns", Name: "a", Labels: map[string]string{"queue": "q"}}
	plain := &model.Pod{UID: "u2", Namespace: "ns", Name: "b"}
	for _, p := range []*model.Pod{sent, plain} {
		if err := s.Upsert(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	gates := func(uid string) []string {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.pods[uid].SchedulingGates
	}
	if got := gates("u1"); !slices.Equal(got, []string{gate}) {
		t.Fatalf("held pod's gates %v, want [%s]", got, gate)
	}
	if len(sent.SchedulingGates) != 0 {
		t.Errorf("the pod sent was changed: %v", sent.SchedulingGates)
	}
	if got, ok := s.SentPod("u1"); !ok || got != sent {
		t.Errorf("SentPod = %p %v, want the pod sent", got, ok)
	}
	// Unchanged answer: nothing applied, no event.
	if err := s.RefreshPod(ctx, objstore.Ref{Kind: objstore.KindPod, UID: "u2"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	held["u1"] = false
	mu.Unlock()
	if err := s.RefreshPod(ctx, objstore.Ref{Kind: objstore.KindPod, Namespace: "ns", Name: "a"}); err != nil {
		t.Fatal(err)
	}
	if got := gates("u1"); len(got) != 0 {
		t.Errorf("released pod's gates %v, want none", got)
	}
	// Released and unchanged since: a refresh applies nothing.
	if err := s.RefreshPod(ctx, objstore.Ref{Kind: objstore.KindPod, UID: "u1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RefreshPod(ctx, objstore.Ref{Kind: objstore.KindPod, UID: "gone"}); err != nil {
		t.Errorf("refresh of a pod not held: %v", err)
	}
	if err := sub.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	evMu.Lock()
	var seen []string
	for _, p := range events {
		seen = append(seen, p.Name+":"+string(rune('0'+len(p.SchedulingGates))))
	}
	evMu.Unlock()
	if want := []string{"a:1", "b:0", "a:0"}; !slices.Equal(seen, want) {
		t.Errorf("events (name:gates) %v, want %v", seen, want)
	}
	if err := s.Delete(ctx, objstore.Ref{Kind: objstore.KindPod, Namespace: "ns", Name: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.SentPod("u1"); ok {
		t.Error("a deleted pod is still held as sent")
	}
}

// A mutator that does not apply costs no allocation on the pod path
// beyond the kind's own.
func TestPodMutatorNoAllocation(t *testing.T) {
	_, r := newFake(t)
	var mu sync.Mutex
	bare := objstore.New(r, objstore.Options{})
	mutated := objstore.New(r, objstore.Options{PodMutators: []objstore.PodMutator{holdLabelled(&mu, map[string]bool{})}})
	p := &model.Pod{UID: "u1", Namespace: "ns", Name: "a"}
	ctx := context.Background()
	for _, s := range []*objstore.Store{bare, mutated} {
		if err := s.Upsert(ctx, p); err != nil { // the maps' first entries
			t.Fatal(err)
		}
	}
	base := testing.AllocsPerRun(100, func() { _ = bare.Upsert(ctx, p) })
	with := testing.AllocsPerRun(100, func() { _ = mutated.Upsert(ctx, p) })
	if with > base {
		t.Errorf("an Upsert through a mutator that does not apply allocates %.1f times, without mutators %.1f", with, base)
	}
}

func BenchmarkPodUpsertMutatorNotApplying(b *testing.B) {
	r := objstore.NewRegistry()
	_ = objstore.Register(r, objstore.Type[*model.Pod]{
		Kind:   objstore.KindPod,
		Ref:    func(p *model.Pod) objstore.Ref { return objstore.Ref{Namespace: p.Namespace, Name: p.Name, UID: p.UID} },
		Upsert: func(context.Context, *model.Pod) error { return nil },
		Delete: func(context.Context, objstore.Ref) error { return nil },
		List:   func() []*model.Pod { return nil },
	})
	var mu sync.Mutex
	s := objstore.New(r, objstore.Options{PodMutators: []objstore.PodMutator{holdLabelled(&mu, map[string]bool{})}})
	p := &model.Pod{UID: "u1", Namespace: "ns", Name: "a"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Upsert(ctx, p)
	}
}

// With KeepSentPod, only the pods it accepts, or that a mutator changed,
// are kept as sent; a pod updated into one it refuses is forgotten, and a
// refresh of it applies nothing.
func TestKeepSentPod(t *testing.T) {
	ctx := t.Context()
	_, r := newFake(t)
	var mu sync.Mutex
	held := map[string]bool{"gated": true}
	labelled := func(p *model.Pod) bool { _, ok := p.Labels["queue"]; return ok }
	s := objstore.New(r, objstore.Options{
		PodMutators: []objstore.PodMutator{holdLabelled(&mu, held)},
		KeepSentPod: labelled,
	})
	queued := &model.Pod{UID: "queued", Namespace: "ns", Name: "a", Labels: map[string]string{"queue": "q"}}
	gated := &model.Pod{UID: "gated", Namespace: "ns", Name: "b", Labels: map[string]string{"queue": "q"}}
	plain := &model.Pod{UID: "plain", Namespace: "ns", Name: "c"}
	for _, p := range []*model.Pod{queued, gated, plain} {
		if err := s.Upsert(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		uid  string
		want *model.Pod
	}{{"queued", queued}, {"gated", gated}, {"plain", nil}} {
		got, ok := s.SentPod(tc.uid)
		if ok != (tc.want != nil) || got != tc.want {
			t.Errorf("SentPod(%s) = %p %v, want %p", tc.uid, got, ok, tc.want)
		}
	}
	if err := s.RefreshPod(ctx, objstore.Ref{Kind: objstore.KindPod, UID: "plain"}); err != nil {
		t.Errorf("refresh of a pod not kept: %v", err)
	}
	// The label dropped: the pod as sent before is no longer kept.
	unlabelled := &model.Pod{UID: "queued", Namespace: "ns", Name: "a"}
	if err := s.Upsert(ctx, unlabelled); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.SentPod("queued"); ok {
		t.Errorf("SentPod after the label was dropped = %p, want none", got)
	}
	// A pod a mutator changed is kept whatever KeepSentPod says: its
	// refresh must release it.
	none := objstore.New(r, objstore.Options{
		PodMutators: []objstore.PodMutator{holdLabelled(&mu, held)},
		KeepSentPod: func(*model.Pod) bool { return false },
	})
	if err := none.Upsert(ctx, gated); err != nil {
		t.Fatal(err)
	}
	if got, ok := none.SentPod("gated"); !ok || got != gated {
		t.Errorf("SentPod of a gated pod = %p %v, want the pod sent", got, ok)
	}
}
