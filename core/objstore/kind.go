package objstore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// Kind names a kind of object as Kubernetes names it ("Node", "Pod", ...).
type Kind string

// The kinds of core/model; core/dra and core/volume name theirs.
const (
	KindNode                Kind = "Node"
	KindPod                 Kind = "Pod"
	KindPriorityClass       Kind = "PriorityClass"
	KindPodDisruptionBudget Kind = "PodDisruptionBudget"
	KindNamespace           Kind = "Namespace"
	KindPodGroup            Kind = "PodGroup"
	KindCompositePodGroup   Kind = "CompositePodGroup"
)

// Ref names one object: its kind, its namespace (namespaced kinds only)
// and name, and for a pod its uid when it is known.
type Ref struct {
	Kind      Kind
	Namespace string
	Name      string
	UID       string
}

// String is the object's kind and key ("Pod ns/name", "Node n1").
func (r Ref) String() string {
	if r.Namespace == "" {
		return string(r.Kind) + " " + r.Name
	}
	return string(r.Kind) + " " + r.Namespace + "/" + r.Name
}

// ErrUnknownKind is returned for an object or a reference of a kind no Type
// was registered for.
var ErrUnknownKind = errors.New("unknown kind")

// Admitter is one step of a kind's admission: it returns the object to
// apply for obj (obj itself, or a defaulted copy: obj is never modified),
// or an error refusing it. It changes nothing held: the kind's Upsert,
// which follows, does. The error reaches the caller as it is (a Sync's
// acknowledgement names it for the object).
type Admitter[T any] func(obj T) (T, error)

// Type describes one kind to a Registry, typed by the Go type T of its
// objects (a pointer type: *model.Node, *resourceapi.ResourceClaim, ...).
type Type[T any] struct {
	Kind Kind
	// Ref names an object.
	Ref func(T) Ref
	// Admit is the kind's admission, run in order on every object
	// upserted before its Upsert (kube's API defaulting and admission
	// plugins: berthd's pods get their scheduler name and priority here);
	// the first refusal ends it. Most kinds have none.
	Admit []Admitter[T]
	// Upsert adds an object as admitted, or replaces the one of its name.
	Upsert func(ctx context.Context, obj T) error
	// Delete removes the object ref names.
	Delete func(ctx context.Context, ref Ref) error
	// List lists the objects held, for resyncs.
	List func() []T
	// Get, if set, returns the object held as admitted (its defaults
	// applied); the Store's events carry it rather than the one sent.
	Get func(ref Ref) (T, bool)
}

// entry is a Type with its objects seen as any.
type entry interface {
	kind() Kind
	ref(obj any) Ref
	admit(obj any) (any, error)
	upsert(ctx context.Context, obj any) error
	delete(ctx context.Context, ref Ref) error
	list() []any
	get(ref Ref) (any, bool)
}

type typed[T any] struct{ t Type[T] }

func (e typed[T]) kind() Kind                                { return e.t.Kind }
func (e typed[T]) ref(obj any) Ref                           { return e.t.Ref(obj.(T)) }
func (e typed[T]) upsert(ctx context.Context, obj any) error { return e.t.Upsert(ctx, obj.(T)) }

func (e typed[T]) admit(obj any) (any, error) {
	if len(e.t.Admit) == 0 {
		return obj, nil
	}
	cur := obj.(T)
	for _, a := range e.t.Admit {
		var err error
		if cur, err = a(cur); err != nil {
			return nil, err
		}
	}
	return cur, nil
}
func (e typed[T]) delete(ctx context.Context, ref Ref) error { return e.t.Delete(ctx, ref) }
func (e typed[T]) get(ref Ref) (any, bool) {
	if e.t.Get == nil {
		return nil, false
	}
	return e.t.Get(ref)
}

func (e typed[T]) list() []any {
	objs := e.t.List()
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

// Registry is the set of kinds, found by name or by the Go type of an
// object. It is built once, then only read: it is safe for concurrent
// use once built.
type Registry struct {
	byKind map[Kind]entry
	byType map[reflect.Type]Kind
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byKind: map[Kind]entry{}, byType: map[reflect.Type]Kind{}}
}

// Register adds a kind. A kind or a Go type registered already, or a Type
// missing one of its functions, is refused.
func Register[T any](r *Registry, t Type[T]) error {
	goType := reflect.TypeFor[T]()
	switch {
	case t.Kind == "":
		return fmt.Errorf("register %v: the kind has no name", goType)
	case t.Ref == nil || t.Upsert == nil || t.Delete == nil || t.List == nil:
		return fmt.Errorf("register %s: Ref, Upsert, Delete and List are required", t.Kind)
	}
	if _, dup := r.byKind[t.Kind]; dup {
		return fmt.Errorf("register %s: the kind is registered already", t.Kind)
	}
	if k, dup := r.byType[goType]; dup {
		return fmt.Errorf("register %s: %v is kind %s's already", t.Kind, goType, k)
	}
	r.byKind[t.Kind] = typed[T]{t}
	r.byType[goType] = t.Kind
	return nil
}

// Wrap replaces kind's Type by what wrap makes of it (its Upsert or Delete
// routed through rules of the caller's, admitters added to its Admit);
// kind must be registered with objects of type T.
func Wrap[T any](r *Registry, kind Kind, wrap func(Type[T]) Type[T]) error {
	e, ok := r.byKind[kind]
	if !ok {
		return fmt.Errorf("wrap %s: %w", kind, ErrUnknownKind)
	}
	t, ok := e.(typed[T])
	if !ok {
		return fmt.Errorf("wrap %s: its objects are not %v", kind, reflect.TypeFor[T]())
	}
	w := wrap(t.t)
	w.Kind = kind
	r.byKind[kind] = typed[T]{w}
	return nil
}

// Clone returns a copy that may be wrapped without changing r.
func (r *Registry) Clone() *Registry {
	c := NewRegistry()
	for k, e := range r.byKind {
		c.byKind[k] = e
	}
	for t, k := range r.byType {
		c.byType[t] = k
	}
	return c
}

// Kinds lists the kinds registered, by name.
func (r *Registry) Kinds() []Kind {
	out := make([]Kind, 0, len(r.byKind))
	for k := range r.byKind {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// RefOf names obj; false when its type is no kind's.
func (r *Registry) RefOf(obj any) (Ref, bool) {
	e, ok := r.entryOf(obj)
	if !ok {
		return Ref{}, false
	}
	ref := e.ref(obj)
	ref.Kind = e.kind()
	return ref, true
}

func (r *Registry) entryOf(obj any) (entry, bool) {
	k, ok := r.byType[reflect.TypeOf(obj)]
	if !ok {
		return nil, false
	}
	return r.byKind[k], true
}

// Upsert admits obj through its kind's admission, then applies it
// through the kind's Upsert. (A Store runs its mutators between the
// two.)
func (r *Registry) Upsert(ctx context.Context, obj any) error {
	e, ok := r.entryOf(obj)
	if !ok {
		return fmt.Errorf("upsert %T: %w", obj, ErrUnknownKind)
	}
	admitted, err := e.admit(obj)
	if err != nil {
		return err
	}
	return e.upsert(ctx, admitted)
}

// Admit returns obj as its kind's admission would have it applied, or
// the error refusing it, applying nothing.
func (r *Registry) Admit(obj any) (any, error) {
	e, ok := r.entryOf(obj)
	if !ok {
		return nil, fmt.Errorf("admit %T: %w", obj, ErrUnknownKind)
	}
	return e.admit(obj)
}

// apply applies an object admitted already through its kind's Upsert.
func (r *Registry) apply(ctx context.Context, obj any) error {
	e, ok := r.entryOf(obj)
	if !ok {
		return fmt.Errorf("upsert %T: %w", obj, ErrUnknownKind)
	}
	return e.upsert(ctx, obj)
}

// Delete removes the object ref names through its kind's Type.
func (r *Registry) Delete(ctx context.Context, ref Ref) error {
	e, ok := r.byKind[ref.Kind]
	if !ok {
		return fmt.Errorf("delete %s: %w", ref, ErrUnknownKind)
	}
	return e.delete(ctx, ref)
}

// List lists the objects of kind held.
func (r *Registry) List(kind Kind) ([]any, error) {
	e, ok := r.byKind[kind]
	if !ok {
		return nil, fmt.Errorf("list %s: %w", kind, ErrUnknownKind)
	}
	return e.list(), nil
}

// get returns the object ref names as its kind holds it, if the kind says.
func (r *Registry) get(ref Ref) (any, bool) {
	e, ok := r.byKind[ref.Kind]
	if !ok {
		return nil, false
	}
	return e.get(ref)
}
