package podbook

import (
	"context"
	"errors"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/store"
)

// Facts is what Restore read back: the records of kind, each sorted by
// pod uid, the nominations, the allocated claims and the volume bindings
// of the binds awaiting their outcome.
type Facts struct {
	Binds       []Record
	Evictions   []Record
	Nominations []queue.Nomination
	Claims      []*resourceapi.ResourceClaim
	Volumes     []scheduler.RestoredVolumes
	// Messages counts the last Unschedulable messages restored.
	Messages int
	// Admissions are the Kueue workloads admitted durably, by workload
	// key: the admission controller (server/queuesvc) takes them back.
	Admissions []*berthv1.Admit
}

// Empty reports whether nothing was restored.
func (f Facts) Empty() bool {
	return len(f.Binds) == 0 && len(f.Evictions) == 0 && len(f.Nominations) == 0 && len(f.Claims) == 0 && f.Messages == 0 && len(f.Admissions) == 0
}

// Scheduler is what the scheduler takes back of the facts
// (scheduler.Restore): nominations, the pods evicted, the allocated claims
// and the volumes reserved.
func (f Facts) Scheduler() scheduler.Restored {
	r := scheduler.Restored{Nominations: f.Nominations, Claims: f.Claims, Volumes: f.Volumes}
	for _, e := range f.Evictions {
		r.Evictions = append(r.Evictions, e.PodUID)
	}
	return r
}

// logReader reads the decision log, to find a restored bind's revision.
type logReader interface {
	Read(ctx context.Context, from uint64, limit int) ([]store.Record, error)
}

// maxBindSearch bounds the log records Restore reads to find one bind's
// revision: a bind's record lands within a commit group of where its
// hint points.
const maxBindSearch = 1 << 16

// readChunk is how many log records one read of the search takes.
const readChunk = 512

// Restore reads every fact back from the store after a restart (or on
// becoming the leader), before the scheduler runs: the records (a bind's
// revision found in the log from its hint, 0 when it was compacted away),
// the nominations and last messages, the allocated claims, the Kueue
// admissions. It is the one
// reader of the book's keyspaces.
func (l *Book) Restore(ctx context.Context) (Facts, error) {
	var out Facts
	evicts := map[string]*berthv1.Evict{}
	for _, k := range kinds() {
		kvs, err := l.store.List(k.Space())
		if err != nil {
			return Facts{}, fmt.Errorf("podbook: restore %s records: %w", k, err)
		}
		for _, kv := range kvs {
			hint, d, err := parseValue(k, kv.Value)
			if err != nil {
				return Facts{}, fmt.Errorf("podbook: %s record of %s: %w", k, kv.Key, err)
			}
			r := Record{Kind: k, PodUID: string(kv.Key), Restored: true}
			if k == KindBind {
				r.Node, r.Group = d.GetBind().GetNode(), d.GetBind().GetGroup()
				if r.Revision, err = findBind(ctx, l.store, hint, r.PodUID, r.Node); err != nil {
					return Facts{}, err
				}
				out.Binds = append(out.Binds, r)
				if v := restoredVolumes(r.PodUID, d); len(v.Bindings) > 0 {
					out.Volumes = append(out.Volumes, v)
				}
			} else {
				r.Node = d.GetEvict().GetNode()
				out.Evictions = append(out.Evictions, r)
				evicts[r.PodUID] = d.GetEvict()
			}
		}
	}
	reported, err := l.store.List(store.Unschedulable)
	if err != nil {
		return Facts{}, fmt.Errorf("podbook: restore unschedulable pods: %w", err)
	}
	out.Messages = len(reported)
	if out.Nominations, err = ReadNominations(l.store); err != nil {
		return Facts{}, fmt.Errorf("podbook: restore: %w", err)
	}
	if out.Claims, err = readClaims(l.store); err != nil {
		return Facts{}, err
	}
	if out.Admissions, err = readAdmissions(l.store); err != nil {
		return Facts{}, err
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
	l.facts.restore(out.Nominations, reported)
	l.admits.restore(out.Admissions)
	l.ClaimsWritten(out.Claims)
	l.opts.SetAllocatedDevices(l.AllocatedDevices())
	return out, nil
}

// restoredVolumes are the volume bindings a restored Bind carries.
func restoredVolumes(uid string, d *berthv1.Decision) scheduler.RestoredVolumes {
	v := scheduler.RestoredVolumes{PodUID: uid, Namespace: d.GetPod().GetNamespace()}
	for _, b := range d.GetBind().GetVolumes() {
		v.Bindings = append(v.Bindings, framework.VolumeBinding{Claim: b.GetClaim(), Volume: b.GetVolume(), SelectedNode: b.GetSelectedNode()})
	}
	return v
}

// findBind returns the revision of the Bind of pod uid to node at or above
// from; 0 when it is not found (compacted away). When from itself was
// compacted away, the search goes on from the oldest revision kept: with a
// small retention the hint is often gone while the bind is still there.
func findBind(ctx context.Context, st logReader, from uint64, uid, node string) (uint64, error) {
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
				return 0, fmt.Errorf("podbook: find the bind of %s: %w", uid, err)
			}
			if rev, err := bindIn(recs, uid, node); rev != 0 || err != nil {
				return rev, err
			}
			read += len(recs) + 1
			from = damaged.Revision + 1
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("podbook: find the bind of %s: %w", uid, err)
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
func readBefore(ctx context.Context, st logReader, from, end uint64) ([]store.Record, error) {
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
