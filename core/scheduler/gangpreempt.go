package scheduler

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/model"
)

// Preemption for a pod group (kube 1.37's PodGroupPostFilter,
// framework/preemption/podgrouppreemption.go, on whenever GenericWorkload
// is; 1.36 had it behind the WorkloadAwarePreemption gate, removed in
// 1.37): when a group does not fit, the victims are chosen for the whole
// group as one decision (planGroupPreemption): every lower-priority pod
// set aside, the group placed on the rest, then the victims given back
// while the plan still fits. Only when at least the group's need is
// planned are the victims evicted and the planned members nominated to
// their nodes; otherwise nothing is evicted. A group waits, without
// preempting again, while the victims of its last preemption are still
// terminating on its members' nominated nodes.

// groupPlan is where a group preemption puts each planned member, and the
// victims it evicts (by node).
type groupPlan struct {
	nodes   map[string]string // member uid -> node
	victims map[string][]*model.Pod
}

// nodeOf is the node planned for a member, "" without a plan.
func (p *groupPlan) nodeOf(uid string) string {
	if p == nil {
		return ""
	}
	return p.nodes[uid]
}

// preemptForGroup plans and, when the plan places need members, carries
// out a group preemption; it returns the plan, nil when nothing was done.
func (s *Scheduler) preemptForGroup(ctx context.Context, fwk framework.Framework, res *gang.Result, members []*model.Pod) *groupPlan {
	if !fwk.HasPostFilterPlugins() || !s.mayPreempt(members) {
		return nil
	}
	if s.groupPreemptionPolicies() && groupPolicy(res.Group) == model.PreemptNever {
		return nil // the members share it (validateGroup); said for clarity
	}
	plan := s.planGroupPreemption(ctx, fwk, res.Need, members)
	if plan == nil {
		return nil
	}
	preemptor := members[0]
	for node, vs := range plan.victims {
		for _, v := range vs {
			if v.Terminating {
				continue
			}
			reason := fmt.Sprintf("preempted by pod group %s on node %s", res.Group.Key(), node)
			if err := s.evict(ctx, &framework.Eviction{Victim: v, Node: node, Preemptor: preemptor, Message: reason}); err != nil {
				s.logger.Error("evicting a victim of a group preemption failed", "victim", v.Key(), "group", res.Group.Key(), "err", err)
			}
		}
	}
	return plan
}

// evictRestOfGroup evicts, after a preemption evicted victim, the other
// bound members of victim's group, with the same preemptor and reason,
// when the group's disruption mode is all (kube 1.37): such a gang is a
// unit of preemption, for a group's preemption and a pod's alike. It only
// frees more room than the preemption asked for. In mode single (the
// default) members are preempted one by one.
func (s *Scheduler) evictRestOfGroup(ctx context.Context, victim, preemptor *model.Pod, reason string) {
	if !s.gangs() {
		return
	}
	if g, ok := s.groups.Get(victim.GroupKey()); !ok || !g.DisruptionAll {
		return
	}
	for _, uid := range s.groups.Members(victim.GroupKey()) {
		p, ok := s.state.lookup(uid)
		if !ok || uid == victim.UID || p.NodeName == "" || p.Terminating {
			continue
		}
		if err := s.evict(ctx, &framework.Eviction{Victim: p, Node: p.NodeName, Preemptor: preemptor, Message: reason}); err != nil {
			s.logger.Error("evicting the rest of a preempted group failed", "victim", p.Key(), "err", err)
		}
	}
}

// mayPreempt: every member may preempt, and none waits for the victims of
// an earlier preemption on its nominated node.
func (s *Scheduler) mayPreempt(members []*model.Pod) bool {
	for _, m := range members {
		if m.EffectivePreemptionPolicy() == model.PreemptNever {
			return false
		}
		if m.NominatedNodeName == "" {
			continue
		}
		if ni, err := s.snapshot.Get(m.NominatedNodeName); err == nil {
			for _, pi := range ni.Pods {
				if pi.Pod.TerminatingByPreemption() && pi.Pod.Priority < m.Priority {
					return false
				}
			}
		}
	}
	return true
}

// planGroupPreemption is kube 1.37's PodGroupPostFilter
// (podgrouppreemption.go's selectVictimsOnDomain): every pod of lower
// priority than the group is set aside at once, the whole group is placed
// on what is left (each member filtered and scored with the members before
// it in place, so as many members as fit, not only need), and then the
// victims are given back one unit at a time, the most important first
// (those whose eviction a budget forbids before the others), each kept
// when every planned member still passes Filter on its node. It returns nil
// when fewer than need members fit even with every victim gone.
func (s *Scheduler) planGroupPreemption(ctx context.Context, fwk framework.Framework, need int, members []*model.Pod) *groupPlan {
	if err := s.cache.UpdateSnapshot(s.snapshot); err != nil || len(members) == 0 {
		return nil
	}
	all := s.snapshot.List()
	units := s.victimUnits(all, s.memberPriority(members[0]))
	if len(units) == 0 {
		return nil
	}
	w := newPlanWorld(all)
	for _, u := range units {
		if err := w.remove(u.pods); err != nil {
			s.logger.Error("planning a group preemption failed", "err", err)
			return nil
		}
	}
	placed := s.placeOnWorld(ctx, fwk, w, units, members)
	if len(placed) < need || len(placed) == 0 {
		return nil
	}
	slices.SortStableFunc(units, func(a, b *victimUnit) int { return moreImportantUnit(a, b) })
	violating, others := splitUnitsByBudget(units, s.state.pdbs.List())
	plan := &groupPlan{nodes: map[string]string{}, victims: map[string][]*model.Pod{}}
	for _, u := range slices.Concat(violating, others) {
		kept, err := w.reprieve(ctx, fwk, u, placed)
		if err != nil {
			s.logger.Error("planning a group preemption failed", "err", err)
			return nil
		}
		if !kept {
			for _, v := range u.pods {
				plan.victims[v.NodeName] = append(plan.victims[v.NodeName], v)
			}
		}
	}
	for _, a := range placed {
		plan.nodes[a.pod.UID] = a.node
	}
	return plan
}

// victimUnit is what a group preemption evicts or spares as one: a pod, or
// every bound member of a group whose disruption mode is all (kube's
// DomainVictim).
type victimUnit struct {
	pods     []*model.Pod
	priority int32
	// inGroup: the pod(s) belong to a pod group, which kube ranks above a
	// loose pod of the same priority.
	inGroup bool
	// start is the earliest start time of its pods (zero: none started).
	start time.Time
}

// memberPriority is a pod's priority for preemption: its group's when it
// is in a known group (kube's GetPodPriority), else its own.
func (s *Scheduler) memberPriority(p *model.Pod) int32 {
	if s.gangs() && p.SchedulingGroup != "" {
		if g, ok := s.groups.Get(p.GroupKey()); ok {
			return g.Priority
		}
	}
	return p.Priority
}

// victimUnits lists the units of lower priority than prio, in node order
// then pod order on each node, as kube gathers them.
func (s *Scheduler) victimUnits(all []*framework.NodeInfo, prio int32) []*victimUnit {
	var units []*victimUnit
	whole := map[string]*victimUnit{} // group key -> its unit, for mode all
	for _, ni := range all {
		for _, pi := range ni.Pods {
			p := pi.Pod
			pp := s.memberPriority(p)
			if pp >= prio {
				continue
			}
			inGroup := s.gangs() && p.SchedulingGroup != ""
			if inGroup {
				if g, ok := s.groups.Get(p.GroupKey()); ok && g.DisruptionAll {
					if u := whole[g.Key()]; u != nil {
						u.add(p)
						continue
					}
					u := &victimUnit{priority: pp, inGroup: true}
					u.add(p)
					whole[g.Key()] = u
					units = append(units, u)
					continue
				}
			}
			u := &victimUnit{priority: pp, inGroup: inGroup}
			u.add(p)
			units = append(units, u)
		}
	}
	return units
}

func (u *victimUnit) add(p *model.Pod) {
	u.pods = append(u.pods, p)
	if !p.StartTime.IsZero() && (u.start.IsZero() || p.StartTime.Before(u.start)) {
		u.start = p.StartTime
	}
}

// moreImportantUnit orders units most important first, as kube's
// MoreImportantVictim: higher priority, then a group's pods before a loose
// pod, then more pods, then the earlier start (unknown start times tie).
func moreImportantUnit(a, b *victimUnit) int {
	if c := cmp.Compare(b.priority, a.priority); c != 0 {
		return c
	}
	if a.inGroup != b.inGroup {
		if a.inGroup {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(len(b.pods), len(a.pods)); c != 0 {
		return c
	}
	if a.start.IsZero() || b.start.IsZero() {
		return 0
	}
	return a.start.Compare(b.start)
}

// splitUnitsByBudget splits units, keeping their order, into those with a
// pod whose eviction would exceed a disruption budget (the allowance
// counted down pod by pod across the units, as kube's
// FilterVictimsWithPDBViolation) and the others.
func splitUnitsByBudget(units []*victimUnit, pdbs []framework.PDBStatus) (violating, others []*victimUnit) {
	allowed := make([]int32, len(pdbs))
	for i, p := range pdbs {
		allowed[i] = p.DisruptionsAllowed
	}
	violates := func(v *model.Pod) bool {
		if len(v.Labels) == 0 {
			return false
		}
		for i, p := range pdbs {
			if p.PDB.Namespace != v.Namespace || p.Selector.IsEverything() || !p.Selector.Matches(v.Labels) {
				continue
			}
			if _, disrupted := p.PDB.DisruptedPods[v.Name]; disrupted {
				continue
			}
			allowed[i]--
			if allowed[i] < 0 {
				return true
			}
		}
		return false
	}
	for _, u := range units {
		bad := false
		for _, v := range u.pods {
			bad = violates(v) || bad
		}
		if bad {
			violating = append(violating, u)
		} else {
			others = append(others, u)
		}
	}
	return violating, others
}

// assignment is a member planned on a node, with the cycle state it was
// filtered with (told of the victims removed and the members before it).
type assignment struct {
	pod   *model.Pod
	node  string
	pi    *framework.PodInfo
	state *framework.CycleState
}

// planWorld is the cluster as a group preemption sees it: the snapshot's
// nodes, those it changed copied.
type planWorld struct {
	all  []*framework.NodeInfo
	work map[string]*framework.NodeInfo
	// removed are the victims' pods set aside, by uid.
	removed map[string]*framework.PodInfo
}

func newPlanWorld(all []*framework.NodeInfo) *planWorld {
	return &planWorld{all: all, work: map[string]*framework.NodeInfo{}, removed: map[string]*framework.PodInfo{}}
}

// node is the plan's copy of a node, made on first use.
func (w *planWorld) node(name string) *framework.NodeInfo {
	if n := w.work[name]; n != nil {
		return n
	}
	for _, ni := range w.all {
		if ni.Name() == name {
			c := ni.Clone()
			w.work[name] = c
			return c
		}
	}
	return nil
}

// current is the node as the plan stands.
func (w *planWorld) current(ni *framework.NodeInfo) *framework.NodeInfo {
	if n := w.work[ni.Name()]; n != nil {
		return n
	}
	return ni
}

func (w *planWorld) remove(pods []*model.Pod) error {
	for _, p := range pods {
		n := w.node(p.NodeName)
		if n == nil {
			return fmt.Errorf("victim %s is on node %s, not in the snapshot", p.Key(), p.NodeName)
		}
		idx := slices.IndexFunc(n.Pods, func(pi *framework.PodInfo) bool { return pi.Pod.UID == p.UID })
		if idx < 0 {
			return fmt.Errorf("victim %s is not on node %s", p.Key(), p.NodeName)
		}
		w.removed[p.UID] = n.Pods[idx]
		if err := n.RemovePod(p); err != nil {
			return err
		}
	}
	return nil
}

// placeOnWorld places the members in order on the world without the
// victims, as kube's group algorithm run without PostFilter: each on its
// nominated node when that fits, else on the best-scored feasible node;
// a member no node fits is left out.
func (s *Scheduler) placeOnWorld(ctx context.Context, fwk framework.Framework, w *planWorld, units []*victimUnit, members []*model.Pod) []*assignment {
	var placed []*assignment
	for _, m := range members {
		state := framework.NewCycleState()
		if _, st, _ := fwk.RunPreFilterPlugins(ctx, state, m, w.all); !st.IsSuccess() {
			continue
		}
		if !w.tell(ctx, fwk, state, m, units, placed) {
			continue
		}
		node := s.pickOnWorld(ctx, fwk, w, state, m)
		if node == "" {
			continue
		}
		pm := *m
		pm.NodeName = node
		pi, err := framework.NewPodInfo(&pm)
		if err != nil {
			continue
		}
		w.node(node).AddPodInfo(pi)
		placed = append(placed, &assignment{pod: m, node: node, pi: pi, state: state})
	}
	// The reprieve checks each member with those before it added anew.
	for _, a := range placed {
		if err := w.work[a.node].RemovePod(a.pi.Pod); err != nil {
			return nil
		}
	}
	return placed
}

// tell gives m's PreFilter state the victims removed and the members
// placed before it.
func (w *planWorld) tell(ctx context.Context, fwk framework.Framework, state *framework.CycleState, m *model.Pod, units []*victimUnit, placed []*assignment) bool {
	for _, u := range units {
		for _, v := range u.pods {
			if !fwk.RunPreFilterExtensionRemovePod(ctx, state, m, w.removed[v.UID], w.work[v.NodeName]).IsSuccess() {
				return false
			}
		}
	}
	for _, a := range placed {
		if !fwk.RunPreFilterExtensionAddPod(ctx, state, m, a.pi, w.work[a.node]).IsSuccess() {
			return false
		}
	}
	return true
}

// pickOnWorld is m's node on the world: its nominated node if it passes,
// else the feasible node the scores prefer; "" when none passes.
func (s *Scheduler) pickOnWorld(ctx context.Context, fwk framework.Framework, w *planWorld, state *framework.CycleState, m *model.Pod) string {
	if nn := m.NominatedNodeName; nn != "" {
		for _, ni := range w.all {
			if ni.Name() == nn && fwk.RunFilterPluginsWithNominatedPods(ctx, state, m, w.current(ni)).IsSuccess() {
				return nn
			}
		}
	}
	var feasible []*framework.NodeInfo
	for _, ni := range w.all {
		if fwk.RunFilterPluginsWithNominatedPods(ctx, state, m, w.current(ni)).IsSuccess() {
			feasible = append(feasible, w.current(ni))
		}
	}
	switch len(feasible) {
	case 0:
		return ""
	case 1:
		return feasible[0].Name()
	}
	scores, err := s.prioritizeNodes(ctx, state.Clone(), fwk, m, feasible, nil, nil)
	if err != nil {
		return ""
	}
	return s.selectHost(scores, nil)
}

// reprieve gives u's pods back and keeps them when every planned member,
// in order and with the members before it in place, still passes Filter on
// its node; otherwise it sets them aside again. kept reports which.
func (w *planWorld) reprieve(ctx context.Context, fwk framework.Framework, u *victimUnit, placed []*assignment) (kept bool, err error) {
	for _, v := range u.pods {
		pi := w.removed[v.UID]
		n := w.work[v.NodeName]
		n.AddPodInfo(pi)
		for _, a := range placed {
			if st := fwk.RunPreFilterExtensionAddPod(ctx, a.state, a.pod, pi, n); !st.IsSuccess() {
				return false, st.AsError()
			}
		}
	}
	kept = true
	var added []*assignment
	for _, a := range placed {
		n := w.node(a.node)
		if !fwk.RunFilterPluginsWithNominatedPods(ctx, a.state, a.pod, n).IsSuccess() {
			kept = false
			break
		}
		n.AddPodInfo(a.pi)
		added = append(added, a)
	}
	for i := len(added) - 1; i >= 0; i-- {
		if err := w.work[added[i].node].RemovePod(added[i].pi.Pod); err != nil {
			return false, err
		}
	}
	if kept {
		for _, v := range u.pods {
			delete(w.removed, v.UID)
		}
		return true, nil
	}
	for _, v := range u.pods {
		pi := w.removed[v.UID]
		n := w.work[v.NodeName]
		if err := n.RemovePod(v); err != nil {
			return false, err
		}
		for _, a := range placed {
			if st := fwk.RunPreFilterExtensionRemovePod(ctx, a.state, a.pod, pi, n); !st.IsSuccess() {
				return false, st.AsError()
			}
		}
	}
	return false, nil
}
