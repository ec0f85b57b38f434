package gang

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/berthsched/berth/core/model"
)

// ErrSpecImmutable: an upsert changes the spec of a group that exists.
// The error is a *SpecImmutableError.
var ErrSpecImmutable = errors.New("a pod group's spec is immutable")

// SpecImmutableError says which field of a group's spec an upsert tried to
// change.
type SpecImmutableError struct {
	Group, Field string // "ns/name", "min_count", "topology_key", "priority_class_name", "disruption_mode", "parent_composite_pod_group_name" or "min_group_count"
	Old, New     string
}

func (e *SpecImmutableError) Error() string {
	return fmt.Sprintf("pod group %s: %s is %s, cannot change to %s: %v (delete the group and create it again)", e.Group, e.Field, e.Old, e.New, ErrSpecImmutable)
}

// Is makes errors.Is(err, ErrSpecImmutable) hold.
func (e *SpecImmutableError) Is(target error) bool { return target == ErrSpecImmutable }

// ErrorReason is the google.rpc.ErrorInfo reason clients match on.
func (e *SpecImmutableError) ErrorReason() string { return "POD_GROUP_SPEC_IMMUTABLE" }

// ErrorMetadata names the group and the field.
func (e *SpecImmutableError) ErrorMetadata() map[string]string {
	return map[string]string{"pod_group": e.Group, "field": e.Field}
}

// ErrInvalid: a group fails validation (MinCount below 1, no name).
var ErrInvalid = errors.New("invalid pod group")

// Registry holds the groups and the uids of the pods naming each, whether
// the group exists yet or not. It is safe for concurrent use; its lock is a
// leaf.
type Registry struct {
	mu         sync.RWMutex
	groups     map[string]*model.PodGroup
	composites map[string]*model.CompositePodGroup
	members    map[string]map[string]struct{} // group key -> pod uids
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{groups: map[string]*model.PodGroup{}, composites: map[string]*model.CompositePodGroup{}, members: map[string]map[string]struct{}{}}
}

// Validate checks a group's fields.
func Validate(g *model.PodGroup) error {
	switch {
	case g == nil || g.Name == "" || g.Namespace == "":
		return fmt.Errorf("pod group: namespace and name are required: %w", ErrInvalid)
	case g.MinCount < 1:
		return fmt.Errorf("pod group %s: min_count %d: must be at least 1: %w", g.Key(), g.MinCount, ErrInvalid)
	}
	return nil
}

// Set adds a group, or accepts an upsert that leaves its spec as it is. It
// reports whether the group is new.
func (r *Registry) Set(g *model.PodGroup) (created bool, err error) {
	if err := Validate(g); err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.groups[g.Key()]
	if ok {
		if old.MinCount != g.MinCount {
			return false, &SpecImmutableError{Group: g.Key(), Field: "min_count", Old: fmt.Sprint(old.MinCount), New: fmt.Sprint(g.MinCount)}
		}
		if old.TopologyKey != g.TopologyKey {
			return false, &SpecImmutableError{Group: g.Key(), Field: "topology_key", Old: fmt.Sprintf("%q", old.TopologyKey), New: fmt.Sprintf("%q", g.TopologyKey)}
		}
		if old.PriorityClassName != g.PriorityClassName {
			return false, &SpecImmutableError{Group: g.Key(), Field: "priority_class_name", Old: fmt.Sprintf("%q", old.PriorityClassName), New: fmt.Sprintf("%q", g.PriorityClassName)}
		}
		if old.DisruptionAll != g.DisruptionAll {
			return false, &SpecImmutableError{Group: g.Key(), Field: "disruption_mode", Old: disruptionMode(old), New: disruptionMode(g)}
		}
		if old.Parent != g.Parent {
			return false, &SpecImmutableError{Group: g.Key(), Field: "parent_composite_pod_group_name", Old: fmt.Sprintf("%q", old.Parent), New: fmt.Sprintf("%q", g.Parent)}
		}
		return false, nil
	}
	c := *g
	r.groups[g.Key()] = &c
	return true, nil
}

func disruptionMode(g *model.PodGroup) string {
	if g.DisruptionAll {
		return "ALL"
	}
	return "SINGLE"
}

// Delete removes a group; its pods stay, and wait for it again.
func (r *Registry) Delete(namespace, name string) (*model.PodGroup, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := namespace + "/" + name
	g, ok := r.groups[key]
	delete(r.groups, key)
	return g, ok
}

// Get returns the group of key ("namespace/name").
func (r *Registry) Get(key string) (*model.PodGroup, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g, ok := r.groups[key]
	return g, ok
}

// List returns the groups, sorted by key.
func (r *Registry) List() []*model.PodGroup {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*model.PodGroup, 0, len(r.groups))
	for _, g := range r.groups {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *model.PodGroup) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// AddMember records a pod naming a group; a pod of no group is ignored.
func (r *Registry) AddMember(p *model.Pod) {
	key := p.GroupKey()
	if key == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.members[key]
	if m == nil {
		m = map[string]struct{}{}
		r.members[key] = m
	}
	m[p.UID] = struct{}{}
}

// RemoveMember forgets a pod.
func (r *Registry) RemoveMember(p *model.Pod) {
	key := p.GroupKey()
	if key == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.members[key], p.UID)
	if len(r.members[key]) == 0 {
		delete(r.members, key)
	}
}

// Members returns the uids of the pods naming the group, sorted.
func (r *Registry) Members(key string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.members[key]))
	for uid := range r.members[key] {
		out = append(out, uid)
	}
	slices.Sort(out)
	return out
}

// NumMembers is how many pods name the group.
func (r *Registry) NumMembers(key string) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.members[key])
}
