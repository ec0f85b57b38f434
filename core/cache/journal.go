package cache

import "sort"

// journal records which nodes each snapshot update changed, so that
// plugins keeping indexes over the snapshot (framework.NodeJournal) bring
// them up to date by recomputing only those nodes. kube-scheduler has no
// such record: its plugins rebuild their cross-node state from every node
// for every pod.
type journal struct {
	// version counts the updates that changed a node.
	version int64
	// from is the oldest version the entries reach back to: changes after
	// it are all recorded.
	from    int64
	entries []journalEntry
	// pending holds the names changed by the update in progress.
	pending []string
}

type journalEntry struct {
	version int64
	name    string
}

// restart forgets every recorded change (the snapshot is rebuilt).
func (j *journal) restart() {
	j.version++
	j.from = j.version
	j.entries = j.entries[:0]
	j.pending = j.pending[:0]
}

func (j *journal) record(name string) { j.pending = append(j.pending, name) }

// commit ends an update. The journal keeps about four times as many entries
// as there are nodes; past that the older half is dropped, and indexes last
// brought up to date before it rebuild from every node.
func (j *journal) commit(numNodes int) {
	if len(j.pending) == 0 {
		return
	}
	j.version++
	for _, name := range j.pending {
		j.entries = append(j.entries, journalEntry{j.version, name})
	}
	j.pending = j.pending[:0]
	if limit := 4*numNodes + 1024; len(j.entries) > limit {
		drop := len(j.entries) / 2
		j.from = j.entries[drop-1].version
		// Drop whole versions: the first kept entry starts one.
		for drop < len(j.entries) && j.entries[drop].version == j.from {
			drop++
		}
		j.entries = append(j.entries[:0], j.entries[drop:]...)
	}
}

// JournalVersion returns the version of the latest update that changed a
// node.
func (s *Snapshot) JournalVersion() int64 { return s.journal.version }

// ChangedSince returns the names of the nodes added, changed or removed by
// the updates after version v (a name may repeat), and false when the
// journal no longer reaches back to v. The slice is valid until the next
// update.
func (s *Snapshot) ChangedSince(v int64) ([]string, bool) {
	j := &s.journal
	if v < j.from || v > j.version {
		return nil, false
	}
	i := sort.Search(len(j.entries), func(i int) bool { return j.entries[i].version > v })
	names := make([]string, 0, len(j.entries)-i)
	for _, e := range j.entries[i:] {
		names = append(names, e.name)
	}
	return names, true
}
