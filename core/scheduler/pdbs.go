package scheduler

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// pdbs is the set of disruption budgets, implementing framework.PDBLister
// over the pods the scheduler knows. It is safe for concurrent use.
type pdbs struct {
	mu     sync.RWMutex
	byKey  map[string]pdbEntry
	podsFn func() []*model.Pod // every known pod, pending and bound
}

type pdbEntry struct {
	pdb *model.PodDisruptionBudget
	sel model.Selector
}

var _ framework.PDBLister = (*pdbs)(nil)

func newPDBs(podsFn func() []*model.Pod) *pdbs {
	return &pdbs{byKey: map[string]pdbEntry{}, podsFn: podsFn}
}

// budgets returns every budget, sorted by namespace/name.
func (p *pdbs) budgets() []*model.PodDisruptionBudget {
	p.mu.RLock()
	out := make([]*model.PodDisruptionBudget, 0, len(p.byKey))
	for _, e := range p.byKey {
		out = append(out, e.pdb)
	}
	p.mu.RUnlock()
	slices.SortFunc(out, func(a, b *model.PodDisruptionBudget) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// List returns every budget with the disruptions it allows now, sorted by
// namespace/name.
func (p *pdbs) List() []framework.PDBStatus {
	p.mu.RLock()
	entries := make([]pdbEntry, 0, len(p.byKey))
	for _, e := range p.byKey {
		entries = append(entries, e)
	}
	p.mu.RUnlock()
	if len(entries) == 0 {
		return nil
	}
	slices.SortFunc(entries, func(a, b pdbEntry) int {
		return cmp.Or(cmp.Compare(a.pdb.Namespace, b.pdb.Namespace), cmp.Compare(a.pdb.Name, b.pdb.Name))
	})
	var pods []*model.Pod
	if p.podsFn != nil {
		pods = p.podsFn()
	}
	out := make([]framework.PDBStatus, 0, len(entries))
	for _, e := range entries {
		out = append(out, framework.PDBStatus{PDB: e.pdb, Selector: e.sel, DisruptionsAllowed: disruptionsAllowed(e.pdb, e.sel, pods)})
	}
	return out
}

// disruptionsAllowed is the budget's allowance over pods
// (disruption.Compute: a pod the scheduler evicted is terminating in its
// view, so not healthy); a value the caller gave wins.
func disruptionsAllowed(pdb *model.PodDisruptionBudget, sel model.Selector, pods []*model.Pod) int32 {
	return disruption.Compute(pdb, sel, pods).DisruptionsAllowed
}

// covering returns the budgets that cover pod for the eviction API
// (disruption.Covers), with their status now, sorted by namespace/name.
func (p *pdbs) covering(pod *model.Pod) []disruption.Budget {
	p.mu.RLock()
	var entries []pdbEntry
	for _, e := range p.byKey {
		if disruption.Covers(e.pdb, e.sel, pod) {
			entries = append(entries, e)
		}
	}
	p.mu.RUnlock()
	if len(entries) == 0 {
		return nil
	}
	slices.SortFunc(entries, func(a, b pdbEntry) int { return cmp.Compare(a.pdb.Name, b.pdb.Name) })
	pods := p.podsFn()
	out := make([]disruption.Budget, 0, len(entries))
	for _, e := range entries {
		out = append(out, disruption.Budget{PDB: e.pdb, Status: disruption.Compute(e.pdb, e.sel, pods)})
	}
	return out
}

func pdbKey(namespace, name string) string { return namespace + "/" + name }

// setPDB adds or replaces a PodDisruptionBudget.
func (s *Scheduler) setPDB(ctx context.Context, pdb *model.PodDisruptionBudget) error {
	if pdb == nil || pdb.Name == "" {
		return fmt.Errorf("set PodDisruptionBudget: %w", ErrInvalid)
	}
	sel, err := pdb.Selector.Compile()
	if err != nil {
		return fmt.Errorf("PodDisruptionBudget %s: selector: %w", pdbKey(pdb.Namespace, pdb.Name), err)
	}
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	s.state.pdbs.mu.Lock()
	old, known := s.state.pdbs.byKey[pdbKey(pdb.Namespace, pdb.Name)]
	s.state.pdbs.byKey[pdbKey(pdb.Namespace, pdb.Name)] = pdbEntry{pdb: pdb, sel: sel}
	s.state.pdbs.mu.Unlock()
	action, label := framework.ActionAdd, "PodDisruptionBudgetAdd"
	var oldObj any
	if known {
		action, label, oldObj = framework.ActionUpdateOther, "PodDisruptionBudgetUpdate", old.pdb
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, objectEvent(framework.EventPDB, action, label), oldObj, pdb, nil)
	return nil
}

// deletePDB removes a PodDisruptionBudget.
func (s *Scheduler) deletePDB(ctx context.Context, namespace, name string) error {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	s.state.pdbs.mu.Lock()
	old, known := s.state.pdbs.byKey[pdbKey(namespace, name)]
	delete(s.state.pdbs.byKey, pdbKey(namespace, name))
	s.state.pdbs.mu.Unlock()
	if !known {
		return fmt.Errorf("delete PodDisruptionBudget %s: %w", pdbKey(namespace, name), ErrNotFound)
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, objectEvent(framework.EventPDB, framework.ActionDelete, "PodDisruptionBudgetDelete"), old.pdb, nil, nil)
	return nil
}
