package ledger

import (
	"context"
	"errors"
	"fmt"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
)

// Store is what Restore reads: the records' keyspaces, and the decision
// log to find each bind's revision. Any store.Store backend fits.
type Store interface {
	List(space store.Space) ([]store.KV, error)
	Read(ctx context.Context, from uint64, limit int) ([]store.Record, error)
}

// Restored is what Restore read back, each kind sorted by pod uid.
type Restored struct {
	Binds     []Record
	Evictions []Record
}

// Empty reports whether nothing was restored.
func (r Restored) Empty() bool { return len(r.Binds) == 0 && len(r.Evictions) == 0 }

// EvictedUIDs lists the pods the restored evictions hold as terminating.
func (r Restored) EvictedUIDs() []string {
	out := make([]string, len(r.Evictions))
	for i, e := range r.Evictions {
		out[i] = e.PodUID
	}
	return out
}

// maxBindSearch bounds the log records Restore reads to find one bind's
// revision: a bind's record lands within a commit group of where its
// hint points.
const maxBindSearch = 1 << 16

// readChunk is how many log records one read of the search takes.
const readChunk = 512

// Restore reads the records back from st after a restart, before the
// scheduler runs, and holds them as restored. A bind's revision is found
// in the log from its hint; 0 when it was compacted away.
func (l *Ledger) Restore(ctx context.Context, st Store) (Restored, error) {
	var out Restored
	evicts := map[string]*berthv1.Evict{}
	for _, k := range kinds() {
		kvs, err := st.List(k.Space())
		if err != nil {
			return Restored{}, fmt.Errorf("ledger: restore %s records: %w", k, err)
		}
		for _, kv := range kvs {
			hint, d, err := parseValue(k, kv.Value)
			if err != nil {
				return Restored{}, fmt.Errorf("ledger: %s record of %s: %w", k, kv.Key, err)
			}
			r := Record{Kind: k, PodUID: string(kv.Key), Restored: true}
			if k == KindBind {
				r.Node, r.Group = d.GetBind().GetNode(), d.GetBind().GetGroup()
				if r.Revision, err = findBind(ctx, st, hint, r.PodUID, r.Node); err != nil {
					return Restored{}, err
				}
				out.Binds = append(out.Binds, r)
			} else {
				r.Node = d.GetEvict().GetNode()
				out.Evictions = append(out.Evictions, r)
				evicts[r.PodUID] = d.GetEvict()
			}
		}
	}
	l.mu.Lock()
	for _, rs := range [][]Record{out.Binds, out.Evictions} {
		for _, r := range rs {
			e := entryOf(r)
			e.evict = evicts[r.PodUID]
			l.table(r.Kind)[r.PodUID] = e
		}
	}
	l.mu.Unlock()
	return out, nil
}

// findBind returns the revision of the Bind of pod uid to node at or above
// from; 0 when it is not found (compacted away). When from itself was
// compacted away, the search goes on from the oldest revision kept: with a
// small retention the hint is often gone while the bind is still there.
func findBind(ctx context.Context, st Store, from uint64, uid, node string) (uint64, error) {
	for read := 0; read < maxBindSearch; {
		recs, err := st.Read(ctx, from, readChunk)
		var compacted *store.CompactedError
		if errors.As(err, &compacted) {
			if compacted.Oldest <= from {
				return 0, nil // compacted from under the search: give up
			}
			from = compacted.Oldest
			continue
		}
		var damaged *store.CorruptRecordError
		if errors.As(err, &damaged) && damaged.Revision >= from {
			// A damaged record is never served, but it must not stop a
			// restart: search the records before it, then step over it.
			if recs, err = readBefore(ctx, st, from, damaged.Revision); err != nil {
				return 0, fmt.Errorf("ledger: find the bind of %s: %w", uid, err)
			}
			if rev, err := bindIn(recs, uid, node); rev != 0 || err != nil {
				return rev, err
			}
			read += len(recs) + 1
			from = damaged.Revision + 1
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("ledger: find the bind of %s: %w", uid, err)
		}
		if len(recs) == 0 {
			break
		}
		if rev, err := bindIn(recs, uid, node); rev != 0 || err != nil {
			return rev, err
		}
		read += len(recs)
		from = recs[len(recs)-1].Revision + 1
	}
	return 0, nil
}

// readBefore reads the records from revision from up to, not including,
// revision end.
func readBefore(ctx context.Context, st Store, from, end uint64) ([]store.Record, error) {
	if end <= from {
		return nil, nil
	}
	return st.Read(ctx, from, int(end-from))
}

// bindIn returns the revision of the Bind of pod uid to node among recs; 0
// when there is none.
func bindIn(recs []store.Record, uid, node string) (uint64, error) {
	for _, r := range recs {
		d, err := decodePayload(r.Payload)
		if err != nil {
			return 0, fmt.Errorf("revision %d: %w", r.Revision, err)
		}
		if d.GetPod().GetUid() == uid && d.GetBind().GetNode() == node {
			return r.Revision, nil
		}
	}
	return 0, nil
}
