package decisionlog

import (
	"context"
	"errors"
	"fmt"

	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/store"
)

// NominationRevision returns the revision of the pod's current
// nomination; false when it has none, or it was restored after a restart.
func (l *Log) NominationRevision(podUID string) (uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.noms[podUID]
	return e.revision, ok && e.revision != 0
}

// Nomination returns the node the pod is nominated to, restored ones
// included.
func (l *Log) Nomination(podUID string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.noms[podUID]
	return e.node, ok
}

// Remove deletes the pod's entries in spaces (the durable copies of
// ledger records whose outcome arrived) in the background: with wait it
// returns once that is durable; without, a crash may leave them, and a
// restart restores them to be settled again.
func (l *Log) Remove(ctx context.Context, podUID string, wait bool, spaces ...store.Space) error {
	return l.settle.remove(ctx, podUID, wait, spaces...)
}

// ForgetPod records that the pod was deleted, or arrived bound without a
// Bind of Berth's: its nomination and last Unschedulable message are
// removed in the background, with its entries in spaces (its ledger
// records, which the ledger already dropped).
func (l *Log) ForgetPod(ctx context.Context, podUID string, spaces ...store.Space) error {
	l.mu.Lock()
	_, nominated := l.noms[podUID]
	_, reported := l.reported[podUID]
	delete(l.noms, podUID)
	delete(l.reported, podUID)
	l.mu.Unlock()
	if nominated {
		spaces = append(spaces, store.Nominations)
	}
	if reported {
		spaces = append(spaces, store.Unschedulable)
	}
	if len(spaces) == 0 {
		return nil
	}
	return l.settle.remove(ctx, podUID, false, spaces...)
}

// ForgetUnknownPods forgets, as ForgetPod does, the nominations and
// Unschedulable messages of pods that known says do not exist: after a
// full re-list of the pods, those made before a restart for pods never
// re-sent are dropped instead of being kept for ever.
func (l *Log) ForgetUnknownPods(ctx context.Context, known func(podUID string) bool) error {
	l.mu.Lock()
	gone := map[string]bool{}
	for uid := range l.noms {
		if !known(uid) {
			gone[uid] = true
		}
	}
	for uid := range l.reported {
		if !known(uid) {
			gone[uid] = true
		}
	}
	l.mu.Unlock()
	var errs []error
	for _, uid := range sortedKeys(gone) {
		errs = append(errs, l.ForgetPod(ctx, uid))
	}
	return errors.Join(errs...)
}

// Recovered is what Recover read back.
type Recovered struct {
	Nominations []queue.Nomination
}

// Recover reads the nominations and the last Unschedulable messages back
// from the store, after a restart (the ledger restores its own records).
// It also reads the log's identity (ID), creating it the first time. Call
// it before the scheduler runs.
func (l *Log) Recover(ctx context.Context) (Recovered, error) {
	var out Recovered
	if err := l.loadID(ctx); err != nil {
		return out, err
	}
	reported, err := l.store.List(store.Unschedulable)
	if err != nil {
		return out, fmt.Errorf("decisionlog: recover unschedulable pods: %w", err)
	}
	if out.Nominations, err = ReadNominations(l.store); err != nil {
		return out, fmt.Errorf("decisionlog: recover: %w", err)
	}
	l.mu.Lock()
	for _, kv := range reported {
		l.reported[string(kv.Key)] = string(kv.Value)
	}
	for _, n := range out.Nominations {
		l.noms[n.PodUID] = nomEntry{node: n.NodeName}
	}
	l.mu.Unlock()
	return out, nil
}

// Lister reads a keyspace; store.Store satisfies it.
type Lister interface {
	List(space store.Space) ([]store.KV, error)
}

// ReadNominations reads the nominations in st, by pod uid: those whose
// Nominate is durable and that no Bind, ClearNomination or deletion of
// the pod has ended. It changes nothing, so a follower replica can read
// the leader's nominations from the shared store.
func ReadNominations(st Lister) ([]queue.Nomination, error) {
	kvs, err := st.List(store.Nominations)
	if err != nil {
		return nil, fmt.Errorf("decisionlog: read nominations: %w", err)
	}
	out := make([]queue.Nomination, 0, len(kvs))
	for _, kv := range kvs {
		d, err := decodePayload(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("decisionlog: nomination of %s: %w", kv.Key, err)
		}
		p := d.GetPod()
		out = append(out, queue.Nomination{
			PodUID: string(kv.Key), PodKey: p.GetNamespace() + "/" + p.GetName(), NodeName: d.GetNominate().GetNode(),
		})
	}
	return out, nil
}
