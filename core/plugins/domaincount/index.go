package domaincount

import (
	"sync"

	"github.com/berthsched/berth/core/framework"
)

// Entry is one node's contribution to a slot (a constraint, a topology
// key): Count pods in Domain.
type Entry struct {
	Slot   string
	Domain string
	Count  int64
}

// ContributeFunc appends a node's entries. It must be a function of the
// NodeInfo (its node and its pods) and the signature alone.
type ContributeFunc func(ni *framework.NodeInfo, buf []Entry) []Entry

// Total is a domain's sum: Count pods over Nodes entries. A domain stays
// listed while an entry contributes to it, even with Count 0.
type Total struct {
	Count int64
	Nodes int
}

// Index holds the counts of up to max signatures, dropping the least
// recently used beyond. It is safe for concurrent use.
type Index struct {
	mu      sync.Mutex
	max     int
	clock   int64
	entries map[string]*entry
}

type entry struct {
	lister  framework.NodeInfoLister
	version int64
	used    int64
	// perNode is each node's last contribution (nodes without entries are
	// left out).
	perNode map[string][]Entry
	totals  map[string]map[string]Total // by slot, then domain
}

// New returns an index of at most max signatures.
func New(max int) *Index {
	return &Index{max: max, entries: make(map[string]*entry)}
}

// Usable reports whether Visit can serve lister for nodes: lister keeps a
// journal and nodes is its whole list (PreFilter is given the snapshot's
// list; a plugin called with another list falls back to a full walk).
func Usable(lister framework.NodeInfoLister, nodes []*framework.NodeInfo) bool {
	if _, ok := lister.(framework.NodeJournal); !ok {
		return false
	}
	all := lister.List()
	return len(all) == len(nodes) && (len(nodes) == 0 || &all[0] == &nodes[0])
}

// Visit brings the counts of sig up to date with lister (which must be
// Usable) and calls fn with the domains of every slot, under the index's
// lock: fn must neither change nor keep the map. contribute computes one
// node's entries.
func (x *Index) Visit(sig string, lister framework.NodeInfoLister, contribute ContributeFunc, fn func(slot string, domains map[string]Total)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.entries[sig]
	journal := lister.(framework.NodeJournal)
	if e == nil || e.lister != lister {
		e = x.rebuild(sig, lister, journal, contribute)
	} else if e.version != journal.JournalVersion() {
		changed, ok := journal.ChangedSince(e.version)
		if !ok {
			e = x.rebuild(sig, lister, journal, contribute)
		} else {
			e.apply(changed, lister, contribute)
			e.version = journal.JournalVersion()
		}
	}
	x.clock++
	e.used = x.clock
	for slot, m := range e.totals {
		fn(slot, m)
	}
}

func (x *Index) rebuild(sig string, lister framework.NodeInfoLister, journal framework.NodeJournal, contribute ContributeFunc) *entry {
	if _, ok := x.entries[sig]; !ok && len(x.entries) >= x.max {
		x.evictOldest()
	}
	e := &entry{lister: lister, version: journal.JournalVersion(), perNode: make(map[string][]Entry), totals: make(map[string]map[string]Total)}
	var buf []Entry
	for _, ni := range lister.List() {
		buf = contribute(ni, buf[:0])
		e.add(ni.Name(), buf)
	}
	x.entries[sig] = e
	return e
}

func (x *Index) evictOldest() {
	var oldest string
	var at int64 = -1
	for sig, e := range x.entries {
		if at < 0 || e.used < at {
			oldest, at = sig, e.used
		}
	}
	delete(x.entries, oldest)
}

// apply recomputes the changed nodes: their old entries out, new ones in.
func (e *entry) apply(changed []string, lister framework.NodeInfoLister, contribute ContributeFunc) {
	var buf []Entry
	for _, name := range changed {
		e.remove(name)
		if ni, err := lister.Get(name); err == nil {
			buf = contribute(ni, buf[:0])
			e.add(name, buf)
		}
	}
}

func (e *entry) add(name string, entries []Entry) {
	if len(entries) == 0 {
		return
	}
	own := append([]Entry(nil), entries...)
	e.perNode[name] = own
	for _, en := range own {
		m := e.totals[en.Slot]
		if m == nil {
			m = make(map[string]Total)
			e.totals[en.Slot] = m
		}
		t := m[en.Domain]
		t.Count += en.Count
		t.Nodes++
		m[en.Domain] = t
	}
}

func (e *entry) remove(name string) {
	old, ok := e.perNode[name]
	if !ok {
		return
	}
	delete(e.perNode, name)
	for _, en := range old {
		m := e.totals[en.Slot]
		t := m[en.Domain]
		t.Count -= en.Count
		if t.Nodes--; t.Nodes > 0 {
			m[en.Domain] = t
		} else if delete(m, en.Domain); len(m) == 0 {
			delete(e.totals, en.Slot)
		}
	}
}
