package decisionlog

import (
	"context"
	"fmt"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/ledger"
	"github.com/berthsched/berth/store"
)

// Batch stages the decisions one failed scheduling attempt makes one after
// another (a preemption's Evicts and ClearNominations, the pod's Nominate,
// its Unschedulable report) and commits them as one store batch: the same
// records, in the same order, with the same keyspace changes as separate
// calls, made durable by one commit instead of one each. Each staging call
// does what the Log's call does before its commit (checks, ledger record,
// encoding) and Commit what it does after; nothing is visible to watchers
// before Commit returns. A Batch is used by one goroutine.
type Batch struct {
	l     *Log
	b     store.Batch
	types []string // per record, for metrics
	// after runs once the commit returned, with the revision of the
	// staged decision it belongs to (zero on failure).
	after []func(rev uint64, err error)
	// noms holds the nominations staged (node "" for a cleared one), so
	// a later ClearNomination names the node as if they were committed.
	noms map[string]string
	// reported holds the Unschedulable messages staged.
	reported map[string]string
}

var _ scheduler.DecisionBatcher = (*Log)(nil)

// NewBatch returns an empty batch over the log.
func (l *Log) NewBatch() scheduler.DecisionBatch { return &Batch{l: l} }

// stage adds one decision's record and the work after its commit.
func (b *Batch) stage(typ string, payload []byte, after func(rev uint64, err error)) {
	b.b.Append(payload)
	b.types = append(b.types, typ)
	b.after = append(b.after, after)
}

// Evict stages the Evict decision of a preemption victim (Log.Evict).
func (b *Batch) Evict(ctx context.Context, victim *model.Pod, node string, preemptor *model.Pod, reason string) error {
	e := Eviction{Victim: victim, Node: node, Cause: berthv1.EvictCause_EVICT_CAUSE_PREEMPTION, Preemptor: preemptor, Message: reason}
	payload, err := encode(evictDecision(e))
	if err != nil {
		return err
	}
	l := b.l
	if !l.ledger.OpenEviction(victim.UID, node) {
		return &AlreadyEvictedError{Pod: victim.Key()}
	}
	if err := l.settle.claim(ctx, victim.UID, ledger.KindEvict.Space()); err != nil {
		l.ledger.AbortEviction(victim.UID)
		return err
	}
	b.stage(TypeEvict, payload, func(_ uint64, err error) {
		if err != nil {
			l.ledger.AbortEviction(victim.UID)
			return
		}
		if m, ok := l.opts.Metrics.(EvictionMetrics); ok {
			m.ObserveEviction(CauseLabel(e.Cause))
		}
	})
	b.b.Put(ledger.KindEvict.Space(), []byte(victim.UID), payload)
	return nil
}

// Nominate stages the Nominate decision (Log.Nominate).
func (b *Batch) Nominate(ctx context.Context, pod *model.Pod, node string) error {
	payload, err := encode(nominateDecision(pod, node))
	if err != nil {
		return err
	}
	l := b.l
	if err := l.settle.claim(ctx, pod.UID, store.Assumed, store.Nominations); err != nil {
		return err
	}
	b.setNom(pod.UID, node)
	b.stage(TypeNominate, payload, func(rev uint64, err error) {
		if err == nil {
			l.mu.Lock()
			l.noms[pod.UID] = nomEntry{node: node, revision: rev}
			l.mu.Unlock()
		}
	})
	b.b.Put(store.Nominations, []byte(pod.UID), payload)
	return nil
}

// ClearNomination stages the ClearNomination decision
// (Log.ClearNomination).
func (b *Batch) ClearNomination(ctx context.Context, pod *model.Pod, reason string) error {
	d := clearNominationDecision(pod, reason)
	if d.GetClearNomination().GetPreviousNode() == "" {
		node, staged := b.noms[pod.UID]
		if !staged {
			b.l.mu.Lock()
			node = b.l.noms[pod.UID].node
			b.l.mu.Unlock()
		}
		d.GetClearNomination().PreviousNode = node
	}
	payload, err := encode(d)
	if err != nil {
		return err
	}
	l := b.l
	if err := l.settle.claim(ctx, pod.UID, store.Assumed, store.Nominations); err != nil {
		return err
	}
	b.setNom(pod.UID, "")
	b.stage(TypeClearNomination, payload, func(_ uint64, err error) {
		if err == nil {
			l.mu.Lock()
			delete(l.noms, pod.UID)
			l.mu.Unlock()
		}
	})
	b.b.Delete(store.Nominations, []byte(pod.UID))
	return nil
}

func (b *Batch) setNom(uid, node string) {
	if b.noms == nil {
		b.noms = make(map[string]string)
	}
	b.noms[uid] = node
}

// Unschedulable stages the Unschedulable decision, unless it repeats the
// pod's last message (Log.Unschedulable).
func (b *Batch) Unschedulable(ctx context.Context, pod *model.Pod, message string, fitErr *framework.FitError) error {
	l := b.l
	last, known := b.reported[pod.UID]
	if !known {
		l.mu.Lock()
		last, known = l.reported[pod.UID]
		l.mu.Unlock()
	}
	if known && last == message {
		return nil
	}
	payload, err := encode(unschedulableDecision(pod, message, fitErr, l.opts.MaxNodeReasons))
	if err != nil {
		return err
	}
	if err := l.settle.claim(ctx, pod.UID, store.Unschedulable); err != nil {
		return err
	}
	if b.reported == nil {
		b.reported = make(map[string]string)
	}
	b.reported[pod.UID] = message
	b.stage(TypeUnschedulable, payload, func(_ uint64, err error) {
		if err == nil {
			l.mu.Lock()
			l.reported[pod.UID] = message
			l.mu.Unlock()
		}
	})
	b.b.Put(store.Unschedulable, []byte(pod.UID), []byte(message))
	return nil
}

// Commit commits the staged decisions in one store batch and returns once
// they are durable; on failure none is, and each is undone as its own
// failed call would be. The batch is empty again afterwards.
func (b *Batch) Commit(ctx context.Context) error {
	if len(b.types) == 0 {
		return nil
	}
	l := b.l
	start := l.opts.Clock()
	res, err := l.store.Commit(ctx, &b.b)
	l.observeCommit(l.opts.Clock().Sub(start))
	if err != nil {
		err = fmt.Errorf("decisionlog: append %d decisions (%s first): %w", len(b.types), b.types[0], err)
	}
	for i, after := range b.after {
		rev := uint64(0)
		if err == nil {
			rev = res.Revision(i)
			if l.opts.Metrics != nil {
				l.opts.Metrics.ObserveDecision(b.types[i])
			}
		}
		after(rev, err)
	}
	*b = Batch{l: l}
	return err
}
