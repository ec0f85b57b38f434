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
// the order), while cycles for pods queued earlier go on. Batches nest;
// the outermost end queues the pods. Ending twice does nothing.
func (s *Scheduler) StartBatch() (end func(ctx context.Context)) {
	s.ingestMu.Lock()
	s.batch.depth++
	s.ingestMu.Unlock()
	var once sync.Once
	return func(ctx context.Context) { once.Do(func() { s.endBatch(ctx) }) }
}

// batch is the pods held back by StartBatch; guarded by ingestMu.
type batch struct {
	depth int
	order []string        // uids, in the order they were added
	held  map[string]bool // uids still held back
}

// deferLocked holds a new pending pod back until the batch ends; false
// when no batch is open. ingestMu is held.
func (b *batch) deferLocked(uid string) bool {
	if b.depth == 0 {
		return false
	}
	if b.held == nil {
		b.held = make(map[string]bool)
	}
	if !b.held[uid] {
		b.held[uid] = true
		b.order = append(b.order, uid)
	}
	return true
}

// heldLocked reports whether the pod is held back (not in the queue).
func (b *batch) heldLocked(uid string) bool { return b.held[uid] }

// dropLocked forgets a held-back pod (deleted, or bound).
func (b *batch) dropLocked(uid string) { delete(b.held, uid) }

func (s *Scheduler) endBatch(ctx context.Context) {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	s.batch.depth--
	if s.batch.depth > 0 {
		return
	}
	order, held := s.batch.order, s.batch.held
	s.batch.order, s.batch.held = nil, nil
	for _, uid := range order {
		if !held[uid] {
			continue
		}
		pod, ok := s.lookupPod(uid)
		if !ok || pod.NodeName != "" {
			continue
		}
		if err := s.queueNowLocked(ctx, pod); err != nil {
			s.logger.Error("queueing a pod at the end of its batch failed", "pod", pod.Key(), "err", err)
		}
	}
}
