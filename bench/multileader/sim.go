package main

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
)

// Mode is how the schedulers share the cluster.
type Mode string

const (
	// Optimistic is Omega's shape: every scheduler sees every node (a
	// replica of the whole state, kept by watching the log) and commits
	// each bind in a transaction that checks the node, retrying the pod
	// when the check fails.
	Optimistic Mode = "optimistic"
	// Partitioned gives each scheduler its own slice of the nodes (one
	// election and one log prefix per partition); a pod goes to one
	// partition and, when it fits none of its nodes, to the next.
	Partitioned Mode = "partitioned"
)

// Check is what an optimistic commit compares.
type Check string

const (
	// CheckVersion refuses a bind when another scheduler's bind reached
	// the node after this scheduler last saw it: what one etcd
	// transaction can compare (the node key's mod revision).
	CheckVersion Check = "version"
	// CheckFit refuses a bind only when the node no longer has room: the
	// check needs the node's usage read and compared inside the commit.
	CheckFit Check = "fit"
)

// Params are one simulated run. Times are in seconds.
type Params struct {
	Nodes, Pods int
	Schedulers  int
	Mode        Mode
	Check       Check
	// NodeCPU is each node's allocatable cpu, in the units of the pods'
	// requests; PodCPU the requests drawn uniformly from.
	NodeCPU int
	PodCPU  []int
	// CycleFixed and PerNodeVisited make a cycle's cost: fixed +
	// perNode × the nodes kube's adaptive share visits in the
	// scheduler's view of the cluster (Berth's measured costs by
	// default, docs/performance.md "Cost growth").
	CycleFixed, PerNodeVisited float64
	// CommitLatency is from a bind's decision to its commit in the log
	// (etcd's quorum write); WatchDelay from the commit to the other
	// schedulers' views.
	CommitLatency, WatchDelay float64
	Seed                      uint64
}

// Result is what a run measured.
type Result struct {
	Params
	Seconds      float64 // simulated time until the last bind was committed
	Bound        int
	Unplaceable  int     // pods that fit nowhere the scheduler(s) could see
	Conflicts    int     // optimistic commits refused
	Spills       int     // partitioned pods sent on to the next partition
	PodsPerSec   float64 // bound / seconds
	UtilStddev   float64 // of the nodes' cpu use, 0..1, at the end
	NodesPerView int     // nodes each scheduler holds in memory
}

// visited is kube's adaptive share of n nodes a cycle filters and scores
// when most nodes fit: max(5%, 50% - n/125 percentage points), at least
// 100, all of them below 100.
func visited(n int) int {
	if n < 100 {
		return n
	}
	pct := max(50-n/125, 5)
	return max(n*pct/100, 100)
}

type event struct {
	at    float64
	sched int // cycle start of sched, or -1
	bind  *bind
}

type bind struct {
	sched, pod, node int
	decided          float64 // the cycle's start: what the scheduler had seen
}

type events []event

func (e events) Len() int           { return len(e) }
func (e events) Less(i, j int) bool { return e[i].at < e[j].at }
func (e events) Swap(i, j int)      { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)        { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// scheduler is one leader: its view of the nodes it may use, its queue,
// its walk's next start.
type scheduler struct {
	first, count int     // its nodes: [first, first+count)
	used         []int   // its view, indexed from first
	queue        []int   // pods to place, front first
	seen         int     // commits of the log applied to the view
	next         int     // the walk's next start, kube's nextStartNodeIndex
	cycle        float64 // its cycle's cost
}

type commit struct {
	at          float64
	sched, node int
	cpu         int
}

// Run simulates p.
func Run(p Params) (Result, error) {
	if err := p.validate(); err != nil {
		return Result{}, err
	}
	rng := rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))
	req := make([]int, p.Pods)
	for i := range req {
		req[i] = p.PodCPU[rng.IntN(len(p.PodCPU))]
	}
	used := make([]int, p.Nodes) // the log's truth
	// lastBy[node*K+k] is when scheduler k's last bind to node landed.
	k := p.Schedulers
	lastBy := make([]float64, p.Nodes*k)
	for i := range lastBy {
		lastBy[i] = math.Inf(-1)
	}
	scheds := make([]*scheduler, k)
	for i := range scheds {
		s := &scheduler{first: 0, count: p.Nodes}
		if p.Mode == Partitioned {
			s.first, s.count = i*p.Nodes/k, (i+1)*p.Nodes/k-i*p.Nodes/k
		}
		s.used = make([]int, s.count)
		s.cycle = p.CycleFixed + p.PerNodeVisited*float64(visited(s.count))
		s.next = rng.IntN(s.count)
		scheds[i] = s
	}
	tries := make([]int, p.Pods)
	for pod := range p.Pods {
		scheds[pod%k].queue = append(scheds[pod%k].queue, pod)
	}
	var log []commit
	res := Result{Params: p, NodesPerView: scheds[0].count}
	h := &events{}
	for i := range scheds {
		heap.Push(h, event{at: 0, sched: i})
	}
	for h.Len() > 0 {
		ev := heap.Pop(h).(event)
		now := ev.at
		if b := ev.bind; b != nil {
			s := scheds[b.sched]
			conflict := false
			switch {
			case used[b.node]+req[b.pod] > p.NodeCPU:
				conflict = true
			case p.Mode == Optimistic && p.Check == CheckVersion:
				for other := range k {
					if other != b.sched && lastBy[b.node*k+other]+p.WatchDelay > b.decided {
						conflict = true
						break
					}
				}
			}
			if conflict {
				res.Conflicts++
				s.used[b.node-s.first] -= req[b.pod] // the assumption undone
				s.queue = append([]int{b.pod}, s.queue...)
				continue
			}
			used[b.node] += req[b.pod]
			lastBy[b.node*k+b.sched] = now
			log = append(log, commit{at: now, sched: b.sched, node: b.node, cpu: req[b.pod]})
			res.Bound++
			res.Seconds = now
			continue
		}
		s := scheds[ev.sched]
		// The view: every commit of the others visible by now.
		for s.seen < len(log) && log[s.seen].at+p.WatchDelay <= now {
			c := log[s.seen]
			if c.sched != ev.sched && c.node >= s.first && c.node < s.first+s.count {
				s.used[c.node-s.first] += c.cpu
			}
			s.seen++
		}
		if len(s.queue) == 0 {
			if res.Bound+res.Unplaceable < p.Pods {
				// Idle until a conflict or a spill brings work.
				heap.Push(h, event{at: now + s.cycle, sched: ev.sched})
			}
			continue
		}
		pod := s.queue[0]
		s.queue = s.queue[1:]
		node, ok := s.pick(req[pod], p.NodeCPU)
		if !ok {
			if p.Mode == Partitioned && tries[pod]+1 < k {
				tries[pod]++
				res.Spills++
				nextS := scheds[(ev.sched+1)%k]
				nextS.queue = append(nextS.queue, pod)
			} else {
				res.Unplaceable++
			}
			heap.Push(h, event{at: now + s.cycle, sched: ev.sched})
			continue
		}
		s.used[node] += req[pod]
		heap.Push(h, event{at: now + s.cycle + p.CommitLatency, sched: -1,
			bind: &bind{sched: ev.sched, pod: pod, node: s.first + node, decided: now}})
		heap.Push(h, event{at: now + s.cycle, sched: ev.sched})
	}
	if res.Seconds > 0 {
		res.PodsPerSec = float64(res.Bound) / res.Seconds
	}
	res.UtilStddev = stddev(used, p.NodeCPU)
	return res, nil
}

// pick walks the view from the scheduler's next start as kube does: it
// stops once it has found the adaptive share of feasible nodes, and picks
// the least allocated of them (ties: the first found).
func (s *scheduler) pick(cpu, capacity int) (int, bool) {
	want := visited(s.count)
	best, bestFree, found := -1, -1, 0
	i := 0
	for ; i < s.count && found < want; i++ {
		n := (s.next + i) % s.count
		free := capacity - s.used[n]
		if free < cpu {
			continue
		}
		found++
		if free > bestFree {
			best, bestFree = n, free
		}
	}
	s.next = (s.next + i) % s.count
	return best, best >= 0
}

func (p Params) validate() error {
	switch {
	case p.Nodes <= 0 || p.Pods <= 0:
		return fmt.Errorf("nodes and pods must be positive, got %d and %d", p.Nodes, p.Pods)
	case p.Schedulers <= 0 || p.Schedulers > p.Nodes:
		return fmt.Errorf("schedulers must be between 1 and the nodes, got %d", p.Schedulers)
	case p.Mode != Optimistic && p.Mode != Partitioned:
		return fmt.Errorf("mode must be %q or %q, got %q", Optimistic, Partitioned, p.Mode)
	case p.Mode == Optimistic && p.Check != CheckVersion && p.Check != CheckFit:
		return fmt.Errorf("check must be %q or %q, got %q", CheckVersion, CheckFit, p.Check)
	case p.NodeCPU <= 0 || len(p.PodCPU) == 0:
		return fmt.Errorf("node cpu and pod cpu must be given")
	case p.CycleFixed < 0 || p.PerNodeVisited < 0 || p.CommitLatency < 0 || p.WatchDelay < 0:
		return fmt.Errorf("times must not be negative")
	}
	for _, c := range p.PodCPU {
		if c <= 0 {
			return fmt.Errorf("pod cpu must be positive, got %d", c)
		}
	}
	return nil
}

func stddev(used []int, capacity int) float64 {
	var sum, sq float64
	for _, u := range used {
		f := float64(u) / float64(capacity)
		sum += f
		sq += f * f
	}
	n := float64(len(used))
	mean := sum / n
	return math.Sqrt(max(sq/n-mean*mean, 0))
}
