package cache

import (
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Snapshot is a point-in-time copy of the cache's nodes in scheduling
// order. The scheduling cycle reads it without locks; it is owned by one
// goroutine at a time and refreshed in place by Cache.UpdateSnapshot, so
// code running outside the cycle (binding cycles, admin calls) must take
// a snapshot of its own.
type Snapshot struct {
	byName map[string]*framework.NodeInfo
	// list holds the nodes in zone-interleaved order; the other lists are
	// the subsets with pods with (anti-)affinity, in the same order.
	list                []*framework.NodeInfo
	withAffinity        []*framework.NodeInfo
	withRequiredAntiAff []*framework.NodeInfo
	generation          int64
	treeVersion         int64
	synced              bool
	journal             journal
	images              imageSnapshot
}

var (
	_ framework.NodeInfoLister = (*Snapshot)(nil)
	_ framework.NodeJournal    = (*Snapshot)(nil)
	_ framework.ImageLister    = (*Snapshot)(nil)
)

// NewEmptySnapshot returns a snapshot with no nodes, to be filled by
// Cache.UpdateSnapshot.
func NewEmptySnapshot() *Snapshot {
	return &Snapshot{byName: make(map[string]*framework.NodeInfo)}
}

// NewSnapshot builds a snapshot of the given nodes and bound pods, ordered
// as a cache fed in the same order would order them. Pods on unknown nodes
// are left out. Tests and what-if evaluations use it.
func NewSnapshot(nodes []*model.Node, pods []*model.Pod) (*Snapshot, error) {
	c := New()
	for _, n := range nodes {
		c.AddNode(n)
	}
	for _, p := range pods {
		if err := c.AddPod(p); err != nil {
			return nil, err
		}
	}
	s := NewEmptySnapshot()
	if err := c.UpdateSnapshot(s); err != nil {
		return nil, err
	}
	return s, nil
}

// List returns the nodes in scheduling order.
func (s *Snapshot) List() []*framework.NodeInfo { return s.list }

// HavePodsWithAffinityList returns the nodes with a pod with pod affinity
// or anti-affinity.
func (s *Snapshot) HavePodsWithAffinityList() []*framework.NodeInfo { return s.withAffinity }

// HavePodsWithRequiredAntiAffinityList returns the nodes with a pod with
// required pod anti-affinity.
func (s *Snapshot) HavePodsWithRequiredAntiAffinityList() []*framework.NodeInfo {
	return s.withRequiredAntiAff
}

// Get returns the named node.
func (s *Snapshot) Get(name string) (*framework.NodeInfo, error) {
	if ni, ok := s.byName[name]; ok {
		return ni, nil
	}
	return nil, fmt.Errorf("nodeinfo %q: %w", name, ErrNodeNotFound)
}

// NumNodes returns the number of nodes.
func (s *Snapshot) NumNodes() int { return len(s.list) }

// Generation is the cache generation the snapshot reflects.
func (s *Snapshot) Generation() int64 { return s.generation }

// UpdateSnapshot brings s up to date, copying only the NodeInfos changed
// since s was last updated. NodeInfos are updated in place, so the pointers
// in s stay valid (and change) across calls: do not hold them across
// cycles.
func (c *Cache) UpdateSnapshot(s *Snapshot) error {
	c.mu.Lock()
	defer c.mu.Unlock()

	rebuildAll := !s.synced || s.treeVersion != c.treeVersion
	if !s.synced {
		s.journal.restart()
	}
	rebuildAffinity := false
	for it := c.head; it != nil && it.info.Generation > s.generation; it = it.next {
		node := it.info.Node()
		if node == nil {
			continue
		}
		existing, ok := s.byName[node.Name]
		if !ok {
			existing = &framework.NodeInfo{}
			s.byName[node.Name] = existing
			rebuildAll = true
		}
		clone := it.info.Clone()
		if (len(existing.PodsWithAffinity) > 0) != (len(clone.PodsWithAffinity) > 0) ||
			(len(existing.PodsWithRequiredAntiAffinity) > 0) != (len(clone.PodsWithRequiredAntiAffinity) > 0) {
			rebuildAffinity = true
		}
		// Keep the pointer: the lists hold it.
		*existing = *clone
		s.journal.record(node.Name)
	}
	if c.head != nil {
		s.generation = c.head.info.Generation
	}
	if len(s.byName) > c.tree.numNodes {
		for name := range s.byName {
			if it, ok := c.nodes[name]; !ok || it.info.Node() == nil {
				delete(s.byName, name)
				s.journal.record(name)
			}
		}
		rebuildAll = true
	}
	switch {
	case rebuildAll:
		s.rebuildLists(c.tree.list())
	case rebuildAffinity:
		s.rebuildAffinityLists()
	}
	c.images.syncLocked(&s.images)
	s.treeVersion = c.treeVersion
	s.synced = true
	s.journal.commit(len(s.list))
	if len(s.list) != c.tree.numNodes {
		// Cannot happen unless the cache is corrupt; start over next time.
		s.synced = false
		return fmt.Errorf("snapshot lists %d nodes, cache has %d", len(s.list), c.tree.numNodes)
	}
	return nil
}

func (s *Snapshot) rebuildLists(order []string) {
	s.list = make([]*framework.NodeInfo, 0, len(order))
	for _, name := range order {
		if ni, ok := s.byName[name]; ok {
			s.list = append(s.list, ni)
		}
	}
	s.rebuildAffinityLists()
}

func (s *Snapshot) rebuildAffinityLists() {
	s.withAffinity = s.withAffinity[:0:0]
	s.withRequiredAntiAff = s.withRequiredAntiAff[:0:0]
	for _, ni := range s.list {
		if len(ni.PodsWithAffinity) > 0 {
			s.withAffinity = append(s.withAffinity, ni)
		}
		if len(ni.PodsWithRequiredAntiAffinity) > 0 {
			s.withRequiredAntiAff = append(s.withRequiredAntiAff, ni)
		}
	}
}
