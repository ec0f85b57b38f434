package decisionlog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/store"
)

// assumedValue is a store.Assumed value: the revision the bind's record is
// at or above (8 bytes, big endian), then the Bind decision's payload.
func assumedValue(from uint64, payload []byte) []byte {
	v := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint64(v, from)
	return append(v, payload...)
}

func parseAssumed(v []byte) (from uint64, d *berthv1.Decision, err error) {
	if len(v) < 8 {
		return 0, nil, fmt.Errorf("decisionlog: assumed value of %d bytes: %w", len(v), store.ErrCorrupt)
	}
	d, err = decodePayload(v[8:])
	if err != nil {
		return 0, nil, err
	}
	if d.GetBind() == nil {
		return 0, nil, fmt.Errorf("decisionlog: assumed value is not a bind: %w", store.ErrCorrupt)
	}
	return binary.BigEndian.Uint64(v), d, nil
}

// BindRevision returns the revision of the last Bind decision made for the
// pod since it was last forgotten; false while none was, or while the
// first is being committed. A bind restored after a restart whose record
// could not be found (compacted away) has revision 0.
func (l *Log) BindRevision(podUID string) (uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.binds[podUID]
	return e.revision, ok && e.committing == nil
}

// WaitBindRevision is BindRevision once no Bind of the pod is being
// committed (statesvc.BindRevisions): a caller that saw a Bind decision
// on a watch may report it before the binder's commit returned.
func (l *Log) WaitBindRevision(ctx context.Context, podUID string) (uint64, bool, error) {
	e, ok, err := l.lockSettled(ctx, podUID)
	if err != nil {
		return 0, false, err
	}
	l.mu.Unlock()
	return e.revision, ok, nil
}

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

// OutstandingBind returns the node of the pod's bind awaiting an outcome,
// and whether it was made before the last restart.
func (l *Log) OutstandingBind(podUID string) (node string, restored, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.binds[podUID]
	if !ok || !e.outstanding {
		return "", false, false
	}
	return e.node, e.restored, true
}

// RestoredBinds lists the binds made before the last restart that still
// await an outcome, by pod uid.
func (l *Log) RestoredBinds() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]string)
	for uid, e := range l.binds {
		if e.outstanding && e.restored {
			out[uid] = e.node
		}
	}
	return out
}

// Settle records that the pod's outstanding bind has an outcome (confirmed
// or failed): its store.Assumed entry is removed. With wait it returns once
// that is durable; without, a crash may leave the entry, which a restart
// restores and the pod's next upsert settles again. Settling a pod without
// an outstanding bind does nothing.
func (l *Log) Settle(ctx context.Context, podUID string, wait bool) error {
	e, ok, err := l.lockSettled(ctx, podUID)
	if err != nil {
		return err
	}
	if !ok || !e.outstanding {
		l.mu.Unlock()
		return nil
	}
	e.outstanding = false
	l.binds[podUID] = e
	l.mu.Unlock()
	return l.settle.remove(ctx, podUID, wait, store.Assumed)
}

// Forget records that the pod was deleted: its bind, nomination, eviction
// and last Unschedulable message are removed in the background. A Bind of
// the pod being committed is waited for, so that its entry is removed too.
func (l *Log) Forget(ctx context.Context, podUID string) error {
	_, bound, err := l.lockSettled(ctx, podUID)
	if err != nil {
		return err
	}
	_, nominated := l.noms[podUID]
	evicted := l.evicts[podUID]
	_, reported := l.reported[podUID]
	delete(l.binds, podUID)
	delete(l.noms, podUID)
	delete(l.evicts, podUID)
	delete(l.reported, podUID)
	l.mu.Unlock()
	var spaces []store.Space
	if bound {
		spaces = append(spaces, store.Assumed)
	}
	if nominated {
		spaces = append(spaces, store.Nominations)
	}
	if evicted {
		spaces = append(spaces, store.Evictions)
	}
	if reported {
		spaces = append(spaces, store.Unschedulable)
	}
	if len(spaces) == 0 {
		return nil
	}
	return l.settle.remove(ctx, podUID, false, spaces...)
}

// ForgetUnknown forgets, as Forget does, the restored binds, nominations,
// evictions and Unschedulable messages of pods that known says do not
// exist: after
// a full re-list of the pods, those made before a restart for pods never
// re-sent are dropped instead of being kept for ever. It returns how many
// binds it dropped.
func (l *Log) ForgetUnknown(ctx context.Context, known func(podUID string) bool) (int, error) {
	l.mu.Lock()
	gone := map[string]bool{}
	binds := 0
	for uid, e := range l.binds {
		if e.restored && e.committing == nil && !known(uid) {
			gone[uid] = true
			binds++
		}
	}
	for uid := range l.noms {
		if !known(uid) {
			gone[uid] = true
		}
	}
	for uid := range l.evicts {
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
		errs = append(errs, l.Forget(ctx, uid))
	}
	return binds, errors.Join(errs...)
}

// RestoredBind is a bind made before a restart that awaited an outcome.
type RestoredBind struct {
	Pod      *berthv1.PodRef
	Node     string
	Revision uint64 // 0 when its record was compacted away
}

// Recovered is what Recover read back.
type Recovered struct {
	Nominations []queue.Nomination
	Binds       []RestoredBind
	// Evicted are the UIDs of the pods evicted and not known deleted, in
	// order (scheduler.RestoreEvictions).
	Evicted []string
}

// maxBindSearch bounds the records Recover reads to find one bind's
// revision: a bind's record lands within a commit group of where it was
// queued.
const maxBindSearch = 1 << 16

// Recover reads the nominations, the outstanding binds, the evictions and
// the last Unschedulable messages back from the store, after a restart,
// and tracks the binds as outstanding. It also reads the log's identity
// (ID), creating it the first time. Call it before the scheduler runs.
func (l *Log) Recover(ctx context.Context) (Recovered, error) {
	var out Recovered
	if err := l.loadID(ctx); err != nil {
		return out, err
	}
	reported, err := l.store.List(store.Unschedulable)
	if err != nil {
		return out, fmt.Errorf("decisionlog: recover unschedulable pods: %w", err)
	}
	evicted, err := l.store.List(store.Evictions)
	if err != nil {
		return out, fmt.Errorf("decisionlog: recover evictions: %w", err)
	}
	for _, kv := range evicted {
		d, err := decodePayload(kv.Value)
		if err != nil {
			return out, fmt.Errorf("decisionlog: eviction of %s: %w", kv.Key, err)
		}
		if d.GetEvict() == nil {
			return out, fmt.Errorf("decisionlog: eviction of %s is not an Evict: %w", kv.Key, store.ErrCorrupt)
		}
		out.Evicted = append(out.Evicted, string(kv.Key))
	}
	noms, err := l.store.List(store.Nominations)
	if err != nil {
		return out, fmt.Errorf("decisionlog: recover nominations: %w", err)
	}
	for _, kv := range noms {
		d, err := decodePayload(kv.Value)
		if err != nil {
			return out, fmt.Errorf("decisionlog: nomination of %s: %w", kv.Key, err)
		}
		p := d.GetPod()
		out.Nominations = append(out.Nominations, queue.Nomination{
			PodUID: string(kv.Key), PodKey: p.GetNamespace() + "/" + p.GetName(), NodeName: d.GetNominate().GetNode(),
		})
	}
	assumed, err := l.store.List(store.Assumed)
	if err != nil {
		return out, fmt.Errorf("decisionlog: recover binds: %w", err)
	}
	for _, kv := range assumed {
		from, d, err := parseAssumed(kv.Value)
		if err != nil {
			return out, fmt.Errorf("decisionlog: bind of %s: %w", kv.Key, err)
		}
		rev, err := l.findBind(ctx, from, string(kv.Key), d.GetBind().GetNode())
		if err != nil {
			return out, err
		}
		out.Binds = append(out.Binds, RestoredBind{Pod: d.GetPod(), Node: d.GetBind().GetNode(), Revision: rev})
	}
	l.mu.Lock()
	for _, kv := range reported {
		l.reported[string(kv.Key)] = string(kv.Value)
	}
	for _, n := range out.Nominations {
		l.noms[n.PodUID] = nomEntry{node: n.NodeName}
	}
	for _, b := range out.Binds {
		l.binds[b.Pod.GetUid()] = bindEntry{node: b.Node, revision: b.Revision, outstanding: true, restored: true}
	}
	for _, uid := range out.Evicted {
		l.evicts[uid] = true
	}
	l.mu.Unlock()
	return out, nil
}

// findBind returns the revision of the Bind of pod uid to node at or above
// from; 0 when it is not found (compacted away). When from itself was
// compacted away, the search goes on from the oldest revision kept: with a
// small retention the hint is often gone while the bind is still there.
func (l *Log) findBind(ctx context.Context, from uint64, uid, node string) (uint64, error) {
	for read := 0; read < maxBindSearch; {
		recs, err := l.store.Read(ctx, from, l.opts.ReadChunk)
		var compacted *store.CompactedError
		if errors.As(err, &compacted) {
			if compacted.Oldest <= from {
				return 0, nil // compacted from under the search: give up
			}
			from = compacted.Oldest
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("decisionlog: find the bind of %s: %w", uid, err)
		}
		if len(recs) == 0 {
			break
		}
		for _, r := range recs {
			d, err := decodePayload(r.Payload)
			if err != nil {
				return 0, fmt.Errorf("revision %d: %w", r.Revision, err)
			}
			if d.GetPod().GetUid() == uid && d.GetBind().GetNode() == node {
				return r.Revision, nil
			}
		}
		read += len(recs)
		from = recs[len(recs)-1].Revision + 1
	}
	return 0, nil
}
