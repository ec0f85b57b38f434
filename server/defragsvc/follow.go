package defragsvc

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/berthsched/berth/core/framework"
)

// follow looks at a plan in flight: its Outcome has a Result once the
// plan has ended (completed, or abandoned and its nominations cleared),
// none while it goes on. A nomination the scheduler dropped (a later
// attempt found no room while the moved pods were still going) is given
// back while the plan goes on.
func (s *Service) follow(ctx context.Context, fl *inflight, now time.Time) (Outcome, error) {
	var pendingNoms []placed
	bound := 0
	for _, w := range fl.waiting {
		p, ok := s.opts.View.Pod(w.uid)
		switch {
		case !ok:
			return s.abandon(ctx, fl, fmt.Sprintf("the waiting pod %s was deleted", w.key))
		case p.NodeName != "" && p.NodeName != w.node:
			return s.abandon(ctx, fl, fmt.Sprintf("the waiting pod %s bound to %s, not %s as planned", w.key, p.NodeName, w.node))
		case p.NodeName != "":
			bound++
		case p.NominatedNodeName != "" && p.NominatedNodeName != w.node:
			return s.abandon(ctx, fl, fmt.Sprintf("the waiting pod %s was nominated to %s, not %s as planned", w.key, p.NominatedNodeName, w.node))
		case p.NominatedNodeName == "":
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
// pods still pending and nominated where planned), giving why as their
// reason, and holds the set back from a new search for the bound.
func (s *Service) abandon(ctx context.Context, fl *inflight, why string) (Outcome, error) {
	reason := fmt.Sprintf("defragmentation for %s abandoned: %s", fl.set.key, why)
	var plan framework.Plan
	for _, w := range fl.waiting {
		if p, ok := s.opts.View.Pod(w.uid); ok && p.NodeName == "" && p.NominatedNodeName == w.node {
			plan.Add(&framework.ClearNomination{Pod: p, Reason: reason})
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
