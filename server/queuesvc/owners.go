package queuesvc

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

// The workloads of queued Jobs and StatefulSets, from their pods: berthd
// sees pods, not their owners, so an owner is known by its pods'
// controller owner reference and the Kueue labels and annotations they
// carry (integrations.OwnerOf). The workload is integrations.ForOwner's,
// as berthctl simulate's.

// ownerWorkload is the one workload of a queued owner's pods: admitted by
// its Admit, evicting (preempted in this process, or its pods running
// with an Evict after a restart: they hold its quota until they are
// gone), or pending. Pods of it running without an admission are its
// Error (their quota cannot be known), as berthctl simulate refuses a
// queued Job with running pods.
func (c *Controller) ownerWorkload(o integrations.Owner, pods []*model.Pod, prio integrations.Priorities, queues *integrations.Queues, facts map[string]*berthv1.Admit, evicting map[string]*evicting) *workload {
	key := o.Key()
	w := &workload{key: key, origin: OriginOwner, pods: pods, profile: pods[0].SchedulerName}
	w.wl = integrations.ForOwner(o, pods[0], pods, prio)
	fact, ev := facts[key], evicting[key]
	switch {
	case fact != nil:
		w.wl.Admission = admissionOf(fact, c.admittedAt(key, w.wl.Created))
		w.admitted, w.durable = true, true
	case ev != nil:
		w.wl.Admission = ev.admission
		w.admitted, w.evicting = true, true
	default:
		if a, bound, err := c.terminatingAdmission(w.wl, pods, queues); err != nil {
			w.wl.Error = err.Error()
		} else if a != nil {
			// Preempted before a restart: its terminating pods hold the
			// quota they use until they are gone, and it is not admitted
			// again meanwhile.
			w.wl.Admission, w.wl.PodSets[0].Count = a, a.PodSetAssignments[0].Count
			w.wl.Pods, w.wl.Running = nil, bound
			w.admitted, w.evicting = true, true
		}
	}
	return w
}

// terminatingAdmission is the admission the bound members of a workload
// not admitted hold: nil when none is bound; when every bound member has
// an Evict (its workload was preempted before a restart), their count in
// each pod set with the flavors their nodes' labels match (as a running
// pod's, integrations.Queues.RunningAdmission); otherwise an error, since
// running members without an admission are not supported.
func (c *Controller) terminatingAdmission(wl *quota.Workload, members []*model.Pod, queues *integrations.Queues) (*quota.Admission, []string, error) {
	var bound []string
	var out *quota.Admission
	byName := map[string]int{}
	for _, p := range members {
		if p.NodeName == "" {
			continue
		}
		if !c.opts.Evicted(p.UID) {
			return nil, nil, fmt.Errorf("running pod %s of workload %s has no admission: a queued owner's or group's running pods are not supported", p.Key(), wl.Key())
		}
		bound = append(bound, p.Key())
		labels := p.NodeSelector
		if n, ok := c.opts.Objects.Node(p.NodeName); ok {
			labels = n.Labels
		}
		a, err := queues.RunningAdmission(p.Namespace, wl.QueueName, integrations.PodRequests(p), labels)
		if err != nil {
			return nil, nil, fmt.Errorf("terminating pod %s on node %s: %w", p.Key(), p.NodeName, err)
		}
		if out == nil {
			out = &quota.Admission{ClusterQueue: a.ClusterQueue, Reserved: wl.Created}
		}
		name := podSetOf(wl, p)
		i, ok := byName[name]
		if !ok {
			i = len(out.PodSetAssignments)
			byName[name] = i
			out.PodSetAssignments = append(out.PodSetAssignments, quota.PodSetAssignment{Name: name, Flavors: maps.Clone(a.PodSetAssignments[0].Flavors)})
		}
		out.PodSetAssignments[i].Count++
	}
	return out, bound, nil
}

// podSetOf is the pod set of a workload a member is in: by its shape for
// a group, the one pod set otherwise.
func podSetOf(wl *quota.Workload, p *model.Pod) string {
	if name, ok := wl.PodSetOf[p.Key()]; ok {
		return name
	}
	if len(wl.PodSets) == 1 {
		return wl.PodSets[0].Name
	}
	return integrations.PodSetName(p)
}

// releasedPods is, for an owner workload admitted with count pods, the
// pods released: the first count of them in integrations.ReleaseOrder,
// those running or released before first (a release is not taken back).
// A partially admitted Job's other pods stay gated, as Kueue lowers its
// parallelism to the count admitted.
func (c *Controller) releasedPods(pods []*model.Pod, count int32, before map[string]bool) map[string]bool {
	first := func(p *model.Pod) bool {
		_, binding := c.opts.Binding(p.UID)
		return p.NodeName != "" || binding || before[p.Key()]
	}
	out := map[string]bool{}
	for i, p := range integrations.ReleaseOrder(pods, first) {
		if int32(i) >= count {
			break
		}
		out[p.Key()] = true
	}
	return out
}

// admittedCount is the pods an Admit admits in all.
func admittedCount(a *berthv1.Admit) int32 {
	var n int32
	for _, ps := range a.GetPodSets() {
		n += ps.GetCount()
	}
	return n
}

// syncGroupGates applies again the members of the PodGroups whose
// queue-name label came or went since the last round: sent before their
// group, they were not gated by it.
func (c *Controller) syncGroupGates(ctx context.Context) []error {
	c.mu.Lock()
	var members []*model.Pod
	if len(c.regate) > 0 {
		for _, p := range c.pods {
			if p.SchedulingGroup != "" && c.regate[p.Namespace+"/"+p.SchedulingGroup] {
				members = append(members, p)
			}
		}
		clear(c.regate)
	}
	c.mu.Unlock()
	slices.SortFunc(members, func(a, b *model.Pod) int { return strings.Compare(a.Key(), b.Key()) })
	return c.refresh(ctx, members)
}

// podSetsCount is the pods an Admission item admits in all.
func podSetsCount(sets []framework.PodSetAdmission) int32 {
	var n int32
	for _, ps := range sets {
		n += ps.Count
	}
	return n
}

// syncOwnerPods keeps the released pods of every admitted owner workload
// in step with its pods (a Job's replacement pods are released within its
// admitted count) and refreshes those whose release changed, and those of
// PodGroups queued or unqueued since the last round (syncGroupGates).
func (c *Controller) syncOwnerPods(ctx context.Context, s *snapshot) []error {
	errs := c.syncGroupGates(ctx)
	for _, k := range slices.Sorted(maps.Keys(s.facts)) {
		a, w := s.facts[k], s.workloads[k]
		if w == nil || w.origin != OriginOwner {
			continue
		}
		errs = append(errs, c.setOwnerRelease(ctx, w, admittedCount(a))...)
	}
	return errs
}

// setOwnerRelease records which of an owner workload's pods are released
// and refreshes the pending ones whose release changed.
func (c *Controller) setOwnerRelease(ctx context.Context, w *workload, count int32) []error {
	return c.refresh(ctx, c.ownerRelease(w, count))
}

// ownerRelease records which of an owner workload's pods are released
// and returns those whose release changed.
func (c *Controller) ownerRelease(w *workload, count int32) []*model.Pod {
	c.gateMu.RLock()
	old := c.ownerReleased[w.key]
	c.gateMu.RUnlock()
	rel := c.releasedPods(w.pods, count, old)
	c.gateMu.Lock()
	c.ownerReleased[w.key] = rel
	c.gateMu.Unlock()
	var changed []*model.Pod
	for _, p := range w.pods {
		if old[p.Key()] != rel[p.Key()] {
			changed = append(changed, p)
		}
	}
	return changed
}
