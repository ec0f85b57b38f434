package defrag

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/berthsched/berth/core/deschedule"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/simulate"
)

// Options bound and configure the search.
type Options struct {
	// MaxMoves bounds the moves of one plan (all the gang's members
	// together); 0 means 8.
	MaxMoves int
	// Deadline bounds the search's time; zero means none. Clock reads
	// the time (nil: time.Now).
	Deadline time.Time
	Clock    func() time.Time
	// Movable says "" for a pod that may be moved, else why not
	// (deschedule.Movable).
	Movable func(*model.Pod) string
	Sim     simulate.Options
	Config  simulate.Input // only Config is read
	// PriorityClasses are given to the simulation.
	PriorityClasses []*model.PriorityClass
}

// Move is one pod moved for the plan.
type Move struct {
	Pod      *model.Pod
	From, To string
	// For names the waiting pod the room is made for.
	For string
}

// Plan is a found defragmentation.
type Plan struct {
	Moves []Move
	// Placements are where each waiting pod goes, by namespace/name.
	Placements map[string]string
}

// ErrNoPlan: no set of moves within the bounds makes room.
var ErrNoPlan = errors.New("no defragmentation within the bounds makes room")

// ErrNotNeeded: the waiting pods fit already (or preemption places them).
var ErrNotNeeded = errors.New("the pods fit or can preempt: no defragmentation needed")

// Find searches for a plan that places every waiting pod.
func Find(ctx context.Context, c *deschedule.Cluster, waiting []*model.Pod, opts Options) (*Plan, error) {
	if opts.MaxMoves == 0 {
		opts.MaxMoves = 8
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Movable == nil {
		return nil, errors.New("defrag: Options.Movable is required")
	}
	s := &search{opts: opts, c: c}
	for _, p := range c.Pods {
		if p.NodeName != "" && !finished(p) {
			s.placed = append(s.placed, placement{pod: p, node: p.NodeName})
		}
	}
	if ok, err := s.fitsAsIs(ctx, waiting); err != nil || ok {
		if err == nil {
			err = ErrNotNeeded
		}
		return nil, err
	}
	plan := &Plan{Placements: map[string]string{}}
	moved := map[*model.Pod]bool{}
	for _, w := range waiting {
		best, err := s.bestFor(ctx, w, moved, opts.MaxMoves-len(plan.Moves))
		if err != nil {
			return nil, err
		}
		if best == nil {
			return nil, fmt.Errorf("%w: %s", ErrNoPlan, w.Key())
		}
		for _, m := range best.moves {
			moved[m.Pod] = true
			plan.Moves = append(plan.Moves, m)
		}
		plan.Placements[w.Key()] = best.node
		s.placed = best.after
	}
	return plan, nil
}

type placement struct {
	pod  *model.Pod
	node string
}

type search struct {
	opts   Options
	c      *deschedule.Cluster
	placed []placement // the cluster as the plan so far leaves it
}

type candidate struct {
	node  string
	moves []Move
	after []placement
}

func finished(p *model.Pod) bool {
	ph := p.Runtime.EffectivePhase()
	return ph == model.PodSucceeded || ph == model.PodFailed
}

// engine builds a simulation of placed less the pods in without.
func (s *search) engine(ctx context.Context, placed []placement, without map[*model.Pod]bool) (*simulate.Engine, error) {
	var pods []*model.Pod
	for _, pl := range placed {
		if without[pl.pod] {
			continue
		}
		p := *pl.pod
		p.NodeName = pl.node
		pods = append(pods, &p)
	}
	var classes []*model.PriorityClass
	for _, pc := range s.opts.PriorityClasses {
		if len(pc.Name) < 7 || pc.Name[:7] != "system-" {
			classes = append(classes, pc)
		}
	}
	return simulate.New(ctx, simulate.Input{Nodes: s.c.Nodes, Pods: pods, PriorityClasses: classes, PDBs: s.c.PDBs,
		Namespaces: s.c.Namespaces, Config: s.opts.Config.Config}, s.opts.Sim)
}

// fitsAsIs: every waiting pod binds or gets a node nominated by
// preemption, as they are.
func (s *search) fitsAsIs(ctx context.Context, waiting []*model.Pod) (bool, error) {
	e, err := s.engine(ctx, s.placed, nil)
	if err != nil {
		return false, err
	}
	for _, w := range waiting {
		atts, err := e.Schedule(ctx, []*model.Pod{pending(w, false)})
		if err != nil {
			return false, err
		}
		if len(atts) == 0 {
			return false, nil
		}
		if r := atts[0].Result; r != simulate.ResultBound && r != simulate.ResultNominated {
			return false, nil
		}
	}
	return true, nil
}

// pending is p to schedule: no node, preemption off unless keep.
func pending(p *model.Pod, keep bool) *model.Pod {
	r := *p
	r.NodeName, r.NominatedNodeName = "", ""
	// Members are placed one by one here; Find is all or nothing.
	r.SchedulingGroup = ""
	if !keep {
		prio := p.Priority
		r.RequestedPriority = &prio
		r.PreemptionPolicy = model.PreemptNever
	}
	return &r
}

// maxTriesPerNode bounds the simulations of one node's candidate sets.
const maxTriesPerNode = 32

func (s *search) bestFor(ctx context.Context, w *model.Pod, moved map[*model.Pod]bool, budget int) (*candidate, error) {
	byNode := map[string][]*model.Pod{}
	for _, pl := range s.placed {
		byNode[pl.node] = append(byNode[pl.node], pl.pod)
	}
	allowed := s.budgetAllowance(moved)
	var best *candidate
	for _, n := range sortedNodes(s.c.Nodes) {
		limit := budget
		if best != nil {
			limit = len(best.moves) - 1
		}
		tries := 0
		err := s.covers(w, n, byNode[n.Name], moved, allowed, limit, func(victims []*model.Pod) (bool, error) {
			if tries++; tries > maxTriesPerNode || (!s.opts.Deadline.IsZero() && s.opts.Clock().After(s.opts.Deadline)) {
				return true, nil
			}
			cand, err := s.try(ctx, w, n.Name, victims)
			if err != nil || cand == nil {
				return false, err
			}
			best = cand
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return best, nil
}

// covers hands yield the sets of at most limit movable pods on n whose
// requests make the waiting pod's requests fit n, fewest pods first and,
// among sets of one size, largest pods first; yield stops it by
// returning true.
func (s *search) covers(w *model.Pod, n *model.Node, on []*model.Pod, moved map[*model.Pod]bool, allowed func(*model.Pod) bool, limit int,
	yield func([]*model.Pod) (bool, error)) error {
	need := model.ComputeRequests(w).Requests
	var used model.Resources
	for _, p := range on {
		r := model.ComputeRequests(p).Requests
		used.Add(&r)
	}
	fits := func(freed *model.Resources, count int) bool {
		for _, name := range []string{model.ResourceCPU, model.ResourceMemory} {
			if used.Get(name)-freed.Get(name)+need.Get(name) > n.Allocatable[name] {
				return false
			}
		}
		return int64(len(on)-count) < n.Allocatable[model.ResourcePods]
	}
	var movable []*model.Pod
	for _, p := range on {
		if !moved[p] && s.opts.Movable(p) == "" && allowed(p) {
			movable = append(movable, p)
		}
	}
	size := func(p *model.Pod) int64 {
		r := model.ComputeRequests(p).Requests
		return r.MilliCPU*1_000_000 + r.Memory/(1<<20)
	}
	sort.SliceStable(movable, func(i, j int) bool {
		if si, sj := size(movable[i]), size(movable[j]); si != sj {
			return si > sj
		}
		return movable[i].Key() < movable[j].Key()
	})
	if fits(&model.Resources{}, 0) {
		return nil // room already: another filter refused the pod here
	}
	pick := make([]*model.Pod, 0, limit)
	var rec func(from, k int, freed model.Resources) (bool, error)
	rec = func(from, k int, freed model.Resources) (bool, error) {
		if len(pick) == k {
			if !fits(&freed, k) {
				return false, nil
			}
			return yield(append([]*model.Pod(nil), pick...))
		}
		for i := from; i < len(movable); i++ {
			r := model.ComputeRequests(movable[i]).Requests
			next := freed
			next.Add(&r)
			pick = append(pick, movable[i])
			stop, err := rec(i+1, k, next)
			pick = pick[:len(pick)-1]
			if stop || err != nil {
				return stop, err
			}
		}
		return false, nil
	}
	for k := 1; k <= limit && k <= len(movable); k++ {
		if stop, err := rec(0, k, model.Resources{}); stop || err != nil {
			return err
		}
	}
	return nil
}

// try simulates moving victims off node for w: w must bind on node, then
// every victim elsewhere.
func (s *search) try(ctx context.Context, w *model.Pod, node string, victims []*model.Pod) (*candidate, error) {
	without := map[*model.Pod]bool{}
	for _, v := range victims {
		without[v] = true
	}
	e, err := s.engine(ctx, s.placed, without)
	if err != nil {
		return nil, err
	}
	atts, err := e.Schedule(ctx, []*model.Pod{pending(w, false)})
	if err != nil {
		return nil, err
	}
	if len(atts) == 0 || atts[0].Result != simulate.ResultBound || atts[0].Node != node {
		return nil, nil
	}
	cand := &candidate{node: node}
	for _, pl := range s.placed {
		if !without[pl.pod] {
			cand.after = append(cand.after, pl)
		}
	}
	cand.after = append(cand.after, placement{pod: w, node: node})
	for i, v := range victims {
		r := pending(v, false)
		r.UID = fmt.Sprintf("%s-defrag-%d", v.UID, i)
		atts, err := e.Schedule(ctx, []*model.Pod{r})
		if err != nil {
			return nil, err
		}
		if len(atts) == 0 || atts[0].Result != simulate.ResultBound || atts[0].Node == v.NodeName {
			return nil, nil
		}
		cand.moves = append(cand.moves, Move{Pod: v, From: v.NodeName, To: atts[0].Node, For: w.Key()})
		cand.after = append(cand.after, placement{pod: v, node: atts[0].Node})
	}
	return cand, nil
}

// budgetAllowance says whether one more pod may be disrupted under its
// budget, counting the plan's moves so far.
func (s *search) budgetAllowance(moved map[*model.Pod]bool) func(*model.Pod) bool {
	var active []*model.Pod
	for _, pl := range s.placed {
		active = append(active, pl.pod)
	}
	return func(p *model.Pod) bool {
		var covering []disruption.Budget
		for _, b := range s.c.PDBs {
			sel := model.Nothing()
			if b.Selector != nil {
				if c, err := b.Selector.Compile(); err == nil {
					sel = c
				}
			}
			if !disruption.Covers(b, sel, p) {
				continue
			}
			st := disruption.Compute(b, sel, active)
			for q := range moved {
				if disruption.Covers(b, sel, q) {
					st.DisruptionsAllowed--
				}
			}
			covering = append(covering, disruption.Budget{PDB: b, Status: st})
		}
		v := disruption.Check(p, covering)
		return v == disruption.Allow || v == disruption.AllowCharged
	}
}

func sortedNodes(nodes []*model.Node) []*model.Node {
	out := append([]*model.Node(nil), nodes...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
