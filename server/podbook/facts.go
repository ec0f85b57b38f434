package podbook

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/store"
)

// facts are the per-pod facts that are not records awaiting an outcome:
// the pod's nomination (store.Nominations, written by the Nominate), the
// message of its last Unschedulable (store.Unschedulable, so that a
// restarted scheduler does not report the same again), and its last bind
// reported FAILED (memory only: reporting it again is harmless).
//
// Lock order: mu is a leaf.
type facts struct {
	mu       sync.Mutex
	noms     map[string]nomination // by pod uid
	reported map[string]string     // by pod uid
	failed   map[string]BindReport // by pod uid
}

// nomination is a pod's nomination.
type nomination struct {
	node     string
	revision uint64 // 0 when restored after a restart
}

// BindReport names a bind report: the node and the Bind's revision.
type BindReport struct {
	Node     string
	Revision uint64
}

func newFacts() facts {
	return facts{noms: map[string]nomination{}, reported: map[string]string{}, failed: map[string]BindReport{}}
}

// bound ends the pod's nomination and message: its Bind is durable.
func (f *facts) bound(uid string) {
	f.mu.Lock()
	delete(f.noms, uid)
	delete(f.reported, uid)
	f.mu.Unlock()
}

// Nominated records the pod's durable Nominate to node at revision.
func (l *Book) Nominated(uid, node string, revision uint64) {
	l.facts.mu.Lock()
	l.facts.noms[uid] = nomination{node: node, revision: revision}
	l.facts.mu.Unlock()
}

// NominationCleared records the pod's durable ClearNomination.
func (l *Book) NominationCleared(uid string) {
	l.facts.mu.Lock()
	delete(l.facts.noms, uid)
	l.facts.mu.Unlock()
}

// Nomination returns the node the pod is nominated to, restored ones
// included.
func (l *Book) Nomination(uid string) (string, bool) {
	l.facts.mu.Lock()
	defer l.facts.mu.Unlock()
	n, ok := l.facts.noms[uid]
	return n.node, ok
}

// NominationRevision returns the revision of the pod's current
// nomination; false when it has none, or it was restored after a restart.
func (l *Book) NominationRevision(uid string) (uint64, bool) {
	l.facts.mu.Lock()
	defer l.facts.mu.Unlock()
	n, ok := l.facts.noms[uid]
	return n.revision, ok && n.revision != 0
}

// Reported records the message of the pod's durable Unschedulable.
func (l *Book) Reported(uid, message string) {
	l.facts.mu.Lock()
	l.facts.reported[uid] = message
	l.facts.mu.Unlock()
}

// LastMessage returns the message of the pod's last Unschedulable since
// it was last bound or deleted, across restarts.
func (l *Book) LastMessage(uid string) (string, bool) {
	l.facts.mu.Lock()
	defer l.facts.mu.Unlock()
	m, ok := l.facts.reported[uid]
	return m, ok
}

// FailureReported reports whether r is the pod's last bind reported
// FAILED (statesvc: reporting it again is harmless).
func (l *Book) FailureReported(uid string, r BindReport) bool {
	l.facts.mu.Lock()
	defer l.facts.mu.Unlock()
	last, ok := l.facts.failed[uid]
	return ok && last == r
}

// RecordFailure records r as the pod's last bind reported FAILED, until
// the pod is forgotten.
func (l *Book) RecordFailure(uid string, r BindReport) {
	l.facts.mu.Lock()
	l.facts.failed[uid] = r
	l.facts.mu.Unlock()
}

// forgetFacts drops the pod's nomination, message and failed report, and
// returns the keyspaces their durable copies are in.
func (f *facts) forget(uid string) []store.Space {
	f.mu.Lock()
	defer f.mu.Unlock()
	var spaces []store.Space
	if _, ok := f.noms[uid]; ok {
		spaces = append(spaces, store.Nominations)
	}
	if _, ok := f.reported[uid]; ok {
		spaces = append(spaces, store.Unschedulable)
	}
	delete(f.noms, uid)
	delete(f.reported, uid)
	delete(f.failed, uid)
	return spaces
}

// unknown lists the pods, sorted, with a nomination or a message that
// known says do not exist.
func (f *facts) unknown(known func(uid string) bool) []string {
	f.mu.Lock()
	gone := map[string]bool{}
	for uid := range f.noms {
		if !known(uid) {
			gone[uid] = true
		}
	}
	for uid := range f.reported {
		if !known(uid) {
			gone[uid] = true
		}
	}
	f.mu.Unlock()
	return slices.Sorted(maps.Keys(gone))
}

// restore puts back the nominations and messages read after a restart.
func (f *facts) restore(noms []queue.Nomination, reported []store.KV) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, kv := range reported {
		f.reported[string(kv.Key)] = string(kv.Value)
	}
	for _, n := range noms {
		f.noms[n.PodUID] = nomination{node: n.NodeName}
	}
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
		return nil, fmt.Errorf("podbook: read nominations: %w", err)
	}
	out := make([]queue.Nomination, 0, len(kvs))
	for _, kv := range kvs {
		d, err := decodePayload(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("podbook: nomination of %s: %w", kv.Key, err)
		}
		p := d.GetPod()
		out = append(out, queue.Nomination{
			PodUID: string(kv.Key), PodKey: p.GetNamespace() + "/" + p.GetName(), NodeName: d.GetNominate().GetNode(),
		})
	}
	return out, nil
}

// Forget drops every fact of the pod (deleted, or gone while berthd was
// down), waiting for a Bind of it being committed; their durable copies
// are removed in the background.
func (l *Book) Forget(ctx context.Context, uid string) error {
	spaces, err := l.forget(ctx, uid)
	if err != nil {
		return err
	}
	return l.remove(ctx, uid, false, append(spaces, l.facts.forget(uid)...)...)
}

// remove queues the removal of the pod's keys in spaces: durably before it
// returns with wait; without, a crash may leave them, and a restart
// restores them to be settled again.
func (l *Book) remove(ctx context.Context, uid string, wait bool, spaces ...store.Space) error {
	if len(spaces) == 0 {
		return nil
	}
	return l.remover.remove(ctx, uid, wait, spaces...)
}
