package deschedule

import (
	"errors"
	"fmt"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/model"
)

// Limit names a pass limit that refused an eviction.
type Limit string

const (
	LimitTotal     Limit = "total"
	LimitNode      Limit = "node"
	LimitNamespace Limit = "namespace"
)

// limitError is the PodEvictor's refusal at a limit; strategies react to
// the node and total ones as the Descheduler's do.
type limitError struct{ limit Limit }

func (e *limitError) Error() string { return fmt.Sprintf("%s eviction limit reached", e.limit) }

// errRefused: the eviction API refused the eviction (a budget); the
// strategy goes on with the next pod.
var errRefused = errors.New("eviction refused")

func isLimit(err error, l Limit) bool {
	var le *limitError
	return errors.As(err, &le) && le.limit == l
}

// podEvictor is the pass's PodEvictor: the limits, counted across
// profiles, then the eviction API's budget rule.
type podEvictor struct {
	pol       *policy.Policy
	s         *state
	perNode   map[string]uint
	perNS     map[string]uint
	total     uint
	budgets   []budget
	evictions []Eviction
	refusals  []LimitRefusal
}

type budget struct {
	pdb     *model.PodDisruptionBudget
	sel     model.Selector
	status  disruption.Status
	allowed int32
}

func newPodEvictor(pol *policy.Policy, s *state, pdbs []*model.PodDisruptionBudget) *podEvictor {
	pe := &podEvictor{pol: pol, s: s, perNode: map[string]uint{}, perNS: map[string]uint{}}
	var active []*model.Pod
	for _, p := range s.all {
		if !finished(p) {
			active = append(active, p)
		}
	}
	for _, b := range pdbs {
		sel := model.Nothing()
		if b.Selector != nil {
			if c, err := b.Selector.Compile(); err == nil {
				sel = c
			}
		}
		st := disruption.Compute(b, sel, active)
		pe.budgets = append(pe.budgets, budget{pdb: b, sel: sel, status: st, allowed: st.DisruptionsAllowed})
	}
	return pe
}

// evict asks to evict p for profile/strategy.
func (pe *podEvictor) evict(p *model.Pod, profile, strategy string) error {
	limit := func(l Limit) error {
		pe.refusals = append(pe.refusals, LimitRefusal{Pod: p.Key(), Node: p.NodeName, Limit: l, Profile: profile, Strategy: strategy})
		return &limitError{l}
	}
	if m := pe.pol.MaxPodsToEvictTotal; m != nil && pe.total+1 > *m {
		return limit(LimitTotal)
	}
	if m := pe.pol.MaxPodsToEvictPerNode; m != nil && p.NodeName != "" && pe.perNode[p.NodeName]+1 > *m {
		return limit(LimitNode)
	}
	if m := pe.pol.MaxPodsToEvictPerNamespace; m != nil && pe.perNS[p.Namespace]+1 > *m {
		return limit(LimitNamespace)
	}
	ev := Eviction{Pod: p, Node: p.NodeName, Profile: profile, Strategy: strategy}
	if why := pe.admit(p); why != "" {
		ev.Refused = why
		pe.evictions = append(pe.evictions, ev)
		return errRefused
	}
	pe.evictions = append(pe.evictions, ev)
	pe.perNode[p.NodeName]++
	pe.perNS[p.Namespace]++
	pe.total++
	pe.s.remove(p)
	return nil
}

// admit is the eviction API's budget rule; it charges the budget and
// returns "" when the eviction may go, else why not.
func (pe *podEvictor) admit(p *model.Pod) string {
	if finished(p) {
		return ""
	}
	var covering []int
	for i := range pe.budgets {
		if disruption.Covers(pe.budgets[i].pdb, pe.budgets[i].sel, p) {
			covering = append(covering, i)
		}
	}
	var bs []disruption.Budget
	for _, i := range covering {
		st := pe.budgets[i].status
		st.DisruptionsAllowed = pe.budgets[i].allowed
		bs = append(bs, disruption.Budget{PDB: pe.budgets[i].pdb, Status: st})
	}
	switch disruption.Check(p, bs) {
	case disruption.RefuseMultiple:
		return "the pod is covered by more than one PodDisruptionBudget"
	case disruption.RefuseBudget:
		return fmt.Sprintf("the disruption budget %s does not allow evicting pods currently", pe.budgets[covering[0]].pdb.Name)
	case disruption.AllowCharged:
		pe.budgets[covering[0]].allowed--
	}
	return ""
}
