package scheduler

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// labelMetadataName is the label the Kubernetes API server puts on every
// namespace, so that namespaceSelectors can name namespaces.
const labelMetadataName = "kubernetes.io/metadata.name"

func objectEvent(r framework.EventResource, a framework.ActionType, label string) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: r, ActionType: a, Label: label}
}

// forgetRecord forgets what the scheduler learned of a pod bound or
// deleted.
func (s *Scheduler) forgetRecord(uid string) {
	s.state.forgetRecord(uid)
	s.attemptsMu.Lock()
	delete(s.bindAttempts, uid)
	s.attemptsMu.Unlock()
}

// setPriorityClass adds or replaces a PriorityClass in the pods'
// admission (core/podadmission) and raises its event. Classes apply to
// pods admitted afterwards; pods keep the priority they were admitted
// with.
func (s *Scheduler) setPriorityClass(ctx context.Context, pc *model.PriorityClass) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	known, err := s.admission.SetClass(pc)
	if err != nil {
		return err
	}
	action, label := framework.ActionAdd, "PriorityClassAdd"
	if known {
		action, label = framework.ActionUpdateOther, "PriorityClassUpdate"
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, objectEvent(framework.EventPriorityClass, action, label), nil, pc, nil)
	return nil
}

// deletePriorityClass removes a user PriorityClass.
func (s *Scheduler) deletePriorityClass(ctx context.Context, name string) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	pc, known := s.admission.DeleteClass(name)
	if !known {
		return fmt.Errorf("delete PriorityClass %s: %w", name, ErrNotFound)
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, objectEvent(framework.EventPriorityClass, framework.ActionDelete, "PriorityClassDelete"), pc, nil, nil)
	return nil
}

// namespaces is the set of namespaces, implementing
// framework.NamespaceLister. It is safe for concurrent use.
type namespaces struct {
	mu     sync.RWMutex
	labels map[string]map[string]string
	// implicit names namespaces only known through their pods.
	implicit map[string]bool
}

var _ framework.NamespaceLister = (*namespaces)(nil)

func newNamespaces() *namespaces {
	return &namespaces{labels: map[string]map[string]string{}, implicit: map[string]bool{}}
}

func (n *namespaces) NamespaceLabels(name string) (map[string]string, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	l, ok := n.labels[name]
	return l, ok
}

func (n *namespaces) NamespacesMatching(sel model.Selector) []string {
	n.mu.RLock()
	defer n.mu.RUnlock()
	var out []string
	for name, l := range n.labels {
		if sel.Matches(l) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// set stores a namespace and reports whether it was known.
func (n *namespaces) set(ns *model.Namespace, implicit bool) bool {
	l := maps.Clone(ns.Labels)
	if l == nil {
		l = map[string]string{}
	}
	l[labelMetadataName] = ns.Name
	n.mu.Lock()
	defer n.mu.Unlock()
	_, known := n.labels[ns.Name]
	if implicit && known {
		return true
	}
	n.labels[ns.Name] = l
	n.implicit[ns.Name] = implicit
	return known
}

// sent lists the namespaces not only implied by pods, sorted by name.
func (n *namespaces) sent() []*model.Namespace {
	n.mu.RLock()
	defer n.mu.RUnlock()
	var out []*model.Namespace
	for name, l := range n.labels {
		if !n.implicit[name] {
			out = append(out, &model.Namespace{Name: name, Labels: maps.Clone(l)})
		}
	}
	slices.SortFunc(out, func(a, b *model.Namespace) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func (n *namespaces) delete(name string) (map[string]string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l, ok := n.labels[name]
	delete(n.labels, name)
	delete(n.implicit, name)
	return l, ok
}

// setNamespace adds or replaces a namespace (its labels serve
// namespaceSelectors). Every namespace carries the
// kubernetes.io/metadata.name label, as in Kubernetes.
func (s *Scheduler) setNamespace(ctx context.Context, ns *model.Namespace) error {
	if ns == nil || ns.Name == "" {
		return fmt.Errorf("set namespace: %w", ErrInvalid)
	}
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	action, label := framework.ActionAdd, "NamespaceAdd"
	if s.state.namespaces.set(ns, false) {
		action, label = framework.ActionUpdateOther, "NamespaceUpdate"
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, objectEvent(framework.EventNamespace, action, label), nil, ns, nil)
	return nil
}

// deleteNamespace removes a namespace.
func (s *Scheduler) deleteNamespace(ctx context.Context, name string) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	l, ok := s.state.namespaces.delete(name)
	if !ok {
		return fmt.Errorf("delete namespace %s: %w", name, ErrNotFound)
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, objectEvent(framework.EventNamespace, framework.ActionDelete, "NamespaceDelete"), &model.Namespace{Name: name, Labels: l}, nil, nil)
	return nil
}

// ensureNamespace registers the namespace of a pod the caller did not
// declare, with only its name label.
func (s *Scheduler) ensureNamespace(ctx context.Context, name string) {
	if _, ok := s.state.namespaces.NamespaceLabels(name); ok {
		return
	}
	ns := &model.Namespace{Name: name}
	s.state.namespaces.set(ns, true)
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, objectEvent(framework.EventNamespace, framework.ActionAdd, "NamespaceAdd"), nil, ns, nil)
}
