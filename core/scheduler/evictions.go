package scheduler

import (
	"context"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
)

// An Evict decision is kube-scheduler's deletion of the victim: the API
// server makes the victim terminating, with a DisruptionTarget condition
// of reason PreemptionByScheduler, at once, and the scheduler sees it so.
// Berth's orchestrator acts later, so the scheduler marks the victim itself:
// from the Evict on, and until the pod is deleted, it holds the pod as
// terminating by preemption (Terminating and Preempted set), whatever
// upserts of it say (clusterState.holdEvicted, applied by the pod kind's
// Upsert under ingestMu, so a mark set between an upsert's admission and
// its apply holds). So:
//   - a preemptor nominated to the victim's node waits for it instead of
//     preempting again (core/preemption's eligibility);
//   - no other preemptor evicts it again (the executor skips terminating
//     victims);
//   - it no longer counts as healthy for disruption budgets;
//   - it keeps its node's resources until it is deleted.
//
// The set survives restarts through the server (Restore). A pod
// whose eviction the orchestrator does not carry out stays marked: it must
// be deleted (and re-added under a new uid if it keeps running).

// markEvicted records that an Evict decision went out for the pod with the
// UID and marks the pod, in the scheduler's view and in the cache:
// terminating, and by preemption if preempted. A pod deleted meanwhile is
// not recorded. It takes ingestMu, so it is ordered with the upserts and
// deletes of the pod: the caller (the scheduling cycle, through the
// decision sink) holds cycleMu but not ingestMu.
func (s *Scheduler) markEvicted(ctx context.Context, uid string, preempted bool) {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	old, ok := s.state.markEvicted(uid, preempted)
	if !ok || old.Terminating && (old.Preempted || !preempted) {
		return
	}
	cur := markedEvicted(old, preempted)
	s.state.store(cur)
	s.markCached(ctx, cur, preempted)
}

// MarkEvicted is markEvicted for an eviction the scheduler did not decide
// (a NoExecute taint, the eviction API, node pressure): once its Evict is
// durable, the pod is held terminating, not by preemption (kube's
// DisruptionTarget reason is then not PreemptionByScheduler), until it is
// deleted. Call it holding none of the scheduler's locks.
func (s *Scheduler) MarkEvicted(ctx context.Context, uid string) {
	s.markEvicted(ctx, uid, false)
}

// markCached applies the mark to the cache's version of the pod.
func (s *Scheduler) markCached(ctx context.Context, pod *model.Pod, preempted bool) {
	s.updateCached(ctx, pod.UID, func(p *model.Pod) *model.Pod { return markedEvicted(p, preempted) })
}

// updateCached replaces the cache's version of the pod by change(it): a
// bound pod is updated (raising the pod update kube's informer would see),
// an assumed one (its bind in flight) stays assumed on its node.
func (s *Scheduler) updateCached(ctx context.Context, uid string, change func(*model.Pod) *model.Pod) {
	st, ok := s.cache.Pod(uid)
	if !ok {
		return // pending: it holds no room
	}
	cached := change(st.Pod)
	if st.Assumed {
		if err := s.cache.UpdateAssumedPod(cached); err != nil {
			s.logger.Error("updating an assumed pod failed", "pod", cached.Key(), "err", err)
		}
		return
	}
	if err := s.cache.UpdatePod(cached); err != nil {
		s.logger.Error("updating a pod's eviction mark failed", "pod", cached.Key(), "err", err)
		return
	}
	for _, ev := range queue.PodUpdateEvents(st.Pod, cached) {
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, ev, st.Pod, cached, nil)
	}
}

// markedEvicted returns a copy of p terminating, by preemption if
// preempted.
func markedEvicted(p *model.Pod, preempted bool) *model.Pod {
	cp := *p
	cp.Terminating, cp.Preempted = true, cp.Preempted || preempted
	return &cp
}
