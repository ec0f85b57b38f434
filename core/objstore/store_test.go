package objstore_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
)

// fake holds nodes and pods as a scheduler would, admitting pods by
// defaulting their scheduler name and refusing nameless nodes.
type fake struct {
	mu    sync.Mutex
	nodes map[string]*model.Node
	pods  map[string]*model.Pod
}

func newFake(t *testing.T) (*fake, *objstore.Registry) {
	f := &fake{nodes: map[string]*model.Node{}, pods: map[string]*model.Pod{}}
	r := objstore.NewRegistry()
	err := errors.Join(
		objstore.Register(r, objstore.Type[*model.Node]{
			Kind: objstore.KindNode,
			Ref:  func(n *model.Node) objstore.Ref { return objstore.Ref{Name: n.Name} },
			Upsert: func(_ context.Context, n *model.Node) error {
				if n.Name == "" {
					return errors.New("name: required")
				}
				f.mu.Lock()
				defer f.mu.Unlock()
				f.nodes[n.Name] = n
				return nil
			},
			Delete: func(_ context.Context, ref objstore.Ref) error {
				f.mu.Lock()
				defer f.mu.Unlock()
				delete(f.nodes, ref.Name)
				return nil
			},
			List: func() []*model.Node { return nil },
		}),
		objstore.Register(r, objstore.Type[*model.Pod]{
			Kind: objstore.KindPod,
			Ref:  func(p *model.Pod) objstore.Ref { return objstore.Ref{Namespace: p.Namespace, Name: p.Name, UID: p.UID} },
			Upsert: func(_ context.Context, p *model.Pod) error {
				cp := *p
				cp.SchedulerName = model.DefaultSchedulerName
				f.mu.Lock()
				defer f.mu.Unlock()
				f.pods[p.UID] = &cp
				return nil
			},
			Delete: func(_ context.Context, ref objstore.Ref) error {
				f.mu.Lock()
				defer f.mu.Unlock()
				delete(f.pods, ref.UID)
				return nil
			},
			List: func() []*model.Pod { return nil },
			Get: func(ref objstore.Ref) (*model.Pod, bool) {
				f.mu.Lock()
				defer f.mu.Unlock()
				p, ok := f.pods[ref.UID]
				return p, ok
			},
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return f, r
}

func TestRegisterRefusesDuplicates(t *testing.T) {
	_, r := newFake(t)
	dupKind := objstore.Type[*model.PriorityClass]{
		Kind: objstore.KindNode, Ref: func(*model.PriorityClass) objstore.Ref { return objstore.Ref{} },
		Upsert: func(context.Context, *model.PriorityClass) error { return nil },
		Delete: func(context.Context, objstore.Ref) error { return nil },
		List:   func() []*model.PriorityClass { return nil },
	}
	if err := objstore.Register(r, dupKind); err == nil {
		t.Error("a second Node kind was registered")
	}
	dupType := objstore.Type[*model.Node]{
		Kind: "Machine", Ref: func(*model.Node) objstore.Ref { return objstore.Ref{} },
		Upsert: func(context.Context, *model.Node) error { return nil },
		Delete: func(context.Context, objstore.Ref) error { return nil },
		List:   func() []*model.Node { return nil },
	}
	if err := objstore.Register(r, dupType); err == nil {
		t.Error("a second kind of *model.Node was registered")
	}
	if err := objstore.Register(r, objstore.Type[*model.Namespace]{Kind: objstore.KindNamespace}); err == nil {
		t.Error("a kind without its functions was registered")
	}
	if got, want := r.Kinds(), []objstore.Kind{objstore.KindNode, objstore.KindPod}; !slices.Equal(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
}

func TestUnknownKind(t *testing.T) {
	_, r := newFake(t)
	s := objstore.New(r, objstore.Options{})
	if err := s.Upsert(t.Context(), &model.PriorityClass{Name: "x"}); !errors.Is(err, objstore.ErrUnknownKind) {
		t.Errorf("upsert of an unregistered type: %v, want ErrUnknownKind", err)
	}
	if err := s.Delete(t.Context(), objstore.Ref{Kind: "Gadget", Name: "x"}); !errors.Is(err, objstore.ErrUnknownKind) {
		t.Errorf("delete of an unregistered kind: %v, want ErrUnknownKind", err)
	}
}

// TestNodeMutatorsInOrder: mutators run in the order given on the node as
// sent, the node sent is kept unchanged, and Refresh applies it again
// with what the mutators answer now.
func TestNodeMutatorsInOrder(t *testing.T) {
	f, r := newFake(t)
	pressure := false
	add := func(key string) objstore.NodeMutator {
		return func(n *model.Node) *model.Node {
			cp := *n
			cp.Taints = append(slices.Clone(n.Taints), model.Taint{Key: key, Effect: model.TaintEffectNoSchedule})
			return &cp
		}
	}
	s := objstore.New(r, objstore.Options{NodeMutators: []objstore.NodeMutator{
		add("first"),
		func(n *model.Node) *model.Node {
			if !pressure {
				return n
			}
			return add("second")(n)
		},
	}})
	sent := &model.Node{Name: "n1"}
	if err := s.Upsert(t.Context(), sent); err != nil {
		t.Fatal(err)
	}
	keys := func() []string {
		var out []string
		for _, tt := range f.nodes["n1"].Taints {
			out = append(out, tt.Key)
		}
		return out
	}
	if d := cmp.Diff([]string{"first"}, keys()); d != "" {
		t.Errorf("applied (-want +got):\n%s", d)
	}
	pressure = true
	if err := s.Refresh(t.Context(), "n1"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"first", "second"}, keys()); d != "" {
		t.Errorf("refreshed (-want +got):\n%s", d)
	}
	if len(sent.Taints) != 0 {
		t.Errorf("the node sent was changed: %v", sent.Taints)
	}
	if err := s.Refresh(t.Context(), "gone"); err != nil {
		t.Errorf("refresh of a node not held: %v", err)
	}
}

// TestEventsAndIndex: a subscriber sees every change in order, pods as
// admitted and nodes as mutated; the by-node index follows binds, moves
// and deletions; a refused change publishes nothing.
func TestEventsAndIndex(t *testing.T) {
	_, r := newFake(t)
	s := objstore.New(r, objstore.Options{})
	var mu sync.Mutex
	var got []string
	sub := s.Subscribe(t.Context(), "test", func(_ context.Context, ev objstore.Event) {
		mu.Lock()
		defer mu.Unlock()
		line := string(ev.Kind)
		switch {
		case ev.Old == nil:
			line += " added"
		case ev.New == nil:
			line += " deleted"
		default:
			line += " updated"
		}
		if p, ok := ev.New.(*model.Pod); ok {
			line += " on " + p.NodeName + " by " + p.SchedulerName
		}
		got = append(got, line)
	})
	ctx := t.Context()
	pod := func(name, node string) *model.Pod {
		return &model.Pod{UID: "u-" + name, Namespace: "d", Name: name, NodeName: node}
	}
	steps := []error{
		s.Upsert(ctx, &model.Node{Name: "n1"}),
		s.Upsert(ctx, &model.Node{}), // refused
		s.Upsert(ctx, pod("b", "n1")),
		s.Upsert(ctx, pod("a", "n1")),
		s.Upsert(ctx, pod("c", "")),
		s.Upsert(ctx, pod("c", "n2")),
		s.Upsert(ctx, pod("b", "n2")),
		s.Delete(ctx, objstore.Ref{Kind: objstore.KindPod, Namespace: "d", Name: "a"}), // by name
	}
	for i, err := range steps {
		if (err != nil) != (i == 1) {
			t.Errorf("step %d: %v", i, err)
		}
	}
	if err := sub.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Node added",
		"Pod added on n1 by default-scheduler",
		"Pod added on n1 by default-scheduler",
		"Pod added on  by default-scheduler",
		"Pod updated on n2 by default-scheduler",
		"Pod updated on n2 by default-scheduler",
		"Pod deleted",
	}
	mu.Lock()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	mu.Unlock()
	names := func(node string) []string {
		var out []string
		for _, p := range s.PodsOn(node) {
			out = append(out, p.Name)
		}
		return out
	}
	if d := cmp.Diff([]string(nil), names("n1")); d != "" {
		t.Errorf("pods on n1 (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"b", "c"}, names("n2")); d != "" {
		t.Errorf("pods on n2 (-want +got):\n%s", d)
	}
}

// TestSubscriberOffThePath: a subscriber that blocks does not block the
// changes, and Wait returns once it handled what was published before.
func TestSubscriberOffThePath(t *testing.T) {
	_, r := newFake(t)
	s := objstore.New(r, objstore.Options{})
	release := make(chan struct{})
	var handled []string
	sub := s.Subscribe(t.Context(), "slow", func(_ context.Context, ev objstore.Event) {
		<-release
		handled = append(handled, ev.New.(*model.Node).Name)
	})
	for _, n := range []string{"n1", "n2", "n3"} {
		if err := s.Upsert(t.Context(), &model.Node{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	if err := sub.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"n1", "n2", "n3"}, handled); d != "" {
		t.Errorf("handled (-want +got):\n%s", d)
	}
}

// TestWaitEndsWithContext: Wait on a stuck subscriber returns the
// context's error.
func TestWaitEndsWithContext(t *testing.T) {
	_, r := newFake(t)
	s := objstore.New(r, objstore.Options{})
	block := make(chan struct{})
	defer close(block)
	sub := s.Subscribe(t.Context(), "stuck", func(context.Context, objstore.Event) { <-block })
	if err := s.Upsert(t.Context(), &model.Node{Name: "n1"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := sub.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait: %v, want context.Canceled", err)
	}
}

func TestListNodesIsTheStoresOwn(t *testing.T) {
	kinds := objstore.NewRegistry()
	held := map[string]*model.Node{}
	if err := objstore.Register(kinds, objstore.Type[*model.Node]{
		Kind:   objstore.KindNode,
		Ref:    func(n *model.Node) objstore.Ref { return objstore.Ref{Name: n.Name} },
		Upsert: func(_ context.Context, n *model.Node) error { held[n.Name] = n; return nil },
		Delete: func(_ context.Context, ref objstore.Ref) error { delete(held, ref.Name); return nil },
		List:   func() []*model.Node { t.Error("the kind's List was called"); return nil },
	}); err != nil {
		t.Fatal(err)
	}
	taint := func(n *model.Node) *model.Node {
		c := *n
		c.Taints = append(slices.Clone(n.Taints), model.Taint{Key: "mutated", Effect: model.TaintEffectNoSchedule})
		return &c
	}
	st := objstore.New(kinds, objstore.Options{NodeMutators: []objstore.NodeMutator{taint}})
	for _, name := range []string{"n2", "n1", "n3"} {
		if err := st.Upsert(t.Context(), &model.Node{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Delete(t.Context(), objstore.Ref{Kind: objstore.KindNode, Name: "n3"}); err != nil {
		t.Fatal(err)
	}
	got, err := st.List(objstore.KindNode)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range got {
		n := o.(*model.Node)
		if len(n.Taints) != 1 {
			t.Errorf("%s listed as sent, not as applied: %v", n.Name, n.Taints)
		}
		names = append(names, n.Name)
	}
	if !slices.Equal(names, []string{"n1", "n2"}) {
		t.Errorf("listed %v, want [n1 n2]", names)
	}
}

// thing is an object of a kind the store keeps no copy of.
type thing struct{ name string }

// TestDeletionEventCarriesTheObject: for a kind the store keeps no copy
// of, a deletion's event carries what the kind's Get held, so that a
// subscriber knows which object went.
func TestDeletionEventCarriesTheObject(t *testing.T) {
	held := map[string]*thing{}
	r := objstore.NewRegistry()
	if err := objstore.Register(r, objstore.Type[*thing]{
		Kind: "Thing",
		Ref:  func(x *thing) objstore.Ref { return objstore.Ref{Name: x.name} },
		Upsert: func(_ context.Context, x *thing) error {
			held[x.name] = x
			return nil
		},
		Delete: func(_ context.Context, ref objstore.Ref) error {
			delete(held, ref.Name)
			return nil
		},
		List: func() []*thing { return nil },
		Get: func(ref objstore.Ref) (*thing, bool) {
			x, ok := held[ref.Name]
			return x, ok
		},
	}); err != nil {
		t.Fatal(err)
	}
	s := objstore.New(r, objstore.Options{})
	var mu sync.Mutex
	var deleted []any
	sub := s.Subscribe(t.Context(), "test", func(_ context.Context, ev objstore.Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.New == nil {
			deleted = append(deleted, ev.Old)
		}
	})
	ctx := t.Context()
	x := &thing{name: "x"}
	if err := errors.Join(s.Upsert(ctx, x), s.Delete(ctx, objstore.Ref{Kind: "Thing", Name: "x"})); err != nil {
		t.Fatal(err)
	}
	if err := sub.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(deleted) != 1 || deleted[0] != x {
		t.Errorf("deletion events' Old %v, want the thing deleted", deleted)
	}
}
