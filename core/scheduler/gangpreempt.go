package scheduler

import (
	"context"
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/preemption"
)

// Preemption for a pod group (kube 1.37's PodGroupPostFilter,
// framework/preemption/podgrouppreemption.go, on whenever GenericWorkload
// is; 1.36 had it behind the WorkloadAwarePreemption gate, removed in
// 1.37): when a group does not fit, the victims are chosen for the whole
// group as one decision. Members are planned in order on copies of the
// nodes: each goes where it fits as things stand (earlier members and
// victims applied), or else on the node where evicting the fewest, least
// important lower-priority pods lets it in (core/preemption's choice,
// disruption budgets charged as they are used). Only when at least the group's need
// is planned are the victims evicted and the planned members nominated to
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

// planGroupPreemption plans members in order until need of them are
// placed; nil when they cannot be.
func (s *Scheduler) planGroupPreemption(ctx context.Context, fwk framework.Framework, need int, members []*model.Pod) *groupPlan {
	if err := s.cache.UpdateSnapshot(s.snapshot); err != nil {
		return nil
	}
	ev := preemption.New(fwk, preemption.Options{PluginName: gang.GateName, MinCandidateNodesAbsolute: 1, Deterministic: true})
	all := s.snapshot.List()
	work := map[string]*framework.NodeInfo{} // the nodes the plan changed
	current := func(ni *framework.NodeInfo) *framework.NodeInfo {
		if w := work[ni.Name()]; w != nil {
			return w
		}
		return ni
	}
	pdbs := s.state.pdbs.List()
	plan := &groupPlan{nodes: map[string]string{}, victims: map[string][]*model.Pod{}}
	var placed []*framework.PodInfo
	for _, m := range members {
		if len(plan.nodes) >= need {
			break
		}
		state := framework.NewCycleState()
		if _, st, _ := fwk.RunPreFilterPlugins(ctx, state, m, all); !st.IsSuccess() {
			continue
		}
		if !s.replayPlan(ctx, fwk, state, m, plan, placed, work) {
			continue
		}
		node, victims := s.placeMember(ctx, fwk, ev, state, m, all, current, pdbs)
		if node == "" {
			continue
		}
		w := current(mustNode(all, node)).Clone()
		for _, v := range victims {
			if err := w.RemovePod(v); err != nil {
				return nil
			}
			pdbs = charge(pdbs, v)
		}
		pm := *m
		pm.NodeName = node
		pi, err := framework.NewPodInfo(&pm)
		if err != nil {
			continue
		}
		w.AddPodInfo(pi)
		work[node] = w
		placed = append(placed, pi)
		plan.nodes[m.UID] = node
		plan.victims[node] = append(plan.victims[node], victims...)
	}
	if len(plan.nodes) < need {
		return nil
	}
	return plan
}

// replayPlan tells m's PreFilter state about the plan so far: the members
// placed and the victims removed.
func (s *Scheduler) replayPlan(ctx context.Context, fwk framework.Framework, state *framework.CycleState, m *model.Pod, plan *groupPlan, placed []*framework.PodInfo, work map[string]*framework.NodeInfo) bool {
	for node, vs := range plan.victims {
		for _, v := range vs {
			pi, err := framework.NewPodInfo(v)
			if err != nil || !fwk.RunPreFilterExtensionRemovePod(ctx, state, m, pi, work[node]).IsSuccess() {
				return false
			}
		}
	}
	for _, pi := range placed {
		if !fwk.RunPreFilterExtensionAddPod(ctx, state, m, pi, work[pi.Pod.NodeName]).IsSuccess() {
			return false
		}
	}
	return true
}

// placeMember picks m's node in the plan: the first where it fits now, else
// the best preemption candidate, with its victims.
func (s *Scheduler) placeMember(ctx context.Context, fwk framework.Framework, ev *preemption.Evaluator, state *framework.CycleState, m *model.Pod,
	all []*framework.NodeInfo, current func(*framework.NodeInfo) *framework.NodeInfo, pdbs []framework.PDBStatus) (string, []*model.Pod) {
	var candidates []*preemption.Candidate
	for _, ni := range all {
		st := fwk.RunFilterPluginsWithNominatedPods(ctx, state, m, current(ni))
		if st.IsSuccess() {
			return ni.Name(), nil
		}
		if st.Code() != framework.Unschedulable {
			continue
		}
		victims, violations, vst := ev.SelectVictimsOnNode(ctx, state.Clone(), m, current(ni).Clone(), pdbs)
		if vst.IsSuccess() && len(victims) > 0 {
			candidates = append(candidates, &preemption.Candidate{Node: ni.Name(), Victims: victims, NumPDBViolations: violations})
		}
	}
	if len(candidates) == 0 {
		return "", nil
	}
	c := ev.SelectCandidate(candidates)
	return c.Node, c.Victims
}

func mustNode(all []*framework.NodeInfo, name string) *framework.NodeInfo {
	for _, ni := range all {
		if ni.Name() == name {
			return ni
		}
	}
	return nil
}

// charge counts a victim against the budgets covering it (those pod
// preemption charges), as the plan goes: later members see the allowance
// left.
func charge(pdbs []framework.PDBStatus, v *model.Pod) []framework.PDBStatus {
	out := make([]framework.PDBStatus, len(pdbs))
	copy(out, pdbs)
	for i, p := range out {
		if len(v.Labels) == 0 || p.PDB.Namespace != v.Namespace || p.Selector.IsEverything() || !p.Selector.Matches(v.Labels) {
			continue
		}
		if _, disrupted := p.PDB.DisruptedPods[v.Name]; !disrupted {
			out[i].DisruptionsAllowed--
		}
	}
	return out
}
