package defragsvc

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/scheduler"
)

// follow looks at a plan in flight: its Outcome has a Result once the
// plan has ended (completed, or abandoned and its nominations cleared),
// none while it goes on. A nomination the scheduler dropped (a later
// attempt found no room while the moved pods were still going) is given
// back while the plan goes on.
func (s *Service) follow(ctx context.Context, fl *inflight, now time.Time) (Outcome, error) {
	// A group's cycle places its members on the nodes made free in its own
	// order, so the plan's nodes count as a whole: room planned on n1 and
	// n3 is used as well by either member on either.
	free := map[string]int{}
	for _, w := range fl.waiting {
		free[w.node]++
	}
	var pendingNoms []placed
	bound := 0
	for _, w := range fl.waiting {
		node, nominated, ok := s.where(w.uid)
		switch {
		case !ok:
			return s.abandon(ctx, fl, fmt.Sprintf("the waiting pod %s was deleted", w.key))
		case node != "":
			if free[node] == 0 {
				return s.abandon(ctx, fl, fmt.Sprintf("the waiting pod %s bound to %s, not where planned (%s)", w.key, node, fl.nodes()))
			}
			free[node]--
			bound++
		case nominated != "" && !fl.plans(nominated):
			return s.abandon(ctx, fl, fmt.Sprintf("the waiting pod %s was nominated to %s, not where planned (%s)", w.key, nominated, fl.nodes()))
		case nominated == "":
			pendingNoms = append(pendingNoms, w)
		}
	}
	if bound == len(fl.waiting) {
		s.opts.Logger.Info("defragmentation plan completed", "for", fl.set.key, "took", now.Sub(fl.committed))
		return s.count(Outcome{Set: fl.set.key, Result: Completed, Moves: len(fl.moves)}), nil
	}
	var staying []string
	for _, m := range fl.moves {
		if _, ok := s.opts.View.Pod(m.uid); ok {
			staying = append(staying, m.key)
		}
	}
	if now.Sub(fl.committed) >= s.opts.Bound {
		if len(staying) > 0 {
			return s.abandon(ctx, fl, fmt.Sprintf("the moved pods %s are not gone %s after the plan", strings.Join(staying, ", "), s.opts.Bound))
		}
		return s.abandon(ctx, fl, fmt.Sprintf("the waiting pods are not all bound %s after the plan", s.opts.Bound))
	}
	if len(pendingNoms) > 0 && len(staying) > 0 {
		var plan framework.Plan
		for _, w := range pendingNoms {
			if p, ok := s.opts.View.Pod(w.uid); ok {
				plan.Add(&framework.Nomination{Pod: p, Node: w.node})
			}
		}
		if _, err := s.opts.Planner.Submit(ctx, plan); err != nil {
			return Outcome{}, fmt.Errorf("nominating again for the defragmentation for %s: %w", fl.set.key, err)
		}
	}
	return Outcome{}, nil
}

// abandon clears the nominations the plan holds (those of its waiting
// pods still pending and nominated to one of its nodes), giving why as their
// reason, and holds the set back from a new search for the bound.
func (s *Service) abandon(ctx context.Context, fl *inflight, why string) (Outcome, error) {
	reason := fmt.Sprintf("defragmentation for %s abandoned: %s", fl.set.key, why)
	var plan framework.Plan
	for _, w := range fl.waiting {
		if node, nominated, ok := s.where(w.uid); ok && node == "" && nominated != "" && fl.plans(nominated) {
			if p, ok := s.opts.View.Pod(w.uid); ok {
				plan.Add(&framework.ClearNomination{Pod: p, Reason: reason})
			}
		}
	}
	if plan.Len() > 0 {
		if _, err := s.opts.Planner.Submit(ctx, plan); err != nil {
			return Outcome{}, fmt.Errorf("clearing the nominations of the defragmentation for %s: %w", fl.set.key, err)
		}
	}
	s.retryAt[fl.set.key] = s.opts.Clock().Add(s.opts.Bound)
	s.opts.Logger.Warn("defragmentation plan abandoned", "for", fl.set.key, "why", why, "cleared", plan.Len())
	return s.count(Outcome{Set: fl.set.key, Result: Abandoned, Why: why, Moves: len(fl.moves)}), nil
}

// plans says whether node is one the plan makes room on.
func (fl *inflight) plans(node string) bool {
	for _, w := range fl.waiting {
		if w.node == node {
			return true
		}
	}
	return false
}

// nodes are the plan's nodes, "n1, n3".
func (fl *inflight) nodes() string {
	var ns []string
	for _, w := range fl.waiting {
		if !slices.Contains(ns, w.node) {
			ns = append(ns, w.node)
		}
	}
	return strings.Join(ns, ", ")
}

// where is the node a pod is bound to or binding on, else the node it is
// nominated to; ok is false once it is deleted.
func (s *Service) where(uid string) (node, nominated string, ok bool) {
	ex, err := s.opts.View.ExplainUID(uid)
	if err != nil {
		return "", "", false
	}
	switch ex.Phase {
	case scheduler.PhaseBound, scheduler.PhaseBinding:
		return ex.Node, "", true
	}
	nominated = ex.Queue.NominatedNode
	if nominated == "" {
		nominated = ex.Pod.NominatedNodeName
	}
	return "", nominated, true
}
