package queuesvc

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
)

// runOptions are Berth's options the rounds use: no throttle (a round
// reaches every admission Kueue's cycles would, at once) and progress (a
// preemptor takes the quota its preemption frees).
var runOptions = admission.Options{NoThrottle: true, Progress: true}

// roundOptions are the round's: runOptions, with a placement checker over
// the live cluster when a ClusterQueue wants placement-aware admission.
func (c *Controller) roundOptions(ctx context.Context, s *snapshot) (admission.Options, error) {
	opts := runOptions
	wants := slices.ContainsFunc(s.objs.ClusterQueues, func(cq *quota.ClusterQueue) bool { return cq.AdmissionPlacement })
	c.mu.Lock()
	c.placement = wants
	c.mu.Unlock()
	if !wants || c.opts.Placement == nil {
		return opts, nil
	}
	p, err := c.opts.Placement(ctx)
	if err != nil {
		return opts, fmt.Errorf("queuesvc: placement-aware admission: %w", err)
	}
	opts.Placement = p
	return opts, nil
}

// round runs one admission round: snapshot, admission run, one plan of
// its decisions, then what follows their commit (pods released or gated
// again, admissions of workloads gone forgotten, the status).
func (c *Controller) round(ctx context.Context, relisted bool) error {
	s := c.snapshot()
	opts, err := c.roundOptions(ctx, s)
	if err != nil {
		return err
	}
	lines, sum, err := admission.RunWith(ctx, s.objs, s.namespaces, opts)
	if err != nil {
		return fmt.Errorf("queuesvc: admission run: %w", err)
	}
	byKey := make(map[string]admission.Line, len(lines))
	for _, l := range lines {
		byKey[l.Workload] = l
	}
	errs := c.syncReleases(ctx, s)
	errs = append(errs, c.syncOwnerPods(ctx, s)...)
	d := c.decide(s, byKey, sum.Events)
	if d.plan.Len() > 0 {
		res, err := c.opts.Planner.Submit(ctx, d.plan)
		if err != nil {
			return fmt.Errorf("queuesvc: submit %d decisions: %w", d.plan.Len(), err)
		}
		errs = append(errs, c.committed(ctx, s, d, res)...)
		// What was committed changes the next round's input (a victim's
		// quota released at once when none of its pods ran): run it,
		// whether or not an event comes. A round that commits nothing
		// (everything refused) schedules none.
		if slices.ContainsFunc(res.Revisions, func(r uint64) bool { return r > 0 }) {
			c.mu.Lock()
			c.events++
			c.mu.Unlock()
			c.wake()
		}
	}
	if relisted {
		errs = append(errs, c.forgetGone(ctx, s)...)
	}
	st := c.buildStatus(s, byKey, d)
	c.m.setStatus(st)
	c.mu.Lock()
	c.status = st
	c.mu.Unlock()
	return errors.Join(errs...)
}

// decisions are a round's plan and what each item is about.
type decisions struct {
	plan framework.Plan
	// about[i] is the workload plan item i is about.
	about []itemOf
	// waiting are the workloads the run admitted after a preemption: not
	// admitted before the victims' quota is released.
	waiting map[string]bool
	// admissions are the Admits planned, by workload; done those
	// committed, evicted the workloads whose eviction was.
	admissions    map[string]*quota.Admission
	done, evicted map[string]bool
}

type itemOf struct{ key string }

// decide makes the round's plan: the WorkloadEvictions of the victims
// with the Evicts of their bound and binding pods, then the Admits of the
// workloads newly admitted, except those the run reached only after a
// preemption (Summary.Events order): evict first, admit once the quota is
// free, in a later round.
func (c *Controller) decide(s *snapshot, lines map[string]admission.Line, events []admission.Event) *decisions {
	d := &decisions{waiting: map[string]bool{}, admissions: map[string]*quota.Admission{}, done: map[string]bool{}, evicted: map[string]bool{}}
	// A preemption frees quota in its cohort tree only: admissions after
	// it in other trees do not wait for its victims.
	root := cohortRoots(s.objs)
	treeOf := func(key string) string {
		if w := s.workloads[key]; w != nil && w.wl.Admission != nil {
			return root(w.wl.Admission.ClusterQueue)
		}
		return root(lines[key].ClusterQueue)
	}
	preempted := map[string]bool{}
	// preemptedBy are the workloads the run preempted, by preemptor: one
	// it admitted again later in the pass (a partial admission with what
	// is left) has an admitted line, but is evicted all the same, and
	// admitted again in a later round once its pods are gone.
	preemptedBy := map[string]string{}
	for _, ev := range events {
		switch ev.Kind {
		case admission.EventPreempted:
			preempted[treeOf(ev.Workload)] = true
			preemptedBy[ev.Workload] = ev.By
		case admission.EventAdmitted:
			if preempted[treeOf(ev.Workload)] {
				d.waiting[ev.Workload] = true
			}
		}
	}
	// Only the workloads preempted or admitted by the run make decisions:
	// those are sorted (the plan's order), not every workload held.
	var keys []string
	for k, w := range s.workloads {
		if r := lines[k].Result; r == admission.ResultAdmitted && !w.durable || r == admission.ResultPreempted || w.durable && preemptedBy[k] != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		w, l := s.workloads[k], lines[k]
		readmitted := l.Result != admission.ResultPreempted && w.durable && preemptedBy[k] != ""
		if l.Result != admission.ResultPreempted && !readmitted || !w.admitted || w.evicting {
			continue
		}
		by := l.PreemptedBy
		if readmitted {
			// Its line is its later admission's: the eviction names the
			// preemptor only.
			by = preemptedBy[k]
			l.Message = "preempted to accommodate workload " + by + " (admitted again with less, once its pods are gone)"
		}
		if w.durable {
			d.add(&framework.WorkloadEviction{
				Workload: ref(w), ClusterQueue: w.wl.Admission.ClusterQueue, Reason: l.PreemptionReason,
				PreemptedBy: by, Message: l.Message, SchedulerName: w.profile,
			}, itemOf{key: k})
		}
		for _, p := range w.pods {
			node := p.NodeName
			if node == "" {
				node, _ = c.opts.Binding(p.UID)
			}
			if node == "" || c.opts.Evicted(p.UID) {
				continue
			}
			d.add(&framework.Eviction{
				Victim: p, Node: node, Cause: framework.EvictQuota,
				Message: fmt.Sprintf("Preempted by workload %s (%s): %s", by, l.PreemptionReason, l.Message),
			}, itemOf{key: k})
		}
	}
	for _, k := range keys {
		w, l := s.workloads[k], lines[k]
		switch {
		case w.wl.Error != "" || w.durable || w.evicting:
			continue
		case w.admitted && w.origin == OriginExplicit:
			continue // admitted as sent: the orchestrator's, not Berth's
		case w.admitted:
			// A pod found running: its admission is written as it is.
			if l.Result == admission.ResultAdmitted {
				d.admissions[k] = w.wl.Admission
				d.add(admissionItem(w, w.wl.Admission), itemOf{key: k})
			}
		case l.Result == admission.ResultAdmitted && !d.waiting[k]:
			d.admissions[k] = lineAdmission(w.wl, l)
			d.add(admissionItem(w, d.admissions[k]), itemOf{key: k})
			// Placed in the same decision: each pod nominated to the node
			// admission found it room on, so that no later admission (nor
			// a pod of equal or lower priority) takes that room.
			for _, n := range nominations(w, l.Placement) {
				d.add(n, itemOf{key: k})
			}
		}
	}
	return d
}

// nominations are the Nominations of a workload's pending pods to the
// nodes of its placement (admission.PlacementRequest.PodName: the i-th
// pod of each pod set, its pending pods in creation order); none when
// it has no placement.
func nominations(w *workload, placement map[string]string) []framework.PlanItem {
	if len(placement) == 0 {
		return nil
	}
	bySet := map[string][]*model.Pod{}
	for _, p := range w.pods {
		if p.NodeName == "" {
			_, ps, _ := workloadOfPod(p)
			bySet[ps] = append(bySet[ps], p)
		}
	}
	r := admission.PlacementRequest{Workload: w.key}
	var out []framework.PlanItem
	for _, ps := range w.wl.PodSets {
		pods := bySet[ps.Name]
		if w.origin != OriginExplicit {
			slices.SortFunc(pods, byCreation) // an explicit one's are in index order
		}
		for i, p := range pods {
			if node, ok := placement[r.PodName(admission.PlacementPodSet{Name: ps.Name}, i)]; ok {
				out = append(out, &framework.Nomination{Pod: p, Node: node})
			}
		}
	}
	return out
}

// cohortRoots returns, for a ClusterQueue, the root of its cohort tree
// ("cohort/<name>"), or the ClusterQueue itself when it has no cohort.
func cohortRoots(objs *quota.Objects) func(cq string) string {
	parent := map[string]string{}
	for _, c := range objs.Cohorts {
		parent[c.Name] = c.Parent
	}
	cohortOf := map[string]string{}
	for _, cq := range objs.ClusterQueues {
		cohortOf[cq.Name] = cq.Cohort
	}
	return func(cq string) string {
		c := cohortOf[cq]
		if c == "" {
			return "cq/" + cq
		}
		for seen := 0; parent[c] != "" && seen <= len(parent); seen++ {
			c = parent[c] // bounded: a cycle is the engine's error
		}
		return "cohort/" + c
	}
}

func (d *decisions) add(item framework.PlanItem, of itemOf) {
	d.plan.Add(item)
	d.about = append(d.about, of)
}

func ref(w *workload) framework.WorkloadRef {
	return framework.WorkloadRef{Namespace: w.wl.Namespace, Name: w.wl.Name, UID: w.wl.UID}
}

// lineAdmission is the admission a run's line gives a workload: per pod
// set, the flavors of "podSet/resource" and the count admitted.
func lineAdmission(wl *quota.Workload, l admission.Line) *quota.Admission {
	a := &quota.Admission{ClusterQueue: l.ClusterQueue}
	for _, ps := range wl.PodSets {
		psa := quota.PodSetAssignment{Name: ps.Name, Count: ps.Count, Flavors: map[string]string{}}
		if n, ok := l.Counts[ps.Name]; ok {
			psa.Count = n
		}
		for k, f := range l.Flavors {
			if res, ok := strings.CutPrefix(k, ps.Name+"/"); ok {
				psa.Flavors[res] = f
			}
		}
		a.PodSetAssignments = append(a.PodSetAssignments, psa)
	}
	return a
}

func admissionItem(w *workload, a *quota.Admission) *framework.Admission {
	item := &framework.Admission{Workload: ref(w), ClusterQueue: a.ClusterQueue, SchedulerName: w.profile}
	for _, psa := range a.PodSetAssignments {
		item.PodSets = append(item.PodSets, framework.PodSetAdmission{Name: psa.Name, Count: psa.Count, Flavors: maps.Clone(psa.Flavors)})
	}
	return item
}

// committed follows the plan's commit: an admitted workload's pending
// pods are released (RefreshPod through the mutator), a preempted one's
// are gated again and it holds its quota until its pods are gone.
func (c *Controller) committed(ctx context.Context, s *snapshot, d *decisions, res framework.PlanResult) []error {
	var errs []error
	now := c.opts.Clock()
	evicted := map[string]bool{}
	for i, item := range d.plan.Items {
		if err := res.Err(i); err != nil {
			c.logger.Info("admission decision refused", "workload", d.about[i].key, "err", err)
			continue
		}
		w := s.workloads[d.about[i].key]
		switch it := item.(type) {
		case *framework.Admission:
			d.done[w.key] = true
			c.admittedNow(w, it, s.flavors, now)
			if w.origin == OriginOwner {
				c.ownerRelease(w, podSetsCount(it.PodSets))
			}
			errs = append(errs, c.refresh(ctx, w.pods)...)
		case *framework.WorkloadEviction:
			evicted[w.key] = true
		case *framework.Eviction:
			evicted[w.key] = true
			c.opts.MarkEvicted(ctx, it.Victim.UID)
		}
	}
	d.evicted = evicted
	for _, k := range slices.Sorted(maps.Keys(evicted)) {
		w := s.workloads[k]
		c.gateMu.Lock()
		delete(c.released, k)
		delete(c.ownerReleased, k)
		delete(c.heldCounts, k)
		c.gateMu.Unlock()
		holding := false
		for _, p := range w.pods {
			if _, binding := c.opts.Binding(p.UID); p.NodeName != "" || binding {
				holding = true
			}
		}
		c.mu.Lock()
		if holding {
			c.evicting[k] = &evicting{admission: w.wl.Admission}
		}
		delete(c.admitTimes, k)
		c.mu.Unlock()
		c.m.observeEvicted(w.wl.Admission.ClusterQueue)
		errs = append(errs, c.refresh(ctx, w.pods)...)
	}
	return errs
}

// admittedNow records a committed Admit: the pods' release, the time,
// the metrics.
func (c *Controller) admittedNow(w *workload, it *framework.Admission, flavors map[string]*quota.ResourceFlavor, now time.Time) {
	admit := &berthv1.Admit{ClusterQueue: it.ClusterQueue}
	for _, ps := range it.PodSets {
		admit.PodSets = append(admit.PodSets, &berthv1.PodSetAdmission{Name: ps.Name, Count: ps.Count, Flavors: ps.Flavors})
	}
	rel, ok := releaseOf(admit, flavors)
	c.gateMu.Lock()
	if ok {
		c.released[w.key] = rel
		if w.origin == OriginExplicit {
			c.heldCounts[w.key] = admitCounts(admit)
		}
	}
	c.gateMu.Unlock()
	c.mu.Lock()
	c.admitTimes[w.key] = now
	c.mu.Unlock()
	if !w.admitted { // a running pod's admission was Kueue's, long ago
		c.m.observeAdmitted(it.ClusterQueue, w.wl.Created, now)
	}
}

// refresh applies pods again through the mutator (released or gated).
func (c *Controller) refresh(ctx context.Context, pods []*model.Pod) []error {
	var errs []error
	for _, p := range pods {
		if p.NodeName != "" {
			continue
		}
		if err := c.opts.Objects.RefreshPod(ctx, objstore.Ref{Kind: objstore.KindPod, Namespace: p.Namespace, Name: p.Name, UID: p.UID}); err != nil {
			errs = append(errs, fmt.Errorf("queuesvc: refresh pod %s: %w", p.Key(), err))
		}
	}
	return errs
}

// syncReleases keeps the release of every durably admitted workload in
// step with the flavors held: restored admissions whose flavors arrived
// since are released, a flavor changed is applied again, one deleted
// gates the workload's pending pods until it is back. The pods Berth
// holds for an explicit Workload sent admitted (admitted elsewhere) are
// released with that admission, and gated again once it is sent without.
func (c *Controller) syncReleases(ctx context.Context, s *snapshot) []error {
	admits := s.facts
	var unadmitted []string
	for k, w := range s.workloads {
		if w.origin != OriginExplicit || len(w.pods) == 0 || s.facts[k] != nil {
			continue
		}
		if a := w.wl.Admission; a != nil && w.admitted && !w.evicting {
			if len(admits) == len(s.facts) {
				admits = maps.Clone(s.facts) // the book's facts stay as they are
			}
			admits[k] = admitOf(w.wl)
		} else {
			unadmitted = append(unadmitted, k)
		}
	}
	var errs []error
	for _, k := range slices.Sorted(slices.Values(unadmitted)) {
		c.gateMu.Lock()
		_, had := c.released[k]
		delete(c.released, k)
		delete(c.heldCounts, k)
		c.gateMu.Unlock()
		if had {
			errs = append(errs, c.refresh(ctx, s.workloads[k].pods)...)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(admits)) {
		w := s.workloads[k]
		if w == nil || len(w.pods) == 0 {
			continue
		}
		rel, ok := releaseOf(admits[k], s.flavors)
		c.gateMu.Lock()
		cur, had := c.released[k]
		switch {
		case ok && (!had || !sameRelease(cur, rel) || w.origin == OriginExplicit && !sameCounts(c.heldCounts[k], admits[k])):
			c.released[k] = rel
			if w.origin == OriginExplicit {
				c.heldCounts[k] = admitCounts(admits[k])
			}
		case !ok && had:
			delete(c.released, k)
			delete(c.heldCounts, k)
		default:
			c.gateMu.Unlock()
			continue
		}
		c.gateMu.Unlock()
		errs = append(errs, c.refresh(ctx, w.pods)...)
	}
	return errs
}

// sameCounts says whether counts are the pods a admits of each pod set.
func sameCounts(counts map[string]int32, a *berthv1.Admit) bool {
	if len(counts) != len(a.GetPodSets()) {
		return false
	}
	for _, ps := range a.GetPodSets() {
		if n, ok := counts[ps.GetName()]; !ok || n != ps.GetCount() {
			return false
		}
	}
	return true
}

// admitOf is the Admit an explicit Workload sent admitted would have: its
// admission's ClusterQueue and pod sets (a count of 0 is the set's).
func admitOf(wl *quota.Workload) *berthv1.Admit {
	counts := map[string]int32{}
	for _, ps := range wl.PodSets {
		counts[ps.Name] = ps.Count
	}
	a := &berthv1.Admit{WorkloadNamespace: wl.Namespace, WorkloadName: wl.Name, WorkloadUid: wl.UID, ClusterQueue: wl.Admission.ClusterQueue}
	for _, psa := range wl.Admission.PodSetAssignments {
		n := psa.Count
		if n == 0 {
			n = counts[psa.Name]
		}
		a.PodSets = append(a.PodSets, &berthv1.PodSetAdmission{Name: psa.Name, Count: n, Flavors: maps.Clone(psa.Flavors)})
	}
	return a
}

// forgetGone forgets the admissions of workloads gone: their pods all
// deleted, or their explicit Workload deleted.
func (c *Controller) forgetGone(ctx context.Context, s *snapshot) []error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(s.facts)) {
		if _, ok := s.workloads[k]; ok {
			continue
		}
		a := s.facts[k]
		if err := c.opts.Book.ForgetAdmission(ctx, a.GetWorkloadNamespace(), a.GetWorkloadName(), a.GetWorkloadUid()); err != nil {
			errs = append(errs, fmt.Errorf("queuesvc: forget the admission of %s: %w", k, err))
			continue
		}
		c.gateMu.Lock()
		delete(c.released, k)
		delete(c.ownerReleased, k)
		delete(c.heldCounts, k)
		c.gateMu.Unlock()
		c.mu.Lock()
		delete(c.admitTimes, k)
		c.mu.Unlock()
	}
	return errs
}
