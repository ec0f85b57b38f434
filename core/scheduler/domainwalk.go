package scheduler

// The domain walk: kube's in-order search for feasible nodes
// (findNodesThatPassFilters with one worker) that passes over the nodes of
// the topology domains a Filter plugin rejects whole
// (framework.DomainRejecter) instead of filtering them one by one. It
// visits the other nodes in exactly the order and up to exactly the node
// the plain walk would, so it finds the same feasible nodes and processes
// (for the round-robin start index) the same number of nodes; the nodes it
// passed over are rejected, and their statuses are computed only when
// someone reads them (attempts that keep their details, or no node fit).

import (
	"context"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Worth-it bounds: the walk pays a binary search per accepted domain and a
// heap step per visited node, so it is used when at least a quarter of the
// nodes can be passed over and the accepted domains are not too many, or,
// when it saves running the plugin on every node it visits, across a few
// accepted domains.
const (
	domainWalkMinRejectedShare   = 4 // at least 1/4 of the nodes
	domainWalkMaxDomains         = 1024
	domainWalkMaxDecisiveDomains = 64
	// maxDomainOrders bounds the keys indexed at once (each costs a map
	// entry per node); past it the indexes start over.
	maxDomainOrders = 8
)

// domainOrder indexes the snapshot's node list by one label: the domain of
// each position and the positions of each domain, ascending. It follows
// the snapshot through its journal and is rebuilt when the list changes.
type domainOrder struct {
	key      string
	list     []*framework.NodeInfo // the list indexed (kept to compare identity)
	version  int64                 // the snapshot's journal version indexed
	byName   map[string]int32      // position of each node
	domainOf []int32               // domain id per position, -1: no such label
	names    []string              // domain value per id
	ids      map[string]int32
	members  [][]int32 // positions per domain id, ascending
}

// domainOrderFor returns the index of the snapshot's list by key, brought
// up to date: rebuilt when the list is another one, when the journal no
// longer reaches back, or when a node named by the journal changed its
// value of key.
func (s *Scheduler) domainOrderFor(key string) *domainOrder {
	list := s.snapshot.List()
	o := s.domainOrders[key]
	if o != nil && sameList(o.list, list) && o.current(s) {
		return o
	}
	o = newDomainOrder(key, list)
	o.version = s.snapshot.JournalVersion()
	if s.domainOrders == nil || len(s.domainOrders) >= maxDomainOrders {
		s.domainOrders = make(map[string]*domainOrder)
	}
	s.domainOrders[key] = o
	return o
}

func sameList(a, b []*framework.NodeInfo) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// current reports whether no node changed its value of the key since the
// index was built or last checked.
func (o *domainOrder) current(s *Scheduler) bool {
	v := s.snapshot.JournalVersion()
	if v == o.version {
		return true
	}
	changed, ok := s.snapshot.ChangedSince(o.version)
	if !ok {
		return false
	}
	for _, name := range changed {
		p, ok := o.byName[name]
		if !ok {
			return false
		}
		node := o.list[p].Node()
		if node == nil || node.Name != name {
			return false
		}
		value, has := node.Labels[o.key]
		if id := o.domainOf[p]; has != (id >= 0) || has && o.names[id] != value {
			return false
		}
	}
	o.version = v
	return true
}

func newDomainOrder(key string, list []*framework.NodeInfo) *domainOrder {
	o := &domainOrder{key: key, list: list, byName: make(map[string]int32, len(list)),
		domainOf: make([]int32, len(list)), ids: make(map[string]int32)}
	for p, ni := range list {
		o.byName[ni.Name()] = int32(p)
		o.domainOf[p] = -1
		node := ni.Node()
		if node == nil {
			continue
		}
		value, ok := node.Labels[key]
		if !ok {
			continue
		}
		id, ok := o.ids[value]
		if !ok {
			id = int32(len(o.names))
			o.ids[value] = id
			o.names = append(o.names, value)
			o.members = append(o.members, nil)
		}
		o.domainOf[p] = id
		o.members[id] = append(o.members[id], int32(p))
	}
	return o
}

// domainPlan is what the walk passes over: the nodes of o whose domain is
// rejected or who lack the key; accepted lists the other domains' ids.
type domainPlan struct {
	o        *domainOrder
	rejected []bool // by domain id
	accepted []int32
	// passes names the plugin that accepts the accepted domains' nodes
	// unless pods are nominated to them ("" if it may not).
	passes string
}

// skips reports whether position p is passed over.
func (pl *domainPlan) skips(p int) bool {
	id := pl.o.domainOf[p]
	return id < 0 || pl.rejected[id]
}

// planDomainWalk picks, among the rejected domains the plugins report, the
// key whose walk is worth the most for nodes: one passing over at least a
// quarter of them (the most), else one whose plugin it saves on every
// node it visits (decisive) across few domains.
func (s *Scheduler) planDomainWalk(state *framework.CycleState, fwk framework.Framework, nodes []*framework.NodeInfo) *domainPlan {
	if !sameList(nodes, s.snapshot.List()) {
		return nil
	}
	var best, decisive *domainPlan
	bestSkipped := 0
	for _, r := range fwk.RejectedDomains(state) {
		o := s.domainOrderFor(r.Key)
		pl := &domainPlan{o: o, rejected: make([]bool, len(o.names))}
		skipped := len(nodes)
		for id, value := range o.names {
			if _, ok := r.Domains[value]; ok {
				pl.rejected[id] = true
			} else {
				pl.accepted = append(pl.accepted, int32(id))
				skipped -= len(o.members[id])
			}
		}
		if r.Decisive && len(pl.accepted) <= domainWalkMaxDecisiveDomains {
			pl.passes, decisive = r.Plugin, pl
		}
		if skipped*domainWalkMinRejectedShare >= len(nodes) && skipped > bestSkipped && len(pl.accepted) <= domainWalkMaxDomains {
			best, bestSkipped = pl, skipped
		}
	}
	if best == nil {
		return decisive
	}
	return best
}

// cursor walks one accepted domain's positions from the start index on,
// wrapping once; off is its next position's distance from the start.
type cursor struct {
	off  int32
	id   int32 // domain
	next int32 // index in the domain's members
	left int32 // positions not yet walked
}

// filterByDomain is filterInOrder passing over the plan's nodes. It returns
// how many of the nodes processed it passed over without a status in
// d.NodeToStatus: none when materialize is set or no node fit, since then
// it filters them after the walk to record their statuses.
func (s *Scheduler) filterByDomain(ctx context.Context, state *framework.CycleState, fwk framework.Framework, pod *model.Pod, d *framework.Diagnosis, nodes, feasible []*framework.NodeInfo, plan *domainPlan, materialize bool) ([]*framework.NodeInfo, int, error) {
	n, start, toFind := len(nodes), s.nextStartNodeIndex, len(feasible)
	members := plan.o.members
	h := s.cursorBuf[:0]
	for _, id := range plan.accepted {
		m := members[id]
		j, _ := slices.BinarySearch(m, int32(start))
		j %= len(m)
		h = append(h, cursor{off: offset(m[j], start, n), id: id, next: int32(j), left: int32(len(m))})
	}
	heapify(h)
	found, rejected, stop := 0, 0, n
	for len(h) > 0 {
		if err := ctx.Err(); err != nil {
			return feasible[:found], 0, err
		}
		off := int(h[0].off)
		ni := nodes[(start+off)%n]
		st := fwk.RunFilterPluginsPassing(ctx, state, pod, ni, plan.passes)
		switch {
		case st.Code() == framework.Error:
			return feasible[:found], 0, st.AsError()
		case st.IsSuccess():
			if found == toFind {
				stop = off
				h = h[:0]
				continue
			}
			feasible[found] = ni
			found++
		default:
			d.NodeToStatus.Set(ni.Name(), st)
			addPluginStatus(d, st)
			rejected++
		}
		h = advance(h, members, start, n)
	}
	s.cursorBuf = h
	if !materialize && found > 0 {
		return feasible[:found], stop - found - rejected, nil
	}
	for off := range stop {
		p := (start + off) % n
		if !plan.skips(p) {
			continue
		}
		st := fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, nodes[p])
		if st.Code() == framework.Error {
			return feasible[:found], 0, st.AsError()
		}
		d.NodeToStatus.Set(nodes[p].Name(), st)
		addPluginStatus(d, st)
	}
	return feasible[:found], 0, nil
}

// offset is position p's distance from start in the walk's wrapping order.
func offset(p int32, start, n int) int32 {
	return int32((int(p) - start + n) % n)
}

// advance moves the first cursor (the least offset) to its domain's next
// position, dropping it once it has walked them all, and restores the heap.
func advance(h []cursor, members [][]int32, start, n int) []cursor {
	c := &h[0]
	if c.left--; c.left == 0 {
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
	} else {
		m := members[c.id]
		c.next = (c.next + 1) % int32(len(m))
		c.off = offset(m[c.next], start, n)
	}
	siftDown(h, 0)
	return h
}

// heapify orders h as a min-heap by offset.
func heapify(h []cursor) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
}

func siftDown(h []cursor, i int) {
	for {
		least := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(h) && h[c].off < h[least].off {
				least = c
			}
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}
