package gang

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/berthsched/berth/core/model"
)

// ErrCompositeDisabled: a CompositePodGroup was sent while the alpha
// CompositePodGroup gate is off (kube 1.37's API server does not serve the
// kind then).
var ErrCompositeDisabled = errors.New("CompositePodGroup requires the CompositePodGroup feature gate (alpha, with TopologyAwareWorkloadScheduling): kube 1.37 serves the kind only with it")

// ValidateComposite checks a composite group's fields.
func ValidateComposite(c *model.CompositePodGroup) error {
	switch {
	case c == nil || c.Name == "" || c.Namespace == "":
		return fmt.Errorf("composite pod group: namespace and name are required: %w", ErrInvalid)
	case c.MinGroupCount < 1:
		return fmt.Errorf("composite pod group %s: min_group_count %d: must be at least 1: %w", c.Key(), c.MinGroupCount, ErrInvalid)
	case c.Parent == c.Name:
		return fmt.Errorf("composite pod group %s: it cannot be its own parent: %w", c.Key(), ErrInvalid)
	}
	return nil
}

// SetComposite adds a composite group, or accepts an upsert that leaves its
// spec as it is. It reports whether the group is new.
func (r *Registry) SetComposite(c *model.CompositePodGroup) (created bool, err error) {
	if err := ValidateComposite(c); err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.composites[c.Key()]; ok {
		switch {
		case old.Parent != c.Parent:
			return false, &SpecImmutableError{Group: c.Key(), Field: "parent_composite_pod_group_name", Old: fmt.Sprintf("%q", old.Parent), New: fmt.Sprintf("%q", c.Parent)}
		case old.MinGroupCount != c.MinGroupCount:
			return false, &SpecImmutableError{Group: c.Key(), Field: "min_group_count", Old: fmt.Sprint(old.MinGroupCount), New: fmt.Sprint(c.MinGroupCount)}
		case old.PriorityClassName != c.PriorityClassName:
			return false, &SpecImmutableError{Group: c.Key(), Field: "priority_class_name", Old: fmt.Sprintf("%q", old.PriorityClassName), New: fmt.Sprintf("%q", c.PriorityClassName)}
		}
		return false, nil
	}
	cp := *c
	r.composites[c.Key()] = &cp
	return true, nil
}

// DeleteComposite removes a composite group; its children stay and their
// pods wait for it again.
func (r *Registry) DeleteComposite(namespace, name string) (*model.CompositePodGroup, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := namespace + "/" + name
	c, ok := r.composites[key]
	delete(r.composites, key)
	return c, ok
}

// GetComposite returns the composite group of key ("namespace/name").
func (r *Registry) GetComposite(key string) (*model.CompositePodGroup, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.composites[key]
	return c, ok
}

// ListComposites returns the composite groups, sorted by key.
func (r *Registry) ListComposites() []*model.CompositePodGroup {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*model.CompositePodGroup, 0, len(r.composites))
	for _, c := range r.composites {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *model.CompositePodGroup) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// Root is the root composite group of the tree the group of key belongs
// to, following parents. ok is false when the group has no parent. A
// parent that does not exist (or a cycle of parents) is missing, the key
// of the composite group waited for.
func (r *Registry) Root(key string) (root *model.CompositePodGroup, missing string, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g, found := r.groups[key]
	if !found || g.Parent == "" {
		return nil, "", false
	}
	seen := map[string]bool{}
	for next := g.ParentKey(); ; {
		c, found := r.composites[next]
		if !found || seen[next] {
			return nil, next, true
		}
		seen[next] = true
		if c.Parent == "" {
			return c, "", true
		}
		next = c.ParentKey()
	}
}

// Child is one child of a composite group: a PodGroup or a composite
// group (exactly one set).
type Child struct {
	Group     *model.PodGroup
	Composite *model.CompositePodGroup
}

// Children lists the children of the composite group of key, by name
// (PodGroups and composite groups together). kube 1.37 walks them in map
// order, i.e. in no fixed order; Berth's is reproducible.
func (r *Registry) Children(key string) []Child {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Child
	for _, g := range r.groups {
		if g.ParentKey() == key {
			out = append(out, Child{Group: g})
		}
	}
	for _, c := range r.composites {
		if c.ParentKey() == key {
			out = append(out, Child{Composite: c})
		}
	}
	slices.SortFunc(out, func(a, b Child) int { return strings.Compare(a.name(), b.name()) })
	return out
}

func (c Child) name() string {
	if c.Group != nil {
		return c.Group.Name
	}
	return c.Composite.Name
}

// treeReady is kube's hierarchy readiness (GangScheduling PreEnqueue with
// composite groups): a PodGroup child is ready when MinCount of its pods
// exist, a composite one when MinGroupCount of its children are ready.
func (r *Registry) treeReady(c *model.CompositePodGroup, depth int) (ready, readyChildren int) {
	if depth > maxTreeDepth {
		return 0, 0
	}
	for _, ch := range r.Children(c.Key()) {
		if ch.Group != nil {
			if r.NumMembers(ch.Group.Key()) >= int(ch.Group.MinCount) {
				readyChildren++
			}
			continue
		}
		if ok, _ := r.treeReady(ch.Composite, depth+1); ok > 0 {
			readyChildren++
		}
	}
	if readyChildren >= int(c.MinGroupCount) {
		return 1, readyChildren
	}
	return 0, readyChildren
}

// maxTreeDepth bounds the walks of a tree (a guard; a cycle of parents
// never reaches a root, so it is never walked from one).
const maxTreeDepth = 64

// TreeGroups lists the PodGroups (leaves) under the composite group of
// key, in tree order.
func (r *Registry) TreeGroups(key string) []*model.PodGroup {
	var out []*model.PodGroup
	var walk func(key string, depth int)
	walk = func(key string, depth int) {
		if depth > maxTreeDepth {
			return
		}
		for _, ch := range r.Children(key) {
			if ch.Group != nil {
				out = append(out, ch.Group)
			} else {
				walk(ch.Composite.Key(), depth+1)
			}
		}
	}
	walk(key, 0)
	return out
}
