package pressuresvc

import (
	"context"
	"sort"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/pressure"
)

// Handle is the service's subscription to the object store: a node sent
// (after a restart, with a pressure state restored) has the end of its
// transition period armed.
func (s *Service) Handle(_ context.Context, ev objstore.Event) {
	node, ok := ev.New.(*model.Node)
	if !ok || ev.Kind != objstore.KindNode {
		return
	}
	s.mu.Lock()
	r, reported := s.nodes[node.Name]
	s.mu.Unlock()
	if reported {
		s.schedule(node.Name, r, s.opts.Config.For(node.Labels))
	}
}

// refresh has the node applied again, with the taints of its conditions
// now (a node not held is left alone).
func (s *Service) refresh(ctx context.Context, name string) error {
	return s.opts.Nodes.Refresh(ctx, name)
}

// Conditions are the pressure conditions of the node now.
func (s *Service) Conditions(node *model.Node) []pressure.Condition {
	r := s.record(node.Name)
	cfg := s.opts.Config.For(node.Labels)
	return r.State.ConditionsAt(s.opts.Now(), cfg.PressureTransitionPeriod)
}

// Taints is the object store's node mutator: a copy of the node with a
// NoSchedule taint per pressure condition (unless the node already has a
// taint of that key and effect), the node itself when it has none.
func (s *Service) Taints(node *model.Node) *model.Node {
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
	if node, _, _, ok := s.opts.Cluster.RunningOn(name); ok {
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
