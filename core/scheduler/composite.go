package scheduler

import (
	"context"
	"fmt"
	"maps"

	"github.com/berthsched/berth/core/features"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/model"
)

// Composite pod groups (kube 1.37's alpha CompositePodGroup): trees of pod
// groups, placed whole from their root in one cycle (gang.PlaceTree). The
// glue: composite groups in (setCompositePodGroup, deleteCompositePodGroup)
// and the tree cycle (scheduleTree), which a member of a PodGroup with a
// parent runs instead of its group's cycle.

// composites reports whether composite pod groups count (the alpha
// CompositePodGroup gate, which needs GenericWorkload).
func (s *Scheduler) composites() bool {
	return s.gangs() && s.cfg.FeatureGates.Enabled(features.CompositePodGroup)
}

// setCompositePodGroup adds a composite group, or accepts an upsert that
// leaves its spec as it is. Without the gate it is refused
// (gang.ErrCompositeDisabled), as kube's API server does not serve the
// kind. The members of its tree are checked by the gate again.
func (s *Scheduler) setCompositePodGroup(ctx context.Context, c *model.CompositePodGroup) error {
	if !s.composites() {
		return fmt.Errorf("composite pod group %s: %w", c.Key(), gang.ErrCompositeDisabled)
	}
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	if _, known := s.groups.GetComposite(c.Key()); !known {
		admitted, err := s.admission.Composite(c)
		if err != nil {
			return err
		}
		c = admitted
	}
	created, err := s.groups.SetComposite(c)
	if err != nil {
		return err
	}
	if created {
		if root := s.compositeRoot(c); root != nil {
			s.activateMembersLocked(treeKeys(s.groups.TreeGroups(root.Key())))
		}
	}
	return nil
}

// compositeRoot is the root of c's tree, nil while a composite group on
// the way is missing.
func (s *Scheduler) compositeRoot(c *model.CompositePodGroup) *model.CompositePodGroup {
	for range 64 {
		if c.Parent == "" {
			return c
		}
		next, ok := s.groups.GetComposite(c.ParentKey())
		if !ok {
			return nil
		}
		c = next
	}
	return nil // a cycle of parents
}

// deleteCompositePodGroup removes a composite group; the pods of its tree
// wait for it again, its bound ones stay.
func (s *Scheduler) deleteCompositePodGroup(ctx context.Context, namespace, name string) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	if _, ok := s.groups.DeleteComposite(namespace, name); !ok {
		return fmt.Errorf("delete composite pod group %s/%s: %w", namespace, name, ErrNotFound)
	}
	return nil
}

// listCompositePodGroups lists the composite groups held, for resyncs.
func (s *Scheduler) listCompositePodGroups() []*model.CompositePodGroup {
	return s.groups.ListComposites()
}

// waitForMembers are the rejectors of a tree's members when no member
// failed on a plugin (a composite group short of children with pods): they
// wait for the gate's events (pods and groups arriving), not for backoff.
func waitForMembers() map[string]struct{} { return map[string]struct{}{gang.GateName: {}} }

func treeKeys(groups []*model.PodGroup) []string {
	out := make([]string, len(groups))
	for i, g := range groups {
		out[i] = g.Key()
	}
	return out
}

// scheduleTree runs a tree cycle for a popped member of a PodGroup with a
// parent, as kube 1.37 runs its root composite group's cycle: the pending
// members of every PodGroup of the tree are taken from the queue and the
// tree is placed on one state (gang.PlaceTree). The tree's priority is its
// root's, which every member must have. A tree that does not fit does not
// preempt (kube's PodGroupPostFilter for a composite root is not
// modelled): its members wait for a cluster event.
func (s *Scheduler) scheduleTree(ctx context.Context, fwk framework.Framework, qpi *framework.QueuedPodInfo, att *Attempt) *Attempt {
	pod := qpi.Pod
	root, _, _ := s.groups.Root(pod.GroupKey())
	infos := map[string]*framework.QueuedPodInfo{pod.UID: qpi}
	tree := s.buildTree(root, qpi, att.Profile, infos, 0)
	leaves := tree.Leaves()
	var pending []*model.Pod
	keys := make([]string, len(leaves))
	for i, l := range leaves {
		pending = append(pending, l.Members...)
		keys[i] = l.Group.Key()
	}
	gang.Order(pending)
	if err := s.validateMembers(root.Priority, model.PreemptLowerPriority, keys, pending); err != nil {
		return s.refuseGroup(ctx, fwk, infos, pending, att, err)
	}
	p := &groupPlacer{s: s, fwk: fwk, infos: infos, states: map[string]*framework.CycleState{},
		assumed: map[string]*framework.QueuedPodInfo{}, fails: map[string]*failure{}}
	res := gang.PlaceTree(ctx, tree, &treePlacer{s: s, p: p})
	att.Message = res.Message()
	if !res.Scheduled {
		att.Result = ResultUnschedulable
		att.Status = framework.NewStatus(framework.Unschedulable, att.Message)
		var misses []gang.Miss
		for _, l := range leaves {
			if r := res.Leaves[l.Group.Key()]; r != nil {
				misses = append(misses, r.Misses...)
			}
		}
		s.failMembers(ctx, fwk, att.Message, misses, p, pending, nil, waitForMembers())
		return s.endGroupAttempt(att)
	}
	att.Result = ResultScheduled
	att.Node = p.nodeOf(pod.UID)
	kept := map[string]bool{}
	for _, r := range res.Kept {
		kept[r.Group.Key()] = true
		s.failGroupMisses(ctx, fwk, r, p)
		s.startGroupBinding(ctx, r.Group, r, p, att)
	}
	for _, l := range leaves {
		if kept[l.Group.Key()] || len(l.Members) == 0 {
			continue
		}
		// A child left out of a tree that was placed: its members wait
		// as its group's, for their tree's next cycle.
		msg, r := att.Message, res.Leaves[l.Group.Key()]
		var misses []gang.Miss
		if r != nil && len(r.Misses) > 0 {
			msg, misses = r.Message(), r.Misses
		}
		s.failMembers(ctx, fwk, msg, misses, p, l.Members, nil, waitForMembers())
	}
	return s.endGroupAttempt(att)
}

// buildTree is the cycle's tree under c: each PodGroup a leaf with its
// need and its pending members (taken from the queue; qpi's pod among
// them), in queue order.
func (s *Scheduler) buildTree(c *model.CompositePodGroup, qpi *framework.QueuedPodInfo, profile string, infos map[string]*framework.QueuedPodInfo, depth int) *gang.Node {
	n := &gang.Node{Composite: c}
	if depth > 64 {
		return n
	}
	for _, ch := range s.groups.Children(c.Key()) {
		if ch.Composite != nil {
			n.Children = append(n.Children, s.buildTree(ch.Composite, qpi, profile, infos, depth+1))
			continue
		}
		leaf := &gang.Node{Group: ch.Group, Need: s.groupNeed(ch.Group)}
		if qpi.Pod.GroupKey() == ch.Group.Key() {
			leaf.Members = append(leaf.Members, qpi.Pod)
		}
		for _, m := range s.queue.Take(s.pendingMembers(ch.Group.Key(), qpi.Pod.UID, profile)) {
			infos[m.Pod.UID] = m
			leaf.Members = append(leaf.Members, m.Pod)
		}
		gang.Order(leaf.Members)
		n.Children = append(n.Children, leaf)
	}
	return n
}

// treePlacer is gang.LeafPlacer over one groupPlacer shared by the tree's
// leaves (its maps are by pod uid).
type treePlacer struct {
	s *Scheduler
	p *groupPlacer
}

func (t *treePlacer) PlaceLeaf(ctx context.Context, leaf *gang.Node) *gang.Result {
	// placeGroup replaces the placer's failures per topology domain: keep
	// the other leaves'.
	saved := t.p.fails
	t.p.fails = map[string]*failure{}
	r := t.s.placeGroup(ctx, leaf.Group, leaf.Need, leaf.Members, t.p)
	maps.Copy(saved, t.p.fails)
	t.p.fails, t.p.within = saved, nil
	return r
}

func (t *treePlacer) UndoLeaf(ctx context.Context, r *gang.Result) {
	for i := len(r.Placed) - 1; i >= 0; i-- {
		t.p.Undo(ctx, r.Placed[i].Pod, r.Placed[i].Node)
	}
}
