package scheduler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/berthsched/berth/core/features"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/model"
)

// The glue between the loop and core/gang: groups in (admitPodGroup,
// setPodGroup, deletePodGroup, members through AddPod/DeletePod), the gate re-checked
// when they change, and the group cycle (scheduleGroup) with its binding
// (runGroupBinding).

// admitPodGroup is the PodGroup kind's admission: a new group's priority
// from its class (core/podadmission); a group held already is left to
// setPodGroup, which refuses a change of its spec.
func (s *Scheduler) admitPodGroup(g *model.PodGroup) (*model.PodGroup, error) {
	if g == nil {
		return g, nil
	}
	if _, known := s.groups.Get(g.Key()); known {
		return g, nil
	}
	return s.admission.Group(g)
}

// setPodGroup adds a pod group as admitted, or accepts an upsert that
// leaves its spec as it is (gang.ErrSpecImmutable otherwise;
// gang.ErrInvalid for a bad one). Its gated members are checked again.
func (s *Scheduler) setPodGroup(ctx context.Context, g *model.PodGroup) error {
	if g.Parent != "" && !s.composites() {
		// As kube 1.37's API server without the CompositePodGroup gate:
		// the field is dropped and the group is a gang of its own.
		c := *g
		c.Parent = ""
		g = &c
	}
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	created, err := s.groups.Set(g)
	if err != nil {
		return err
	}
	if created {
		s.activateGroupLocked(g.Key())
	}
	return nil
}

// deletePodGroup removes a pod group. Its pending members wait for it
// again; its bound members stay.
func (s *Scheduler) deletePodGroup(ctx context.Context, namespace, name string) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	if _, ok := s.groups.Delete(namespace, name); !ok {
		return fmt.Errorf("delete pod group %s/%s: %w", namespace, name, ErrNotFound)
	}
	return nil
}

// GroupState is where a pod's group stands, for Explain.
type GroupState struct {
	Name     string
	Exists   bool
	MinCount int32
	// Priority is the group's own (every member must have it).
	Priority int32
	// Members name the group, pending or placed; Placed are bound or
	// binding.
	Members, Placed int
}

// groupState is the state of pod's group, nil for a pod of no group.
func (s *Scheduler) groupState(pod *model.Pod) *GroupState {
	key := pod.GroupKey()
	if key == "" || !s.gangs() {
		return nil
	}
	st := &GroupState{Name: pod.SchedulingGroup}
	if g, ok := s.groups.Get(key); ok {
		st.Exists, st.MinCount, st.Priority = true, g.MinCount, g.Priority
	}
	for _, uid := range s.groups.Members(key) {
		st.Members++
		if p, ok := s.state.lookup(uid); ok && (p.NodeName != "" || s.cache.IsAssumed(uid)) {
			st.Placed++
		}
	}
	return st
}

// activateGroupLocked sends the group's pending members back through
// PreEnqueue (the gate), as kube's GangScheduling plugin's events do.
func (s *Scheduler) activateGroupLocked(key string) {
	keys := []string{key}
	if root, _, ok := s.groups.Root(key); ok && root != nil {
		// In a tree the gate looks at the whole tree: all its members.
		keys = treeKeys(s.groups.TreeGroups(root.Key()))
	}
	s.activateMembersLocked(keys)
}

// activateMembersLocked sends the pending members of the groups of keys
// back through PreEnqueue.
func (s *Scheduler) activateMembersLocked(keys []string) {
	pods := map[string]*model.Pod{}
	for _, key := range keys {
		for _, uid := range s.groups.Members(key) {
			if p, ok := s.state.lookup(uid); ok && p.NodeName == "" {
				pods[uid] = p
			}
		}
	}
	if len(pods) > 0 {
		s.queue.Activate(pods)
	}
}

// gangs reports whether pod groups are scheduled as gangs (the
// GenericWorkload gate); without it their pods are ordinary pods, as in
// kube.
func (s *Scheduler) gangs() bool { return s.cfg.FeatureGates.Enabled(features.GenericWorkload) }

// groupPreemptionPolicies reports whether a group's own preemption policy
// is its (kube 1.37's alpha PodGroupPreemptionPolicy gate); without it the
// members' common policy is.
func (s *Scheduler) groupPreemptionPolicies() bool {
	return s.cfg.FeatureGates.Enabled(features.PodGroupPreemptionPolicy)
}

// groupPolicy is the preemption policy of a group whose own policy counts
// (groupPreemptionPolicies): its own, PreemptLowerPriority when unset.
func groupPolicy(g *model.PodGroup) model.PreemptionPolicy {
	if g.PreemptionPolicy == "" {
		return model.PreemptLowerPriority
	}
	return g.PreemptionPolicy
}

// memberAddedLocked records a new pod of a group (before it is queued, so
// the gate counts it) and re-checks the group's gated members.
func (s *Scheduler) memberAddedLocked(pod *model.Pod) {
	if pod.SchedulingGroup == "" || !s.gangs() {
		return
	}
	s.groups.AddMember(pod)
	s.activateGroupLocked(pod.GroupKey())
}

// groupNeed is how many more members the group needs placed: MinCount less
// those bound or assumed. At most 0 means the group is placed and its
// pending members are ordinary pods.
func (s *Scheduler) groupNeed(g *model.PodGroup) int {
	placed := 0
	for _, uid := range s.groups.Members(g.Key()) {
		if p, ok := s.state.lookup(uid); ok && (p.NodeName != "" || s.cache.IsAssumed(uid)) && !p.Terminating {
			placed++
		}
	}
	return int(g.MinCount) - placed
}

// scheduleGroup runs a pod group cycle for a popped member of a group not
// yet placed: the group's other pending members are taken from the queue
// and all are placed on one state (gang.Place). It returns nil when the
// group is placed already: the pod is scheduled as an ordinary pod.
func (s *Scheduler) scheduleGroup(ctx context.Context, fwk framework.Framework, qpi *framework.QueuedPodInfo, att *Attempt) *Attempt {
	pod := qpi.Pod
	if st := gang.GateStatus(s.groups, pod); st != nil {
		// The group went away (or lost members) since the pod was queued:
		// it waits among the gated pods again.
		s.handleFailure(ctx, fwk, qpi, &failure{status: st}, true)
		att.Result, att.Status, att.Message = ResultUnschedulable, st, st.Message()
		return s.endGroupAttempt(att)
	}
	g, _ := s.groups.Get(pod.GroupKey())
	if g.Parent != "" && s.composites() {
		return s.scheduleTree(ctx, fwk, qpi, att)
	}
	need := s.groupNeed(g)
	if need <= 0 {
		return nil
	}
	infos := map[string]*framework.QueuedPodInfo{pod.UID: qpi}
	members := []*model.Pod{pod}
	for _, m := range s.queue.Take(s.groupPeers(pod, att.Profile)) {
		infos[m.Pod.UID] = m
		members = append(members, m.Pod)
	}
	gang.Order(members)
	if err := s.validateGroup(g, members); err != nil {
		// As kube 1.37's validatePodGroup: the group is not tried; its
		// members wait among the unschedulable pods (explain shows this
		// message), rejected by the gate, which no cluster event helps:
		// the periodic flush retries them, as kube retries the group.
		return s.refuseGroup(ctx, fwk, infos, members, att, err)
	}
	p := &groupPlacer{s: s, fwk: fwk, infos: infos, states: map[string]*framework.CycleState{},
		assumed: map[string]*framework.QueuedPodInfo{}, fails: map[string]*failure{}}
	res := s.placeGroup(ctx, g, need, members, p)
	att.Message = res.Message()
	if res.Scheduled {
		att.Result = ResultScheduled
		att.Node = p.nodeOf(pod.UID)
		s.failGroupMisses(ctx, fwk, res, p)
		s.startGroupBinding(ctx, g, res, p, att)
	} else {
		att.Result = ResultUnschedulable
		att.Status = framework.NewStatus(framework.Unschedulable, res.Message())
		plan := s.preemptForGroup(ctx, fwk, res, members)
		s.failGroup(ctx, fwk, res, p, members, plan)
	}
	return s.endGroupAttempt(att)
}

// validateGroup is kube 1.37's check of a group before its cycle: every
// member, pending (in queue order) or placed, has the group's scheduler
// name, the group's priority (the PodGroup's own, see admitPodGroup) and one
// preemption policy: the group's own with the PodGroupPreemptionPolicy
// gate, else the first member's. The error is in kube's words.
func (s *Scheduler) validateGroup(g *model.PodGroup, pending []*model.Pod) error {
	return s.validateMembers(g.Priority, groupPolicy(g), []string{g.Key()}, pending)
}

// validateMembers is validateGroup over the groups of keys (a tree's
// leaves), pending the members pending in queue order, priority and
// policy the root group's.
func (s *Scheduler) validateMembers(priority int32, rootPolicy model.PreemptionPolicy, keys []string, pending []*model.Pod) error {
	all := slices.Clone(pending)
	for _, key := range keys {
		for _, uid := range s.groups.Members(key) {
			if p, ok := s.state.lookup(uid); ok && (p.NodeName != "" || s.cache.IsAssumed(uid)) && !p.Terminating {
				all = append(all, p)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	schedulerName, policy := profileName(all[0]), all[0].EffectivePreemptionPolicy()
	own := s.groupPreemptionPolicies()
	if own {
		policy = rootPolicy
	}
	for _, p := range all {
		if n := profileName(p); n != schedulerName {
			return fmt.Errorf("all pods in a single pod group should have the same .spec.schedulerName set, got: %q and %q", n, schedulerName)
		}
		if p.Priority != priority {
			return fmt.Errorf("all pods in a single pod group should have the same priority as the pod group's priority, got %d and %d", p.Priority, priority)
		}
		pp := p.EffectivePreemptionPolicy()
		switch {
		case own && pp != policy:
			return fmt.Errorf("all pods in a single pod group should have the same preemption policy as the pod group's preemption policy, got %s and %s", pp, policy)
		case pp != policy:
			return fmt.Errorf("all pods in a single pod group should have the same preemption policy, got %s and %s", pp, policy)
		}
	}
	return nil
}

// groupPeers lists the other pending members of pod's group that its
// cycle may take: same profile, neither assumed nor being deleted (the
// others stay queued and are tried on their own turn).
func (s *Scheduler) groupPeers(pod *model.Pod, profile string) []string {
	return s.pendingMembers(pod.GroupKey(), pod.UID, profile)
}

// pendingMembers is groupPeers of the group of key, but self.
func (s *Scheduler) pendingMembers(key, self, profile string) []string {
	var out []string
	for _, uid := range s.groups.Members(key) {
		p, ok := s.state.lookup(uid)
		if !ok || uid == self || p.NodeName != "" || p.Terminating || s.cache.IsAssumed(uid) || profileName(p) != profile {
			continue
		}
		out = append(out, uid)
	}
	return out
}

// refuseGroup ends the attempt of a group (or a composite tree) that is not
// tried because err refuses its members: each waits among the
// unschedulable pods, rejected by the gate with err's message.
func (s *Scheduler) refuseGroup(ctx context.Context, fwk framework.Framework, infos map[string]*framework.QueuedPodInfo, members []*model.Pod, att *Attempt, err error) *Attempt {
	st := framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error()).WithPlugin(gang.GateName)
	for _, m := range members {
		fe := &framework.FitError{PodKey: m.Key(), Diagnosis: framework.Diagnosis{UnschedulablePlugins: map[string]struct{}{gang.GateName: {}}}}
		s.handleFailure(ctx, fwk, infos[m.UID], &failure{status: st, msg: err.Error(), fitErr: fe}, true)
	}
	att.Result, att.Status, att.Message = ResultUnschedulable, st, err.Error()
	return s.endGroupAttempt(att)
}

func (s *Scheduler) endGroupAttempt(att *Attempt) *Attempt {
	att.Duration = s.clock.Now().Sub(att.Start)
	s.observeAttempt(att)
	return att
}

// failGroupMisses requeues the members left out of a placed group: each
// is an ordinary pod of the group from now on.
// As kube 1.37's queue does after a group's successful attempt, they go
// straight back to the active queue keeping their queue timestamp, so their
// next attempt (which may preempt) follows at once, before pods of their
// priority queued after them, instead of waiting for a cluster event.
func (s *Scheduler) failGroupMisses(ctx context.Context, fwk framework.Framework, res *gang.Result, p *groupPlacer) {
	for _, m := range res.Misses {
		f := p.fails[m.Pod.UID]
		f.active = true
		s.handleFailure(ctx, fwk, p.infos[m.Pod.UID], f, true)
	}
}

// failGroup requeues every member of a group that did not fit, each with
// the group's message and the rejections of the members that missed (so
// the events those plugins care about bring the whole group back).
func (s *Scheduler) failGroup(ctx context.Context, fwk framework.Framework, res *gang.Result, p *groupPlacer, members []*model.Pod, plan *groupPlan) {
	s.failMembers(ctx, fwk, res.Message(), res.Misses, p, members, plan, nil)
}

// failMembers is failGroup with the message and the misses given (a
// tree's). When no miss names the plugins that rejected it, fallback (when
// set) are the rejectors the members wait on.
func (s *Scheduler) failMembers(ctx context.Context, fwk framework.Framework, msg string, misses []gang.Miss, p *groupPlacer, members []*model.Pod, plan *groupPlan, fallback map[string]struct{}) {
	var base *framework.FitError
	rejectors := map[string]struct{}{}
	for _, m := range misses {
		f := p.fails[m.Pod.UID]
		if f == nil || f.fitErr == nil {
			continue
		}
		if base == nil {
			base = f.fitErr
		}
		maps.Copy(rejectors, f.fitErr.Diagnosis.UnschedulablePlugins)
	}
	if base == nil && fallback != nil {
		base, rejectors = &framework.FitError{}, fallback
	}
	for _, m := range members {
		f := &failure{status: framework.NewStatus(framework.Unschedulable, msg), msg: msg}
		if base != nil {
			fe := *base
			fe.PodKey = m.Key()
			fe.Diagnosis.UnschedulablePlugins = maps.Clone(rejectors)
			f.fitErr = &fe
		}
		if pf := p.fails[m.UID]; pf != nil && pf.fitErr == nil && !pf.status.IsRejected() {
			f = pf // an internal error: retried after backoff
		}
		if node := plan.nodeOf(m.UID); node != "" {
			// Preempted for: the member waits nominated to its node.
			f.nominating = &framework.NominatingInfo{NominatedNodeName: node, Mode: framework.ModeOverride}
		}
		s.handleFailure(ctx, fwk, p.infos[m.UID], f, true)
	}
}

// placeGroup is gang.Place, within one domain of the group's topology key
// when it has one: the domains (the key's values among the nodes) are tried
// in name order and the first where the group fits wins; each try leaves
// nothing behind unless it wins.
func (s *Scheduler) placeGroup(ctx context.Context, g *model.PodGroup, need int, members []*model.Pod, p *groupPlacer) *gang.Result {
	if g.TopologyKey == "" {
		return gang.Place(ctx, g, need, members, p)
	}
	if err := s.cache.UpdateSnapshot(s.snapshot); err != nil {
		s.logger.Error("updating the snapshot failed", "err", err)
	}
	nodesIn := map[string]map[string]bool{}
	var domains []string
	for _, ni := range s.snapshot.List() {
		v, ok := ni.Node().Labels[g.TopologyKey]
		if !ok {
			continue
		}
		if nodesIn[v] == nil {
			nodesIn[v] = map[string]bool{}
			domains = append(domains, v)
		}
		nodesIn[v][ni.Name()] = true
	}
	slices.Sort(domains)
	best := &gang.Result{Group: g, Need: need}
	var bestFails map[string]*failure
	for _, d := range domains {
		p.within, p.fails = nodesIn[d], map[string]*failure{}
		r := gang.Place(ctx, g, need, members, p)
		r.Domain = d
		if r.Scheduled {
			return r
		}
		if bestFails == nil || r.Fit > best.Fit {
			best, bestFails = r, p.fails
		}
	}
	p.fails = bestFails
	if p.fails == nil {
		p.fails = map[string]*failure{}
		for _, m := range members {
			best.Misses = append(best.Misses, gang.Miss{Pod: m, Why: "no node in a topology domain"})
		}
	}
	return best
}

// groupPlacer is gang.Placer over the loop: each member's try is a
// scheduling cycle without PostFilter, its pod assumed in the cache so the
// next member's snapshot holds it.
type groupPlacer struct {
	s       *Scheduler
	fwk     framework.Framework
	infos   map[string]*framework.QueuedPodInfo
	states  map[string]*framework.CycleState
	assumed map[string]*framework.QueuedPodInfo
	fails   map[string]*failure
	// within, when set, keeps the members to these nodes (one domain of
	// the group's topology key).
	within map[string]bool
}

func (p *groupPlacer) Place(ctx context.Context, member *model.Pod) (string, bool, string) {
	qpi := p.infos[member.UID]
	state := framework.NewCycleState()
	att := &Attempt{Pod: member, Profile: p.fwk.ProfileName(), Start: p.s.clock.Now(), lean: true, inGroup: true, within: p.within}
	host, assumed, fail := p.s.schedulingCycle(ctx, state, p.fwk, qpi, att)
	if fail != nil {
		p.fails[member.UID] = fail
		return "", false, fail.message()
	}
	p.states[member.UID], p.assumed[member.UID] = state, assumed
	return host, true, ""
}

func (p *groupPlacer) Undo(ctx context.Context, member *model.Pod, node string) {
	a := p.assumed[member.UID]
	p.s.unreserveAndForget(ctx, p.states[member.UID], p.fwk, a.Pod, node)
	delete(p.assumed, member.UID)
}

func (p *groupPlacer) nodeOf(uid string) string {
	if a := p.assumed[uid]; a != nil {
		return a.Pod.NodeName
	}
	return ""
}

// startGroupBinding starts one binding cycle for the members placed.
func (s *Scheduler) startGroupBinding(ctx context.Context, g *model.PodGroup, res *gang.Result, p *groupPlacer, att *Attempt) {
	bs := make([]*binding, 0, len(res.Placed))
	s.attemptsMu.Lock()
	for _, pl := range res.Placed {
		a := p.assumed[pl.Pod.UID]
		bs = append(bs, &binding{fwk: p.fwk, state: p.states[pl.Pod.UID], qpi: a, host: pl.Node, start: att.Start})
		s.bindAttempts[pl.Pod.UID] = a.Attempts
	}
	s.attemptsMu.Unlock()
	if s.opts.Replay.BindInline {
		s.runGroupBinding(ctx, g.Name, bs)
		return
	}
	s.bindWG.Add(1)
	go func() {
		defer s.bindWG.Done()
		s.runGroupBinding(ctx, g.Name, bs)
	}()
}

// runGroupBinding is the binding cycle of a group's members: each waits
// for Permit and runs PreBind, then, with Options.GroupDecisions, the
// binds of all that got there are submitted as one plan (one commit in
// berthd's decision log) or, without, one by one through the Bind
// plugins. A member that fails on the way is requeued alone, as kube
// does: the others' binds stand (kube does not undo the bound members of
// a group).
func (s *Scheduler) runGroupBinding(ctx context.Context, group string, bs []*binding) {
	// Members with claims are bound one by one, each with its claims, as
	// before plans carried them.
	grouped := s.opts.GroupDecisions && !withClaims(bs)
	var ready []*binding
	var queued []time.Time
	for _, b := range bs {
		at, f := s.prepareBind(ctx, b)
		if f != nil {
			s.handleBindingCycleError(ctx, b, f)
			continue
		}
		if !grouped {
			if st := b.fwk.RunBindPlugins(ctx, b.state, b.qpi.Pod, b.host); !st.IsSuccess() {
				if s.takeBind(b.qpi.Pod.UID) != nil {
					s.handleBindingCycleError(ctx, b, &failure{status: st, nominating: clearNomination})
				}
				continue
			}
			s.bound(ctx, b, at)
			continue
		}
		ready = append(ready, b)
		queued = append(queued, at)
	}
	if len(ready) == 0 {
		return
	}
	plan := framework.Plan{Items: make([]framework.PlanItem, len(ready)), Group: ready[0].qpi.Pod.GroupKey()}
	for i, b := range ready {
		plan.Items[i] = &framework.Bind{Pod: b.qpi.Pod, Node: b.host}
	}
	res, err := s.decisions.Submit(ctx, plan)
	if err != nil {
		err = fmt.Errorf("binds of pod group %s: %w", group, err)
	}
	for i, b := range ready {
		if err != nil || res.Err(i) != nil {
			err := err
			if err == nil {
				err = res.Err(i)
			}
			if s.takeBind(b.qpi.Pod.UID) != nil {
				s.handleBindingCycleError(ctx, b, &failure{status: framework.AsStatus(err), nominating: clearNomination})
			}
			continue
		}
		s.bound(ctx, b, queued[i])
	}
}

// withClaims reports whether a member has resource claims.
func withClaims(bs []*binding) bool {
	for _, b := range bs {
		if len(b.qpi.Pod.ResourceClaims) > 0 {
			return true
		}
	}
	return false
}
