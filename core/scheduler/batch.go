package scheduler

import (
	"context"
	"sync"
)

// StartBatch makes the state-in calls that follow part of one batch until
// the returned function ends it: pending pods the batch adds are queued
// only when it ends, in the order they came, as their versions are then.
// So no pod of a batch is tried before the whole batch is applied (a pod
// sent before the node it needs is never found unschedulable because of
// the order), while cycles for pods queued earlier go on. Ending twice
// does nothing.
//
// Batches of concurrent requests overlap, and a state-in call does not say
// which batch it belongs to. So a pod added while batches are open waits
// for every batch started before it was added, and for none started after:
// nested batches end together, and a stream of overlapping requests (say,
// one orchestrator's submissions and its bind confirmations) cannot hold
// pods back indefinitely.
func (s *Scheduler) StartBatch() (end func(ctx context.Context)) {
	s.ingestMu.Lock()
	id := s.batch.startLocked()
	s.ingestMu.Unlock()
	var once sync.Once
	return func(ctx context.Context) { once.Do(func() { s.endBatch(ctx, id) }) }
}

// batch is the pods held back by StartBatch; guarded by ingestMu.
type batch struct {
	started uint64              // the id of the last batch started
	open    map[uint64]struct{} // batches not ended
	held    []heldPod           // in the order added; marks never decrease
	holding map[string]uint64   // uids in held, not dropped, with their mark
	// nodesChanged: a node was added, updated or deleted since the
	// snapshot was last warmed (warmSnapshot).
	nodesChanged bool
}

// heldPod is a pod held back until every batch up to mark has ended.
type heldPod struct {
	uid  string
	mark uint64
}

func (b *batch) startLocked() uint64 {
	b.started++
	if b.open == nil {
		b.open = make(map[uint64]struct{})
	}
	b.open[b.started] = struct{}{}
	return b.started
}

// deferLocked holds a new pending pod back until the batches open now have
// ended; false when none is. ingestMu is held.
func (b *batch) deferLocked(uid string) bool {
	if len(b.open) == 0 {
		return false
	}
	if b.holding == nil {
		b.holding = make(map[string]uint64)
	}
	if _, ok := b.holding[uid]; !ok {
		b.holding[uid] = b.started
		b.held = append(b.held, heldPod{uid: uid, mark: b.started})
	}
	return true
}

// heldLocked reports whether the pod is held back (not in the queue).
func (b *batch) heldLocked(uid string) bool {
	_, ok := b.holding[uid]
	return ok
}

// dropLocked forgets a held-back pod (deleted, or bound).
func (b *batch) dropLocked(uid string) { delete(b.holding, uid) }

// endLocked ends batch id and returns the uids of the pods it releases:
// the held pods whose batches have all ended, a prefix of held since marks
// never decrease.
func (b *batch) endLocked(id uint64) []string {
	delete(b.open, id)
	oldestOpen := b.started + 1
	for o := range b.open {
		oldestOpen = min(oldestOpen, o)
	}
	n := 0
	for n < len(b.held) && b.held[n].mark < oldestOpen {
		n++
	}
	var out []string
	for _, h := range b.held[:n] {
		// A pod dropped and added again is released by its last entry.
		if mark, ok := b.holding[h.uid]; ok && mark == h.mark {
			delete(b.holding, h.uid)
			out = append(out, h.uid)
		}
	}
	b.held = b.held[n:]
	if len(b.held) == 0 {
		b.held = nil // let the backing array go
	}
	return out
}

func (s *Scheduler) endBatch(ctx context.Context, id uint64) {
	if s.releaseBatch(ctx, id) {
		s.warmSnapshot()
	}
}

// releaseBatch ends batch id, queues the pods it releases and reports
// whether nodes changed since the snapshot was last warmed.
func (s *Scheduler) releaseBatch(ctx context.Context, id uint64) (nodesChanged bool) {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	for _, uid := range s.batch.endLocked(id) {
		pod, ok := s.state.lookup(uid)
		if !ok || pod.NodeName != "" {
			continue
		}
		if err := s.queueNowLocked(ctx, pod); err != nil {
			s.logger.Error("queueing a pod at the end of its batch failed", "pod", pod.Key(), "err", err)
		}
	}
	return s.batch.nodesChanged
}

// warmSnapshot copies the cache's changes into the scheduling snapshot now
// if no cycle is running, so that the next cycle does not pay for them:
// after a cluster's nodes are loaded, the first cycle would otherwise copy
// every node (35 ms for 5000) before it could place its pod. A running
// cycle brings the snapshot up to date itself, so this never waits for
// one.
func (s *Scheduler) warmSnapshot() {
	if !s.cycleMu.TryLock() {
		return
	}
	defer s.cycleMu.Unlock()
	// Cleared first: a node changed while the snapshot is copied sets it
	// again. (cycleMu, then ingestMu, is the lock order.)
	s.ingestMu.Lock()
	s.batch.nodesChanged = false
	s.ingestMu.Unlock()
	if err := s.cache.UpdateSnapshot(s.snapshot); err != nil {
		// The next cycle updates the snapshot again and fails its pod
		// with the same error, where it is reported.
		s.logger.Debug("warming the scheduling snapshot failed", "err", err)
	}
}
