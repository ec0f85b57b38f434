package objstore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
)

var errRefused = errors.New("refused")

// admitted holds the pods applied, and records each admission step in
// the order it ran, with the gates the pod had then.
type admitted struct {
	mu    sync.Mutex
	pods  map[string]*model.Pod
	steps []string
}

// registry has a pod kind whose admission runs two steps: "default" sets
// the scheduler name, "refuse" refuses the pods labelled refuse.
func (a *admitted) registry(t *testing.T) *objstore.Registry {
	t.Helper()
	step := func(name string, f func(*model.Pod) (*model.Pod, error)) objstore.Admitter[*model.Pod] {
		return func(p *model.Pod) (*model.Pod, error) {
			a.mu.Lock()
			a.steps = append(a.steps, name+" "+p.Name+" gates="+strings.Join(p.SchedulingGates, ","))
			a.mu.Unlock()
			return f(p)
		}
	}
	r := objstore.NewRegistry()
	err := objstore.Register(r, objstore.Type[*model.Pod]{
		Kind: objstore.KindPod,
		Ref:  func(p *model.Pod) objstore.Ref { return objstore.Ref{Namespace: p.Namespace, Name: p.Name, UID: p.UID} },
		Admit: []objstore.Admitter[*model.Pod]{
			step("default", func(p *model.Pod) (*model.Pod, error) {
				cp := *p
				cp.SchedulerName = model.DefaultSchedulerName
				return &cp, nil
			}),
			step("refuse", func(p *model.Pod) (*model.Pod, error) {
				if _, ok := p.Labels["refuse"]; ok {
					return nil, errRefused
				}
				return p, nil
			}),
		},
		Upsert: func(_ context.Context, p *model.Pod) error {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.pods[p.UID] = p
			return nil
		},
		Delete: func(context.Context, objstore.Ref) error { return nil },
		List:   func() []*model.Pod { return nil },
		Get: func(ref objstore.Ref) (*model.Pod, bool) {
			a.mu.Lock()
			defer a.mu.Unlock()
			p, ok := a.pods[ref.UID]
			return p, ok
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (a *admitted) take() (map[string]*model.Pod, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	pods, steps := a.pods, a.steps
	a.pods, a.steps = map[string]*model.Pod{}, nil
	return pods, steps
}

// A kind's admission runs in the Store after the mutators and before the
// kind's Upsert, its steps in order; a refusal is the Upsert's error and
// nothing is applied, kept as sent or published. Store.Admit runs the
// same stages without applying; the Registry alone admits too.
func TestAdmission(t *testing.T) {
	ctx := t.Context()
	a := &admitted{pods: map[string]*model.Pod{}}
	r := a.registry(t)
	var mu sync.Mutex
	s := objstore.New(r, objstore.Options{PodMutators: []objstore.PodMutator{holdLabelled(&mu, map[string]bool{"u1": true, "u2": true})}})
	var events []string
	sub := s.Subscribe(ctx, "test", func(_ context.Context, ev objstore.Event) {
		if p, ok := ev.New.(*model.Pod); ok {
			events = append(events, p.Name+" "+p.SchedulerName)
		}
	})
	ok := &model.Pod{UID: "u1", Namespace: "ns", Name: "ok", Labels: map[string]string{"queue": "q"}}
	bad := &model.Pod{UID: "u2", Namespace: "ns", Name: "bad", Labels: map[string]string{"queue": "q", "refuse": ""}}

	if err := s.Upsert(ctx, ok); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, bad); !errors.Is(err, errRefused) {
		t.Errorf("Upsert of a refused pod: %v, want its admission's error", err)
	}
	if err := sub.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	pods, steps := a.take()
	wantSteps := []string{"default ok gates=" + gate, "refuse ok gates=" + gate, "default bad gates=" + gate, "refuse bad gates=" + gate}
	if diff := cmp.Diff(wantSteps, steps); diff != "" {
		t.Errorf("admission steps, after the mutator (-want +got):\n%s", diff)
	}
	if got := pods["u1"]; got == nil || got.SchedulerName != model.DefaultSchedulerName || ok.SchedulerName != "" {
		t.Errorf("applied %+v: want the admitted copy, the pod sent unchanged", got)
	}
	if _, applied := pods["u2"]; applied {
		t.Error("a refused pod was applied")
	}
	if _, kept := s.SentPod("u2"); kept {
		t.Error("a refused pod was kept as sent")
	}
	if diff := cmp.Diff([]string{"ok " + model.DefaultSchedulerName}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	got, err := s.Admit(ok)
	if err != nil {
		t.Fatal(err)
	}
	if p := got.(*model.Pod); p.SchedulerName != model.DefaultSchedulerName || !slices.Contains(p.SchedulingGates, gate) {
		t.Errorf("Store.Admit = %+v, want the pod mutated and admitted", p)
	}
	if _, err := s.Admit(bad); !errors.Is(err, errRefused) {
		t.Errorf("Store.Admit of a refused pod: %v", err)
	}
	if pods, _ := a.take(); len(pods) != 0 {
		t.Errorf("Store.Admit applied %v", pods)
	}

	// Without a Store: admission, then the kind's Upsert; no mutators.
	plain := &model.Pod{UID: "u3", Namespace: "ns", Name: "plain"}
	if err := r.Upsert(ctx, plain); err != nil {
		t.Fatal(err)
	}
	if err := r.Upsert(ctx, &model.Pod{UID: "u4", Namespace: "ns", Name: "bad", Labels: map[string]string{"refuse": ""}}); !errors.Is(err, errRefused) {
		t.Errorf("Registry.Upsert of a refused pod: %v", err)
	}
	pods, steps = a.take()
	if p := pods["u3"]; p == nil || p.SchedulerName != model.DefaultSchedulerName || len(pods) != 1 {
		t.Errorf("Registry.Upsert applied %v, want plain admitted only", pods)
	}
	if diff := cmp.Diff([]string{"default plain gates=", "refuse plain gates=", "default bad gates=", "refuse bad gates="}, steps); diff != "" {
		t.Errorf("Registry.Upsert's admission steps (-want +got):\n%s", diff)
	}
}
