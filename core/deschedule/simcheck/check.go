package simcheck

import (
	"context"
	"fmt"
	"strings"

	"github.com/berthsched/berth/core/deschedule"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/simulate"
)

// Eviction is one eviction of a plan to check.
type Eviction struct {
	Pod      *model.Pod
	Strategy string
}

// Move is an eviction kept: the pod goes From → To.
type Move struct {
	Pod      *model.Pod
	From, To string
	Strategy string
	Reason   string
}

// Skip is an eviction left out, and why.
type Skip struct {
	Pod      *model.Pod
	From     string
	Strategy string
	Reason   string
	// LandsBack: the scheduler would place the replacement on From.
	LandsBack bool
}

// Plan is what the check keeps and leaves out, in the evictions' order.
type Plan struct {
	Moves   []Move
	Skipped []Skip
}

// Input is the cluster the evictions were planned on and how Berth
// schedules it.
type Input struct {
	Cluster         *deschedule.Cluster
	PriorityClasses []*model.PriorityClass
	Sim             simulate.Options
	Config          simulate.Input // only Config and Devices are read
}

// Check simulates each eviction in order on the cluster as the plan has
// changed it so far.
func Check(ctx context.Context, in Input, evictions []Eviction) (*Plan, error) {
	var running []*model.Pod
	for _, p := range in.Cluster.Pods {
		if p.NodeName != "" && !finished(p) {
			running = append(running, p)
		}
	}
	var classes []*model.PriorityClass
	for _, pc := range in.PriorityClasses {
		if !strings.HasPrefix(pc.Name, "system-") { // built in: the engine has them
			classes = append(classes, pc)
		}
	}
	e, err := simulate.New(ctx, simulate.Input{
		Nodes: in.Cluster.Nodes, Pods: running, PriorityClasses: classes, PDBs: in.Cluster.PDBs,
		Namespaces: in.Cluster.Namespaces, Config: in.Config.Config, Devices: in.Config.Devices,
	}, in.Sim)
	if err != nil {
		return nil, err
	}
	w := newWorld(in.Cluster.Nodes, running)
	plan := &Plan{}
	for i, ev := range evictions {
		p, from := ev.Pod, ev.Pod.NodeName
		skip := func(reason string, back bool) {
			plan.Skipped = append(plan.Skipped, Skip{Pod: p, From: from, Strategy: ev.Strategy, Reason: reason, LandsBack: back})
		}
		if finished(p) {
			// A finished pod holds nothing: evicting it only removes it.
			plan.Moves = append(plan.Moves, Move{Pod: p, From: from, Strategy: ev.Strategy, Reason: "finished; nothing to re-place"})
			continue
		}
		if err := e.Remove(ctx, simulate.Object{Pod: p}); err != nil {
			return nil, fmt.Errorf("simcheck: removing %s: %w", p.Key(), err)
		}
		repl := replacement(p, i)
		atts, err := e.Schedule(ctx, []*model.Pod{repl})
		if err != nil {
			return nil, fmt.Errorf("simcheck: scheduling the replacement of %s: %w", p.Key(), err)
		}
		for _, a := range atts {
			if len(a.Victims) > 0 {
				return nil, fmt.Errorf("simcheck: the replacement of %s preempted %d pods though it may not preempt", p.Key(), len(a.Victims))
			}
		}
		to, why := placed(atts)
		switch {
		case to == "":
			skip(why, false)
		case to == from:
			skip("the scheduler would place it back on "+from, true)
		default:
			if reduced, detail := w.reduced(ev.Strategy, p, from, to); reduced {
				plan.Moves = append(plan.Moves, Move{Pod: p, From: from, To: to, Strategy: ev.Strategy, Reason: detail})
				w.move(p, from, to)
				continue
			} else {
				skip("placed on "+to+", but "+detail, false)
			}
		}
		// Undo: the replacement goes, the pod stays where it was.
		if err := e.Remove(ctx, simulate.Object{Pod: repl}); err != nil {
			return nil, fmt.Errorf("simcheck: undoing %s: %w", p.Key(), err)
		}
		if _, err := e.Schedule(ctx, []*model.Pod{p}); err != nil {
			return nil, fmt.Errorf("simcheck: restoring %s: %w", p.Key(), err)
		}
	}
	return plan, nil
}

func finished(p *model.Pod) bool {
	ph := p.Runtime.EffectivePhase()
	return ph == model.PodSucceeded || ph == model.PodFailed
}

// replacement is the pod as its controller recreates it: pending, not
// preempting, a new uid.
func replacement(p *model.Pod, i int) *model.Pod {
	r := *p
	r.UID = fmt.Sprintf("%s-replacement-%d", p.UID, i)
	r.NodeName, r.NominatedNodeName = "", ""
	r.Terminating, r.Preempted = false, false
	r.StartTime = p.StartTime
	// The priority it was admitted with, so admission keeps the policy.
	prio := p.Priority
	r.RequestedPriority = &prio
	r.PreemptionPolicy = model.PreemptNever
	return &r
}

// placed returns the node the replacement was bound to, or why none.
func placed(atts []simulate.Attempt) (node, why string) {
	if len(atts) == 0 {
		return "", "the scheduler did not try it"
	}
	last := atts[len(atts)-1]
	switch last.Result {
	case simulate.ResultBound:
		return last.Node, ""
	case simulate.ResultUnschedulable:
		return "", "the scheduler would place it nowhere: " + strings.TrimSpace(last.Message)
	}
	return "", "the scheduler's attempt ended " + last.Result
}
