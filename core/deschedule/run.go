package deschedule

import (
	"fmt"
	"time"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
)

// Eviction is one eviction the pass asked for, in order. Refused says why
// the eviction API turned it down (a budget); such a pod stays.
type Eviction struct {
	Pod               *model.Pod
	Node              string
	Profile, Strategy string
	Refused           string
}

// LimitRefusal is an eviction a pass limit turned down before it reached
// the eviction API.
type LimitRefusal struct {
	Pod, Node         string
	Limit             Limit
	Profile, Strategy string
}

// Result is what one pass did.
type Result struct {
	Evictions     []Eviction
	LimitRefusals []LimitRefusal
	// Skipped: fewer than two ready nodes, so the Descheduler skips the
	// pass.
	Skipped bool
}

// Evicted returns the evictions that were not refused.
func (r *Result) Evicted() []Eviction {
	var out []Eviction
	for _, e := range r.Evictions {
		if e.Refused == "" {
			out = append(out, e)
		}
	}
	return out
}

// run is one profile's view of the pass.
type run struct {
	s       *state
	pe      *podEvictor
	ev      *evictor
	profile string
	now     time.Time
}

func (r *run) evict(p *model.Pod, strategy string) error {
	return r.pe.evict(p, r.profile, strategy)
}

// eligible is the Filter and PreEvictionFilter together, with the
// strategy's namespaces and label selector.
func (r *run) eligible(f *policy.Filtered) func(*model.Pod) bool {
	return func(p *model.Pod) bool {
		return (f == nil || f.Matches(p)) && r.ev.filter(p) && r.ev.preEviction(p)
	}
}

// Run makes one pass of pol over c at now.
func Run(pol *policy.Policy, c *Cluster, now time.Time) (*Result, error) {
	s := newState(c)
	var nodes []*model.Node
	for _, n := range s.sortedNodes() {
		if ready(n) && (pol.NodeSelector == nil || pol.NodeSelector.Matches(n.Labels)) {
			nodes = append(nodes, n)
		}
	}
	if len(nodes) < 2 {
		return &Result{Skipped: true}, nil
	}
	pe := newPodEvictor(pol, s, c.PDBs)
	runs := make([]*run, len(pol.Profiles))
	for i := range pol.Profiles {
		p := &pol.Profiles[i]
		runs[i] = &run{s: s, pe: pe, profile: p.Name, now: now, ev: &evictor{args: &p.Evictor, s: s, pdbs: c.PDBs, now: now}}
	}
	for i := range pol.Profiles {
		for _, st := range pol.Profiles[i].Deschedule {
			if err := runs[i].strategy(st, nodes); err != nil {
				return nil, err
			}
		}
	}
	for i := range pol.Profiles {
		for _, st := range pol.Profiles[i].Balance {
			if err := runs[i].strategy(st, nodes); err != nil {
				return nil, err
			}
		}
	}
	return &Result{Evictions: pe.evictions, LimitRefusals: pe.refusals}, nil
}

func (r *run) strategy(st policy.Strategy, nodes []*model.Node) error {
	switch a := st.Args.(type) {
	case *policy.NodeTaintsArgs:
		r.nodeTaints(a, nodes)
	case *policy.NodeAffinityArgs:
		r.nodeAffinity(a, nodes)
	case *policy.InterPodAntiAffinityArgs:
		r.interPodAntiAffinity(a, nodes)
	case *policy.TooManyRestartsArgs:
		r.tooManyRestarts(a, nodes)
	case *policy.PodLifeTimeArgs:
		r.podLifeTime(a, nodes)
	case *policy.RemoveDuplicatesArgs:
		r.removeDuplicates(a, nodes)
	case *policy.LowNodeUtilizationArgs:
		r.lowNodeUtilization(a, nodes)
	case *policy.HighNodeUtilizationArgs:
		r.highNodeUtilization(a, nodes)
	case *policy.TopologySpreadArgs:
		r.topologySpread(a, nodes)
	default:
		return fmt.Errorf("profile %s: strategy %s (%T) is not run by Berth", r.profile, st.Name, st.Args)
	}
	return nil
}
