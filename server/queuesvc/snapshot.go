package queuesvc

import (
	"cmp"
	"maps"
	"slices"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
	"github.com/berthsched/berth/core/quota/workloadpods"
)

// Origin says what a workload was made of.
type Origin string

// The origins of workloads.
const (
	OriginPod      Origin = "pod"       // a pod labelled with a queue name
	OriginPodGroup Origin = "pod_group" // a PodGroup whose members are
	OriginOwner    Origin = "owner"     // a queued Job's or StatefulSet's pods
	OriginExplicit Origin = "explicit"  // a Workload object
)

// workload is one workload of a round: what was given to the admission
// run, and what the round needs to act on its outcome.
type workload struct {
	key    string
	origin Origin
	wl     *quota.Workload
	// pods are the workload's pods as sent (none for an explicit one).
	pods    []*model.Pod
	profile string
	// admitted: it held quota before the round; durable: by an Admit in
	// the book (else by a pod found running, not yet written, or by the
	// Workload as sent); evicting: preempted, its pods not all gone.
	admitted, durable, evicting bool
}

// snapshot is the input of one round.
type snapshot struct {
	objs       *quota.Objects
	namespaces []*model.Namespace
	workloads  map[string]*workload
	facts      map[string]*berthv1.Admit
	flavors    map[string]*quota.ResourceFlavor
	// errs are the owner workloads whose pods' annotations are wrong.
	errs map[string]string
}

// snapshot reads the caches, the holder and the book into one round's
// input: every workload derived (integrations), those admitted carrying
// their Admission.
func (c *Controller) snapshot() *snapshot {
	c.mu.Lock()
	pods := slices.Collect(maps.Values(c.pods))
	groups := maps.Clone(c.groups)
	namespaces := slices.Collect(maps.Values(c.namespaces))
	classes := slices.Collect(maps.Values(c.classes))
	c.mu.Unlock()
	slices.SortFunc(namespaces, func(a, b *model.Namespace) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(classes, func(a, b *model.PriorityClass) int { return cmp.Compare(a.Name, b.Name) })

	held := c.opts.Holder.Objects(c.opts.Config)
	s := &snapshot{namespaces: namespaces, workloads: map[string]*workload{}, facts: map[string]*berthv1.Admit{}, flavors: flavorIndex(held), errs: map[string]string{}}
	for _, a := range c.opts.Book.Admissions() {
		s.facts[a.GetWorkloadNamespace()+"/"+a.GetWorkloadName()] = a
	}
	prio := integrations.Priorities{PriorityClasses: classes, WorkloadClasses: held.PriorityClasses}
	c.derived.begin(prio)
	defer c.derived.end()
	queues := integrations.NewQueues(held)
	evicting := c.evictingNow(pods)

	byGroup := map[string][]*model.Pod{}
	var groupOrder []string
	byHeld := map[string][]*model.Pod{}
	byOwner := map[string][]*model.Pod{}
	owners := map[string]integrations.Owner{}
	var ownerOrder []string
	for _, p := range pods {
		if r, ok := workloadpods.Of(p); ok {
			byHeld[r.WorkloadKey()] = append(byHeld[r.WorkloadKey()], p)
			continue
		}
		if p.SchedulingGroup != "" {
			k := p.Namespace + "/" + p.SchedulingGroup
			if _, ok := byGroup[k]; !ok {
				groupOrder = append(groupOrder, k)
			}
			byGroup[k] = append(byGroup[k], p)
			continue
		}
		if o, ok, err := integrations.OwnerOf(p); ok {
			k := o.Key()
			if _, seen := owners[k]; !seen {
				ownerOrder = append(ownerOrder, k)
				owners[k] = o
			}
			if _, had := s.errs[k]; err != nil && !had {
				s.errs[k] = err.Error() // the first pod's error is the workload's
			}
			byOwner[k] = append(byOwner[k], p)
			continue
		}
		s.add(c.podWorkload(p, prio, queues, s.facts, evicting))
	}
	for _, k := range ownerOrder {
		slices.SortFunc(byOwner[k], byCreation) // as a group's members, below
		w := c.ownerWorkload(owners[k], byOwner[k], prio, queues, s.facts, evicting)
		if msg, bad := s.errs[k]; bad {
			w.wl.Error = msg
		}
		s.add(w)
	}
	for _, k := range groupOrder {
		// A group's members in creation order (then by key), as the
		// derivation wants them; one-pod workloads need no order (the
		// workloads are sorted below), so the pods at large are not sorted.
		slices.SortFunc(byGroup[k], byCreation)
		g := groups[k]
		if g == nil {
			members := byGroup[k]
			g = &model.PodGroup{Namespace: members[0].Namespace, Name: members[0].SchedulingGroup}
		}
		queue, queued := groupQueue(g, byGroup[k])
		if !queued {
			continue // members of a group no queue holds
		}
		if w := c.groupWorkload(g, queue, byGroup[k], prio, queues, s.facts, evicting); w != nil {
			s.add(w)
		}
	}
	for _, src := range held.Workloads {
		if !src.HasPriority && src.Error == "" {
			// Sent with a WorkloadPriorityClass's name and no value: resolved
			// against the classes held now, as Kueue's webhook resolves it.
			cp := *src
			if err := prio.Resolve(&cp, cp.PriorityClass, integrations.KindWorkloadPriorityClass); err != nil {
				cp.Error = err.Error()
			}
			src = &cp
		}
		w := &workload{key: src.Key(), origin: OriginExplicit, wl: src, admitted: src.Admission != nil, pods: heldPods(src, byHeld[src.Key()])}
		if a := s.facts[w.key]; a != nil && src.Admission == nil && (a.GetWorkloadUid() == "" || a.GetWorkloadUid() == src.UID) {
			cp := *src
			cp.Admission = c.derived.admission(w.key, a, c.admittedAt(w.key, src.Created))
			w.wl, w.admitted, w.durable = &cp, true, true
		}
		s.add(w)
	}
	objs := *held
	objs.Workloads = make([]*quota.Workload, 0, len(s.workloads))
	for _, w := range s.workloads {
		objs.Workloads = append(objs.Workloads, w.wl)
	}
	slices.SortFunc(objs.Workloads, func(a, b *quota.Workload) int {
		return cmp.Or(a.Created.Compare(b.Created), compareKeys(a.Namespace, a.Name, b.Namespace, b.Name))
	})
	s.objs = &objs
	return s
}

// heldPods are the pods Berth holds of an explicit Workload
// (core/quota/workloadpods) among pods, pod set by pod set in the
// workload's order, each in index order; a pod of a pod set or uid the
// Workload no longer has (one being deleted) is left out.
func heldPods(w *quota.Workload, pods []*model.Pod) []*model.Pod {
	if len(pods) == 0 {
		return nil
	}
	order := make(map[string]int, len(w.PodSets))
	for i, ps := range w.PodSets {
		order[ps.Name] = i
	}
	type indexed struct {
		p        *model.Pod
		set, idx int
	}
	var in []indexed
	for _, p := range pods {
		r, _ := workloadpods.Of(p)
		i, ok := order[r.PodSet]
		if !ok || r.Index >= w.PodSets[i].Count || p.UID != workloadpods.PodUID(w, r.PodSet, r.Index) {
			continue
		}
		in = append(in, indexed{p, i, int(r.Index)})
	}
	slices.SortFunc(in, func(a, b indexed) int { return cmp.Or(cmp.Compare(a.set, b.set), cmp.Compare(a.idx, b.idx)) })
	out := make([]*model.Pod, len(in))
	for i, x := range in {
		out[i] = x.p
	}
	return out
}

// byCreation orders pods by creation time, then by namespace/name.
func byCreation(a, b *model.Pod) int {
	return cmp.Or(a.CreationTime.Compare(b.CreationTime), compareKeys(a.Namespace, a.Name, b.Namespace, b.Name))
}

// compareKeys compares aNS+"/"+aName with bNS+"/"+bName as strings,
// without building them (sorting tens of thousands of workloads each
// round, the keys' allocations were most of the sort's cost).
func compareKeys(aNS, aName, bNS, bName string) int {
	at := func(ns, name string, i int) byte {
		switch {
		case i < len(ns):
			return ns[i]
		case i == len(ns):
			return '/'
		}
		return name[i-len(ns)-1]
	}
	la, lb := len(aNS)+1+len(aName), len(bNS)+1+len(bName)
	if aNS == bNS {
		return cmp.Compare(aName, bName)
	}
	for i := range min(la, lb) {
		if c := cmp.Compare(at(aNS, aName, i), at(bNS, bName, i)); c != 0 {
			return c
		}
	}
	return cmp.Compare(la, lb)
}

func (s *snapshot) add(w *workload) {
	if w != nil {
		s.workloads[w.key] = w
	}
}

// evictingNow drops the evicting workloads none of whose pods is bound
// or binding any more (their quota is released: they are requeued) and
// returns the others.
func (c *Controller) evictingNow(pods []*model.Pod) map[string]*evicting {
	holding := map[string]bool{}
	for _, p := range pods {
		if p.NodeName != "" {
			holding[workloadKey(p)] = true
		} else if _, ok := c.opts.Binding(p.UID); ok {
			holding[workloadKey(p)] = true
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.evicting {
		if !holding[k] {
			delete(c.evicting, k)
		}
	}
	return maps.Clone(c.evicting)
}

func workloadKey(p *model.Pod) string {
	k, _, _ := workloadOfPod(p)
	return k
}

// podWorkload is the one-pod workload of a labelled pod: admitted by its
// Admit, evicting (preempted in this process, or running with an Evict
// after a restart), running (bound when first seen: admitted to the queue
// its node's labels match, as Kueue's running pods are), or pending.
func (c *Controller) podWorkload(p *model.Pod, prio integrations.Priorities, queues *integrations.Queues, facts map[string]*berthv1.Admit, evicting map[string]*evicting) *workload {
	queue := p.Labels[integrations.QueueNameLabel]
	w := &workload{origin: OriginPod, pods: []*model.Pod{p}, profile: p.SchedulerName}
	w.wl = c.derived.pod(p, queue, prio)
	w.key = w.wl.Key()
	switch ev := evicting[w.key]; {
	case facts[w.key] != nil:
		w.wl.Admission = c.derived.admission(w.key, facts[w.key], c.admittedAt(w.key, p.CreationTime))
		w.admitted, w.durable = true, true
	case ev != nil:
		w.wl.Admission = ev.admission
		w.admitted, w.evicting = true, true
	case p.NodeName != "":
		labels := p.NodeSelector
		if n, ok := c.opts.Objects.Node(p.NodeName); ok {
			labels = n.Labels
		}
		w.wl = integrations.ForRunningPod(p, queue, labels, queues, prio)
		w.admitted = w.wl.Admission != nil
		w.evicting = w.admitted && c.opts.Evicted(p.UID)
	}
	if w.admitted && p.NodeName != "" {
		w.wl.Pods, w.wl.Running = nil, []string{p.Key()}
	}
	return w
}

// groupWorkload is the one workload of a queued PodGroup's members: all
// of them once admitted (their pod sets as admitted), its terminating
// ones when it was preempted before a restart (they hold its quota until
// they are gone), the pending ones otherwise (nil when none is pending).
func (c *Controller) groupWorkload(g *model.PodGroup, queue string, members []*model.Pod, prio integrations.Priorities, queues *integrations.Queues, facts map[string]*berthv1.Admit, evicting map[string]*evicting) *workload {
	key := g.Key()
	w := &workload{key: key, origin: OriginPodGroup, pods: members, profile: members[0].SchedulerName}
	fact, ev := facts[key], evicting[key]
	all := make([]*model.Pod, len(members))
	for i, p := range members {
		cp := *p
		cp.NodeName = "" // counted whether bound or not: the admission covers them all
		all[i] = &cp
	}
	if fact == nil && ev == nil {
		// Preempted before a restart: its members still terminating hold
		// the quota they use until they are gone.
		if full := integrations.ForGroup(g, queue, all, prio); full != nil && full.Error == "" {
			if a, bound, err := c.terminatingAdmission(full, members, queues); err == nil && a != nil {
				full.Admission = a
				alignPodSets(full)
				// Only the terminating members' pod sets, at their count:
				// its pending members hold nothing.
				full.PodSets = full.PodSets[:len(a.PodSetAssignments)]
				for i := range full.PodSets {
					full.PodSets[i].Count = a.PodSetAssignments[i].Count
				}
				full.Pods, full.Running = nil, bound
				w.wl, w.admitted, w.evicting = full, true, true
				return w
			}
		}
		w.wl = integrations.ForGroup(g, queue, members, prio)
		if w.wl == nil {
			return nil // every member runs: not a workload Berth admitted
		}
		return w
	}
	w.wl = integrations.ForGroup(g, queue, all, prio)
	w.admitted = true
	if fact != nil {
		w.wl.Admission, w.durable = c.derived.admission(key, fact, c.admittedAt(key, w.wl.Created)), true
	} else {
		w.wl.Admission, w.evicting = ev.admission, true
	}
	alignPodSets(w.wl)
	return w
}

// groupQueue is the LocalQueue a PodGroup's workload is queued in: its own
// queue-name label's, else its first labelled member's; false when
// neither is labelled.
func groupQueue(g *model.PodGroup, members []*model.Pod) (string, bool) {
	if q, ok := g.Labels[integrations.QueueNameLabel]; ok {
		return q, true
	}
	for _, p := range members {
		if q, ok := p.Labels[integrations.QueueNameLabel]; ok {
			return q, true
		}
	}
	return "", false
}

// alignPodSets orders an admitted workload's pod sets as its admission
// names them (the engine pairs them by position) and drops the
// assignments of pod sets no member is in any more.
func alignPodSets(wl *quota.Workload) {
	byName := map[string]quota.PodSet{}
	for _, ps := range wl.PodSets {
		byName[ps.Name] = ps
	}
	a := *wl.Admission
	a.PodSetAssignments = nil
	var sets []quota.PodSet
	for _, psa := range wl.Admission.PodSetAssignments {
		if ps, ok := byName[psa.Name]; ok {
			sets = append(sets, ps)
			a.PodSetAssignments = append(a.PodSetAssignments, psa)
			delete(byName, psa.Name)
		}
	}
	for _, ps := range wl.PodSets {
		if _, extra := byName[ps.Name]; extra {
			sets = append(sets, ps) // joined since: not admitted
		}
	}
	wl.PodSets, wl.Admission = sets, &a
}

// admitCounts are the pods an Admit admits of each pod set.
func admitCounts(a *berthv1.Admit) map[string]int32 {
	out := make(map[string]int32, len(a.GetPodSets()))
	for _, ps := range a.GetPodSets() {
		out[ps.GetName()] = ps.GetCount()
	}
	return out
}

// admissionOf is the quota.Admission an Admit records.
func admissionOf(a *berthv1.Admit, reserved time.Time) *quota.Admission {
	out := &quota.Admission{ClusterQueue: a.GetClusterQueue(), Reserved: reserved}
	for _, ps := range a.GetPodSets() {
		out.PodSetAssignments = append(out.PodSetAssignments, quota.PodSetAssignment{
			Name: ps.GetName(), Count: ps.GetCount(), Flavors: maps.Clone(ps.GetFlavors()),
		})
	}
	return out
}

// admittedAt is when the controller admitted the workload (orders Kueue's
// preemption candidates), or created when it was not in this process.
func (c *Controller) admittedAt(key string, created time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.admitTimes[key]; ok {
		return t
	}
	return created
}

// flavorIndex is objs' flavors by name.
func flavorIndex(objs *quota.Objects) map[string]*quota.ResourceFlavor {
	out := make(map[string]*quota.ResourceFlavor, len(objs.Flavors))
	for _, f := range objs.Flavors {
		out[f.Name] = f
	}
	return out
}

// releaseOf is, per pod set of an Admit, the flavors its pods are
// released with, in resource order (as admission.ApplyToPods applies
// them); false when a flavor is not held (yet: after a restart the
// flavors may come after the pods), and the pods stay gated.
func releaseOf(a *berthv1.Admit, flavors map[string]*quota.ResourceFlavor) (map[string][]*quota.ResourceFlavor, bool) {
	out := map[string][]*quota.ResourceFlavor{}
	for _, ps := range a.GetPodSets() {
		var fs []*quota.ResourceFlavor
		for _, r := range slices.Sorted(maps.Keys(ps.GetFlavors())) {
			f := flavors[ps.GetFlavors()[r]]
			if f == nil {
				return nil, false
			}
			fs = append(fs, f)
		}
		out[ps.GetName()] = fs
	}
	return out, true
}

// sameRelease says whether two releases give the same flavors.
func sameRelease(a, b map[string][]*quota.ResourceFlavor) bool {
	return maps.EqualFunc(a, b, func(x, y []*quota.ResourceFlavor) bool { return slices.Equal(x, y) })
}
