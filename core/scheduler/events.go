package scheduler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
)

// Node events, one per kind of change, as kube's
// NodeSchedulingPropertiesChange.
var (
	eventNodeAdd    = framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd, Label: "NodeAdd"}
	eventNodeDelete = framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionDelete, Label: "NodeDelete"}
)

func nodeUpdate(a framework.ActionType, name string) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.EventNode, ActionType: a, Label: "Node" + name}
}

// nodeUpdateEvents lists what changed between two versions of a node. As in
// kube, cordoning raises nothing (it cannot make a pod schedulable), only
// uncordoning does.
func nodeUpdateEvents(old, cur *model.Node) []framework.ClusterEvent {
	var out []framework.ClusterEvent
	if old.Unschedulable && !cur.Unschedulable {
		out = append(out, nodeUpdate(framework.ActionUpdateNodeUnschedulable, "UpdateNodeUnschedulable"))
	}
	if !maps.Equal(old.Allocatable, cur.Allocatable) {
		out = append(out, nodeUpdate(framework.ActionUpdateNodeAllocatable, "UpdateNodeAllocatable"))
	}
	if !maps.Equal(old.Labels, cur.Labels) {
		out = append(out, nodeUpdate(framework.ActionUpdateNodeLabel, "UpdateNodeLabel"))
	}
	if !slices.Equal(old.Taints, cur.Taints) {
		out = append(out, nodeUpdate(framework.ActionUpdateNodeTaint, "UpdateNodeTaint"))
	}
	return out
}

// addNode adds a node or, if known, updates it. Pods the node may help are
// moved out of the unschedulable pods by their plugins' queueing hints.
func (s *Scheduler) addNode(ctx context.Context, node *model.Node) error {
	if node == nil || node.Name == "" {
		return fmt.Errorf("add node: %w", ErrInvalid)
	}
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	s.batch.nodesChanged = true
	old, known := s.cache.Node(node.Name)
	s.cache.AddNode(node)
	if !known {
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, eventNodeAdd, nil, node, nil)
		return nil
	}
	for _, ev := range nodeUpdateEvents(old, node) {
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, ev, old, node, nil)
	}
	return nil
}

// deleteNode removes a node. Pods bound to it stay counted until they are
// deleted themselves.
func (s *Scheduler) deleteNode(ctx context.Context, name string) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	old, known := s.cache.Node(name)
	if !known {
		return fmt.Errorf("delete node %s: %w", name, ErrNodeNotFound)
	}
	s.batch.nodesChanged = true
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, eventNodeDelete, old, nil, nil)
	return s.cache.RemoveNode(name)
}

// AddPod admits a pod (admitPod, the pod kind's admission) and adds it
// or, if known, updates it (addPod).
func (s *Scheduler) AddPod(ctx context.Context, pod *model.Pod) error {
	cur, err := s.admitPod(pod)
	if err != nil {
		return err
	}
	return s.addPod(ctx, cur)
}

// admitPod is the pod kind's admission (core/podadmission): the default
// scheduler name; for a new pod, its priority resolved from its class (a
// priority it carries is kept; for a pending pod an unknown class fails
// with *priority.UnknownClassError); for a known one, what is fixed at
// creation kept as admitted. A pod addPod refuses as invalid passes as it
// is.
func (s *Scheduler) admitPod(pod *model.Pod) (*model.Pod, error) {
	if pod == nil || pod.UID == "" || pod.Name == "" {
		return pod, nil
	}
	old, _ := s.state.lookup(pod.UID)
	return s.admission.Pod(pod, old)
}

// addPod applies a pod as admitted (the pod kind's Upsert; pods are
// upserted):
//   - a pod the scheduler evicted is held terminating (holdEvicted);
//   - a new pending pod is queued if a profile serves its schedulerName;
//   - a bound pod (NodeName set) occupies its node; if the scheduler had
//     assumed it, the bind is confirmed;
//   - an update of a pending pod requeues it when it may now fit; a pending
//     pod's nomination is the scheduler's: an update carrying none keeps it;
//   - a terminating pod keeps occupying its node until deleted;
//   - a bound pod sent without NodeName is refused with ErrPodBound: a pod
//     does not go back to pending under the same uid (see Unbind).
func (s *Scheduler) addPod(ctx context.Context, pod *model.Pod) error {
	if pod == nil || pod.UID == "" || pod.Name == "" {
		return fmt.Errorf("add pod: %w", ErrInvalid)
	}
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	old, known := s.state.lookup(pod.UID)
	cur := s.state.holdEvicted(pod)
	if _, err := framework.NewPodInfo(cur); err != nil {
		return fmt.Errorf("pod %s: %w", cur.Key(), err)
	}
	s.ensureNamespace(ctx, cur.Namespace)
	switch {
	case !known:
		s.state.store(cur)
		s.memberAddedLocked(cur)
		s.addPodClaimsLocked(ctx, cur)
		s.addPodVolumeClaimsLocked(ctx, cur)
		if cur.NodeName != "" {
			return s.addBoundPod(ctx, cur)
		}
		return s.queuePod(ctx, cur)
	case old.NodeName == "" && cur.NodeName == "":
		return s.updatePendingPod(ctx, old, cur)
	case old.NodeName == "" && cur.NodeName != "":
		// The bind arrived: confirm the assumption (or take an external bind).
		s.state.store(cur)
		s.takeBind(cur.UID)
		s.forgetRecord(cur.UID)
		s.batch.dropLocked(cur.UID)
		s.queue.Delete(old)
		return s.addBoundPod(ctx, cur)
	case old.NodeName != "" && cur.NodeName != "":
		s.state.store(cur)
		if err := s.cache.UpdatePod(cur); err != nil {
			return fmt.Errorf("update pod %s: %w", cur.Key(), err)
		}
		for _, ev := range queue.PodUpdateEvents(old, cur) {
			s.queue.MoveAllToActiveOrBackoffQueue(ctx, ev, old, cur, nil)
		}
		return nil
	default:
		// A bound pod cannot become pending again under the same uid:
		// scheduling it again would bind it twice.
		return fmt.Errorf("pod %s is bound to %s; an upsert cannot clear its node (delete the pod, or send it again under a new uid): %w",
			old.Key(), old.NodeName, ErrPodBound)
	}
}

// Unbind makes a pod the scheduler holds as bound pending again and
// queues it. It is for a bind the caller reports failed that the
// scheduler holds as bound (one restored after a restart, counted on its
// node until settled); AddPod refuses to unbind a pod.
func (s *Scheduler) Unbind(ctx context.Context, uid string) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	old, known := s.state.lookup(uid)
	if !known {
		return fmt.Errorf("unbind %s: %w", uid, ErrPodNotFound)
	}
	if old.NodeName == "" {
		return nil
	}
	cur := *old
	cur.NodeName = ""
	s.removeBoundPod(ctx, old)
	// Its volumes were reserved for the bind that failed (Restore).
	s.releaseVolumesLocked(ctx, uid)
	s.state.store(&cur)
	return s.queuePod(ctx, &cur)
}

// DeletePod forgets a pod (by UID). A bound pod frees its node; an assumed
// one is forgotten and its binding abandoned. Its claims lose it as a
// consumer, those made for it are deleted, and the claims it was the last
// consumer of are deallocated and reported as Deallocations (after the
// state-in lock is released).
func (s *Scheduler) DeletePod(ctx context.Context, pod *model.Pod) error {
	if len(pod.ResourceClaims) > 0 {
		// The devices the pod frees must not reach a scheduling cycle before
		// their Deallocation is in the log: a Bind handing them on would
		// come first, and a watcher would see one device given twice. No
		// cycle runs while cycleMu is held (cycleMu, then ingestMu).
		s.cycleMu.Lock()
		defer s.cycleMu.Unlock()
	}
	freed, err := s.deletePod(ctx, pod)
	if err != nil {
		return err
	}
	return s.reportDeallocations(ctx, freed)
}

func (s *Scheduler) deletePod(ctx context.Context, pod *model.Pod) ([]*resourceapi.ResourceClaim, error) {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	old, known := s.state.lookup(pod.UID)
	if !known {
		return nil, fmt.Errorf("delete pod %s: %w", pod.Key(), ErrPodNotFound)
	}
	s.state.remove(old)
	s.groups.RemoveMember(old)
	s.forgetRecord(old.UID)
	if old.NodeName != "" {
		s.removeBoundPod(ctx, old)
		s.removePodVolumeClaimsLocked(ctx, old)
		return s.removePodClaimsLocked(ctx, old), nil
	}
	nominated, _ := s.queue.Nominator().NominatedNodeName(old.UID)
	s.batch.dropLocked(old.UID)
	s.queue.Delete(old)
	if s.cache.IsAssumed(old.UID) {
		s.abandonAssumed(ctx, old)
	} else if nominated != "" {
		// Lower-priority pods treated the nominee as if it were on the node.
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, queue.EventAssignedPodDelete(), old, nil, lowerOrEqualPriority(old.Priority))
	}
	s.removePodVolumeClaimsLocked(ctx, old)
	return s.removePodClaimsLocked(ctx, old), nil
}

func (s *Scheduler) addBoundPod(ctx context.Context, pod *model.Pod) error {
	if err := s.cache.AddPod(pod); err != nil {
		return fmt.Errorf("add pod %s: %w", pod.Key(), err)
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, queue.EventAssignedPodAdd(), nil, pod, nil)
	return nil
}

func (s *Scheduler) removeBoundPod(ctx context.Context, pod *model.Pod) {
	if err := s.cache.RemovePod(pod); err != nil {
		s.logger.Error("removing a bound pod from the cache failed", "pod", pod.Key(), "err", err)
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, queue.EventAssignedPodDelete(), pod, nil, nil)
}

// queuePod queues a pending pod whose schedulerName a profile serves, at
// the end of the batch if one is open (StartBatch).
func (s *Scheduler) queuePod(ctx context.Context, pod *model.Pod) error {
	if _, ok := s.profiles[profileName(pod)]; !ok {
		return nil // another scheduler's pod
	}
	if s.batch.deferLocked(pod.UID) {
		return nil
	}
	return s.queueNowLocked(ctx, pod)
}

func (s *Scheduler) queueNowLocked(ctx context.Context, pod *model.Pod) error {
	if _, ok := s.profiles[profileName(pod)]; !ok {
		return nil
	}
	// The queue time is recorded first: once queued, the pod may be popped
	// and bound at once, and a binding cycle that found no queue time would
	// observe no scheduling latency.
	now := s.clock.Now()
	var before time.Time
	s.state.updateRecord(pod.UID, func(r *podRecord) { before, r.queuedAt = r.queuedAt, now })
	if err := s.queue.Add(ctx, pod); err != nil {
		s.state.updateRecord(pod.UID, func(r *podRecord) {
			if r.queuedAt.Equal(now) {
				r.queuedAt = before
			}
		})
		return fmt.Errorf("queue pod %s: %w", pod.Key(), err)
	}
	return nil
}

func (s *Scheduler) updatePendingPod(ctx context.Context, old, cur *model.Pod) error {
	if old.NominatedNodeName != "" && cur.NominatedNodeName == "" {
		cur.NominatedNodeName = old.NominatedNodeName
	}
	s.state.store(cur)
	if s.cache.IsAssumed(cur.UID) {
		// Its binding is in flight; only a deletion starting matters.
		if cur.Terminating && !old.Terminating {
			s.abandonAssumed(ctx, cur)
		}
		return nil
	}
	if _, ok := s.profiles[profileName(cur)]; !ok {
		return nil
	}
	if s.batch.heldLocked(cur.UID) {
		return nil // queued as it is at the end of its batch
	}
	if err := s.queue.Update(ctx, old, cur); err != nil {
		return fmt.Errorf("update pod %s: %w", cur.Key(), err)
	}
	if old.NominatedNodeName != "" && old.NominatedNodeName != cur.NominatedNodeName {
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, queue.EventAssignedPodDelete(), old, nil, lowerOrEqualPriority(old.Priority))
	}
	return nil
}

// abandonAssumed handles the deletion of a pod whose binding is in flight
// (kube's handleAssumedPodDeletion): a pod waiting on Permit is rejected
// (its binding cycle cleans up); otherwise the assumption is forgotten at
// once so its room is not held.
func (s *Scheduler) abandonAssumed(ctx context.Context, pod *model.Pod) {
	st, ok := s.cache.Pod(pod.UID)
	if !ok || !st.Assumed {
		return
	}
	fwk, ok := s.profiles[profileName(st.Pod)]
	if !ok || !fwk.RejectWaitingPod(pod.UID) {
		s.takeBind(pod.UID)
		if err := s.cache.ForgetPod(st.Pod); err != nil {
			s.logger.Error("forgetting a deleted assumed pod failed", "pod", pod.Key(), "err", err)
		}
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, queue.EventAssignedPodDelete(), st.Pod, nil, nil)
}

func lowerOrEqualPriority(p int32) func(*model.Pod) bool {
	return func(pod *model.Pod) bool { return pod.Priority <= p }
}
