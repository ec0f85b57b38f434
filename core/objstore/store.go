package objstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/berthsched/berth/core/model"
)

// NodeMutator returns the node the scheduler is to see for node as sent:
// node itself, or a changed copy (node is never modified).
type NodeMutator func(node *model.Node) *model.Node

// PodMutator returns the pod the scheduler is to see for pod as sent: pod
// itself, or a changed copy (pod is never modified). Pod upserts are the
// hot path: a mutator that does not apply must return pod as it is, at the
// cost of a label lookup, without allocating.
type PodMutator func(pod *model.Pod) *model.Pod

// Event is one applied change: Old is nil for an object added, New nil
// for one deleted. Nodes are as mutated, pods as admitted. Old is set
// for nodes and pods replaced; a deletion's Old is the object deleted
// (for kinds without a Get, nil).
type Event struct {
	Kind     Kind
	Old, New any
}

// Options configure a Store.
type Options struct {
	// NodeMutators run in order on every node upserted or refreshed.
	NodeMutators []NodeMutator
	// PodMutators run in order on every pod upserted or refreshed
	// (RefreshPod); the store keeps each pod as sent for RefreshPod.
	PodMutators []PodMutator
	// KeepSentPod, when set, says which pods as sent are worth keeping:
	// only those a mutator may change, now or later. A pod it refuses is
	// not kept (RefreshPod applies nothing to it, SentPod does not know
	// it), which saves a copy of every pod the mutators never touch. Nil
	// keeps every pod.
	KeepSentPod func(pod *model.Pod) bool
}

// Store applies changes through a Registry. It is safe for concurrent use.
type Store struct {
	kinds       *Registry
	mutators    []NodeMutator
	podMutators []PodMutator
	keepSent    func(pod *model.Pod) bool

	// mu serializes the changes applied and guards the fields below.
	mu    sync.Mutex
	nodes map[string]nodeEntry
	// pods are the pods applied, as admitted, by uid; byNode indexes the
	// bound ones by node name.
	pods   map[string]*model.Pod
	byNode map[string]map[string]*model.Pod
	// sent are the pods as sent, by uid, with whether a mutator changed
	// them; kept only with PodMutators.
	sent map[string]sentPod
	subs []*Subscription
}

type sentPod struct {
	pod     *model.Pod
	mutated bool
}

type nodeEntry struct {
	sent, applied *model.Node
}

// New returns a Store applying changes through kinds.
func New(kinds *Registry, opts Options) *Store {
	return &Store{
		kinds: kinds, mutators: slices.Clone(opts.NodeMutators), podMutators: slices.Clone(opts.PodMutators),
		keepSent: opts.KeepSentPod,
		nodes:    map[string]nodeEntry{}, pods: map[string]*model.Pod{}, byNode: map[string]map[string]*model.Pod{},
		sent: map[string]sentPod{},
	}
}

// Kinds is the registry the store applies through.
func (s *Store) Kinds() *Registry { return s.kinds }

// Upsert applies obj in stages: a node or a pod through the mutators
// (in order), then its kind's admission (Type.Admit, which may refuse
// it: nothing is then applied nor published), then its kind's Upsert;
// the by-node index follows the pod, and the change is published.
func (s *Store) Upsert(ctx context.Context, obj any) error {
	ref, ok := s.kinds.RefOf(obj)
	if !ok {
		return fmt.Errorf("upsert %T: %w", obj, ErrUnknownKind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ref.Kind == KindNode {
		if n, _ := obj.(*model.Node); n != nil {
			return s.applyNodeLocked(ctx, n)
		}
	}
	if ref.Kind == KindPod && len(s.podMutators) > 0 {
		if p, _ := obj.(*model.Pod); p != nil {
			return s.applyPodLocked(ctx, ref, p)
		}
	}
	return s.upsertLocked(ctx, ref, obj)
}

// Admit returns obj as Upsert would apply it (through the mutators and
// its kind's admission), or the error Upsert would refuse it with, applying
// and publishing nothing: a caller that must do something first (delete
// another pod of the same name) checks the object here.
func (s *Store) Admit(obj any) (any, error) {
	ref, ok := s.kinds.RefOf(obj)
	if !ok {
		return nil, fmt.Errorf("admit %T: %w", obj, ErrUnknownKind)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, _ := obj.(*model.Node); ref.Kind == KindNode && n != nil {
		obj = s.mutateNode(n)
	} else if p, _ := obj.(*model.Pod); ref.Kind == KindPod && p != nil {
		obj = s.mutatePod(p)
	}
	return s.kinds.Admit(obj)
}

func (s *Store) mutateNode(n *model.Node) *model.Node {
	for _, m := range s.mutators {
		n = m(n)
	}
	return n
}

func (s *Store) mutatePod(p *model.Pod) *model.Pod {
	for _, m := range s.podMutators {
		p = m(p)
	}
	return p
}

// applyPodLocked upserts a pod as the mutators make it, and keeps it as
// sent.
func (s *Store) applyPodLocked(ctx context.Context, ref Ref, sent *model.Pod) error {
	applied := s.mutatePod(sent)
	if err := s.upsertLocked(ctx, ref, applied); err != nil {
		return err
	}
	if s.keepSent != nil && applied == sent && !s.keepSent(sent) {
		delete(s.sent, sent.UID) // an earlier version may have been kept
		return nil
	}
	s.sent[sent.UID] = sentPod{pod: sent, mutated: applied != sent}
	return nil
}

// upsertLocked admits obj and applies it through its kind, then publishes
// it.
func (s *Store) upsertLocked(ctx context.Context, ref Ref, obj any) error {
	admitted, err := s.kinds.Admit(obj)
	if err != nil {
		return err
	}
	old := s.heldLocked(ref)
	if err := s.kinds.apply(ctx, admitted); err != nil {
		return err
	}
	cur := admitted
	if got, ok := s.kinds.get(ref); ok {
		cur = got
	}
	if ref.Kind == KindPod {
		oldPod, _ := old.(*model.Pod)
		curPod, _ := cur.(*model.Pod)
		s.indexLocked(oldPod, curPod)
	}
	s.publishLocked(Event{Kind: ref.Kind, Old: old, New: cur})
	return nil
}

// heldLocked is the object ref names as the store last published it, for
// the kinds it keeps (nodes and pods); nil otherwise.
func (s *Store) heldLocked(ref Ref) any {
	switch ref.Kind {
	case KindNode:
		if e, ok := s.nodes[ref.Name]; ok {
			return e.applied
		}
	case KindPod:
		if p, ok := s.pods[ref.UID]; ok {
			return p
		}
	}
	return nil
}

func (s *Store) applyNodeLocked(ctx context.Context, sent *model.Node) error {
	admitted, err := s.kinds.Admit(s.mutateNode(sent))
	if err != nil {
		return err
	}
	applied := admitted.(*model.Node)
	if err := s.kinds.apply(ctx, applied); err != nil {
		return err
	}
	var old any
	if e, ok := s.nodes[sent.Name]; ok {
		old = e.applied
	}
	s.nodes[sent.Name] = nodeEntry{sent: sent, applied: applied}
	s.publishLocked(Event{Kind: KindNode, Old: old, New: applied})
	return nil
}

// Refresh applies a node again as it was sent, through the mutators and
// its kind's admission: one of the mutators answers differently now. A node not held is no error.
func (s *Store) Refresh(ctx context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.nodes[name]
	if !ok {
		return nil
	}
	return s.applyNodeLocked(ctx, e.sent)
}

// RefreshPod applies a pod again as it was sent, through the pod
// mutators and the pods' admission: a mutator answers differently now (an admission
// controller's gate lifted). Nothing is applied when no mutator changes
// the pod now nor did before; a pod not held is no error. ref names the
// pod by uid, or by namespace and name.
func (s *Store) RefreshPod(ctx context.Context, ref Ref) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sentLocked(ref)
	if !ok {
		return nil
	}
	applied := s.mutatePod(e.pod)
	if applied == e.pod && !e.mutated {
		return nil
	}
	ref = Ref{Kind: KindPod, Namespace: e.pod.Namespace, Name: e.pod.Name, UID: e.pod.UID}
	if err := s.upsertLocked(ctx, ref, applied); err != nil {
		return err
	}
	s.sent[e.pod.UID] = sentPod{pod: e.pod, mutated: applied != e.pod}
	return nil
}

func (s *Store) sentLocked(ref Ref) (sentPod, bool) {
	if ref.UID != "" {
		e, ok := s.sent[ref.UID]
		return e, ok
	}
	for _, e := range s.sent {
		if e.pod.Namespace == ref.Namespace && e.pod.Name == ref.Name {
			return e, true
		}
	}
	return sentPod{}, false
}

// SentPod returns a pod as last sent, before the pod mutators; false
// when the store holds no such pod or has no pod mutators.
func (s *Store) SentPod(uid string) (*model.Pod, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sent[uid]
	return e.pod, ok
}

// Delete removes the object ref names, then publishes the change. A pod's
// ref without a uid names the pod the store holds under its name.
func (s *Store) Delete(ctx context.Context, ref Ref) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ref.Kind == KindPod && ref.UID == "" {
		for _, p := range s.pods {
			if p.Namespace == ref.Namespace && p.Name == ref.Name {
				ref.UID = p.UID
				break
			}
		}
	}
	old := s.heldLocked(ref)
	if old == nil {
		// A kind the store keeps no copy of: the deletion's event carries
		// what the kind held (its Get), so that subscribers know which
		// object went (the held pods of a Workload deleted).
		old, _ = s.kinds.get(ref)
	}
	if err := s.kinds.Delete(ctx, ref); err != nil {
		return err
	}
	switch ref.Kind {
	case KindNode:
		delete(s.nodes, ref.Name)
	case KindPod:
		if p, ok := old.(*model.Pod); ok {
			s.indexLocked(p, nil)
		}
		delete(s.sent, ref.UID)
	}
	s.publishLocked(Event{Kind: ref.Kind, Old: old})
	return nil
}

// List lists the objects of kind held, as their kind lists them; nodes
// as the store holds them (mutated), sorted by name, so that a resync
// reads names here instead of making the kind copy every node's usage.
func (s *Store) List(kind Kind) ([]any, error) {
	if kind != KindNode {
		return s.kinds.List(kind)
	}
	s.mu.Lock()
	names := slices.Sorted(maps.Keys(s.nodes))
	out := make([]any, len(names))
	for i, name := range names {
		out[i] = s.nodes[name].applied
	}
	s.mu.Unlock()
	return out, nil
}

// indexLocked moves a pod from old's place in the index to cur's; either
// may be nil.
func (s *Store) indexLocked(old, cur *model.Pod) {
	if old != nil {
		delete(s.pods, old.UID)
		if on := s.byNode[old.NodeName]; on != nil {
			delete(on, old.UID)
			if len(on) == 0 {
				delete(s.byNode, old.NodeName)
			}
		}
	}
	if cur == nil {
		return
	}
	s.pods[cur.UID] = cur
	if cur.NodeName == "" {
		return
	}
	on := s.byNode[cur.NodeName]
	if on == nil {
		on = map[string]*model.Pod{}
		s.byNode[cur.NodeName] = on
	}
	on[cur.UID] = cur
}

// Node returns a node as last applied (mutated).
func (s *Store) Node(name string) (*model.Node, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.nodes[name]
	return e.applied, ok
}

// PodsOn lists the pods applied bound to node, by namespace and name, as
// they were admitted when last applied (the scheduler's read side has
// what changed since: an eviction, a bind undone).
func (s *Store) PodsOn(node string) []*model.Pod {
	s.mu.Lock()
	out := slices.Collect(maps.Values(s.byNode[node]))
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b *model.Pod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}
