package pressuresvc

import (
	"context"
	"sort"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/pressure"
)

// AddNode sends the node to the scheduler with the NoSchedule taints of the
// pressure conditions it has now, remembering the node as sent so that a
// change of conditions can send it again.
func (s *Service) AddNode(ctx context.Context, node *model.Node) error {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	s.mu.Lock()
	s.sent[node.Name] = node
	r, reported := s.nodes[node.Name]
	s.mu.Unlock()
	if err := s.opts.Scheduler.AddNode(ctx, s.withTaints(node)); err != nil {
		return err
	}
	if reported { // after a restart: arm the end of the transition period
		s.schedule(node.Name, r, s.opts.Config.For(node.Labels))
	}
	return nil
}

// DeleteNode forgets the node as sent; its pressure state stays (a node
// re-added under the same name is the same machine).
func (s *Service) DeleteNode(name string) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	s.mu.Lock()
	delete(s.sent, name)
	s.mu.Unlock()
}

// refresh sends the node again, with the taints of its conditions now.
func (s *Service) refresh(ctx context.Context, name string) error {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	s.mu.Lock()
	node, ok := s.sent[name]
	s.mu.Unlock()
	if !ok {
		return nil // never sent through AddNode: nothing to taint
	}
	return s.opts.Scheduler.AddNode(ctx, s.withTaints(node))
}

// Conditions are the pressure conditions of the node now.
func (s *Service) Conditions(node *model.Node) []pressure.Condition {
	r := s.record(node.Name)
	cfg := s.opts.Config.For(node.Labels)
	return r.State.ConditionsAt(s.opts.Now(), cfg.PressureTransitionPeriod)
}

// withTaints is a copy of the node with a NoSchedule taint per pressure
// condition (unless the node already has a taint of that key and effect).
func (s *Service) withTaints(node *model.Node) *model.Node {
	conds := s.Conditions(node)
	if len(conds) == 0 {
		return node
	}
	cp := *node
	cp.Taints = append([]model.Taint(nil), node.Taints...)
	for _, c := range conds {
		t := model.Taint{Key: c.Taint(), Effect: model.TaintEffectNoSchedule}
		if !hasTaint(cp.Taints, t) {
			cp.Taints = append(cp.Taints, t)
		}
	}
	return &cp
}

func hasTaint(ts []model.Taint, t model.Taint) bool {
	for _, o := range ts {
		if o.Key == t.Key && o.Effect == t.Effect {
			return true
		}
	}
	return false
}

// schedule arms a timer for the end of the node's earliest condition's
// transition period, which sends the node again without its taint.
func (s *Service) schedule(name string, r *nodeRecord, cfg pressure.Config) {
	now := s.opts.Now()
	var next time.Time
	for _, at := range r.State.ConditionsLastObservedAt {
		if end := at.Add(cfg.PressureTransitionPeriod); end.After(now) && (next.IsZero() || end.Before(next)) {
			next = end
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.timers[name]; ok {
		t.Stop()
		delete(s.timers, name)
	}
	if next.IsZero() || s.closed {
		return
	}
	s.timers[name] = time.AfterFunc(next.Sub(now), func() { s.expire(name) })
}

// expire sends the node again once a transition period ended, and arms the
// timer for the next one.
func (s *Service) expire(name string) {
	ctx := context.Background()
	if err := s.refresh(ctx, name); err != nil {
		return // the node's next report or send applies the taints
	}
	s.mu.Lock()
	node, ok := s.sent[name]
	s.mu.Unlock()
	if ok {
		r := s.record(name)
		s.schedule(name, &r, s.opts.Config.For(node.Labels))
	}
}

// GetNodePressure lists every node that reported stats, by name.
func (s *Service) GetNodePressure(_ context.Context, _ *berthv1.GetNodePressureRequest) (*berthv1.GetNodePressureResponse, error) {
	s.mu.Lock()
	names := make([]string, 0, len(s.nodes))
	for n := range s.nodes {
		names = append(names, n)
	}
	s.mu.Unlock()
	sort.Strings(names)
	resp := &berthv1.GetNodePressureResponse{}
	now := s.opts.Now()
	for _, n := range names {
		cfg := s.opts.Config.Default
		if node, _, _, ok := s.opts.Cluster.RunningOn(n); ok {
			cfg = s.opts.Config.For(node.Labels)
		}
		r := s.record(n)
		resp.Nodes = append(resp.Nodes, r.proto(n, now, cfg))
	}
	return resp, nil
}
