package pressuresvc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/pressure"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/errmap"
	"github.com/berthsched/berth/store"
)

// Cluster is what the service reads of the scheduler: a node, the pods
// running on it and its other pods (terminating, assumed), as
// core/scheduler.View.RunningOn gives them.
type Cluster interface {
	RunningOn(node string) (n *model.Node, running, others []*model.Pod, ok bool)
}

// Nodes applies a node again through the node mutators, among them the
// service's Taints, when its conditions changed; *objstore.Store fits.
type Nodes interface {
	Refresh(ctx context.Context, name string) error
}

// Evictor evicts a pod durably and holds it terminating;
// *eviction.Evictor fits.
type Evictor interface {
	Evict(ctx context.Context, e framework.Eviction) error
}

// Options are what New needs.
type Options struct {
	Config  Config
	Cluster Cluster
	Nodes   Nodes
	Evictor Evictor
	Store   store.Store
	// Registerer receives the evictions counter; nil registers nothing.
	Registerer prometheus.Registerer
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// nodeRecord is one node's durable record.
type nodeRecord struct {
	State      pressure.State `json:"state"`
	LastReport time.Time      `json:"lastReport"`
}

// Service implements berth.v1.StatsService; its Taints is a node mutator
// of the object store, and its Handle a subscription to it.
type Service struct {
	berthv1.UnimplementedStatsServiceServer
	opts      Options
	evictions *prometheus.CounterVec

	reportMu sync.Mutex // one report at a time
	mu       sync.Mutex // the fields below
	nodes    map[string]*nodeRecord
	timers   map[string]*time.Timer
	closed   bool
}

// New restores the nodes' states from the store.
func New(opts Options) (*Service, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Service{opts: opts, nodes: map[string]*nodeRecord{}, timers: map[string]*time.Timer{}}
	s.evictions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "berth_node_pressure_evictions_total",
		Help: "Pods evicted for node pressure, by the eviction signal reclaimed (the kubelet's kubelet_evictions).",
	}, []string{"eviction_signal"})
	if opts.Registerer != nil {
		if err := opts.Registerer.Register(s.evictions); err != nil {
			return nil, err
		}
	}
	kvs, err := opts.Store.List(store.Pressure)
	if err != nil {
		return nil, fmt.Errorf("restore node pressure: %w", err)
	}
	for _, kv := range kvs {
		var r nodeRecord
		if err := json.Unmarshal(kv.Value, &r); err != nil {
			return nil, fmt.Errorf("restore node pressure of %s: %w", kv.Key, err)
		}
		s.nodes[string(kv.Key)] = &r
	}
	return s, nil
}

// Close stops the transition-period timers.
func (s *Service) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, t := range s.timers {
		t.Stop()
	}
}

// ReportNodeStats runs one pass of the eviction manager on the Summary.
func (s *Service) ReportNodeStats(ctx context.Context, req *berthv1.ReportNodeStatsRequest) (*berthv1.ReportNodeStatsResponse, error) {
	resp, err := s.report(ctx, req.GetSummaryJson())
	return resp, errmap.Status(err)
}

func (s *Service) report(ctx context.Context, data []byte) (*berthv1.ReportNodeStatsResponse, error) {
	if len(data) == 0 {
		return nil, errmap.Field("summary_json", fmt.Errorf("required: %w", scheduler.ErrInvalid))
	}
	sum, err := pressure.DecodeSummary(data)
	if err != nil {
		return nil, errmap.Field("summary_json", fmt.Errorf("%v: %w", err, scheduler.ErrInvalid))
	}
	name := sum.Node.NodeName
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	node, running, others, ok := s.opts.Cluster.RunningOn(name)
	if !ok {
		return nil, fmt.Errorf("node %s: %w", name, scheduler.ErrNotFound)
	}
	active := make([]*pressure.Pod, 0, len(running))
	for _, p := range running {
		active = append(active, pressure.FromModel(p))
	}
	known := slices.Clone(active)
	for _, p := range others { // evicted or deleting: they may still use resources
		known = append(known, pressure.FromModel(p))
	}
	if err := pressure.ResolvePodRefs(sum, known); err != nil {
		return nil, errmap.Field("summary_json", err)
	}
	now := s.opts.Now()
	cfg := s.opts.Config.For(node.Labels)
	prev := s.record(name)
	if stale(pressure.Observe(sum), now, s.opts.Config.StatsMaxAge) {
		return &berthv1.ReportNodeStatsResponse{Pressure: prev.proto(name, now, cfg), Stale: true}, nil
	}
	res := pressure.Synchronize(cfg, prev.State, now, sum, active)
	next := &nodeRecord{State: res.State, LastReport: now}
	if err := s.save(ctx, name, next); err != nil {
		return nil, err
	}
	resp := &berthv1.ReportNodeStatsResponse{Pressure: next.proto(name, now, cfg), Ambiguous: res.Ambiguous}
	if e := res.Evicted; e != nil {
		ev, err := s.evict(ctx, name, running, e)
		if err != nil {
			return nil, err
		}
		resp.Evict = ev
	}
	if !slices.Equal(prev.State.ConditionsAt(now, cfg.PressureTransitionPeriod), res.Conditions) {
		if err := s.refresh(ctx, name); err != nil {
			return nil, err
		}
	}
	s.schedule(name, next, cfg)
	return resp, nil
}

// stale: the newest measurement is older than maxAge. A Summary without
// times is taken as measured now.
func stale(obs pressure.Observations, now time.Time, maxAge time.Duration) bool {
	var newest time.Time
	for _, o := range obs {
		if o.Time.After(newest) {
			newest = o.Time
		}
	}
	return !newest.IsZero() && now.Sub(newest) > maxAge
}

func (s *Service) record(name string) nodeRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.nodes[name]; ok {
		return *r
	}
	return nodeRecord{}
}

func (s *Service) save(ctx context.Context, name string, r *nodeRecord) error {
	val, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var b store.Batch
	b.Put(store.Pressure, []byte(name), val)
	if _, err := s.opts.Store.Commit(ctx, &b); err != nil {
		return fmt.Errorf("save node pressure of %s: %w", name, err)
	}
	s.mu.Lock()
	s.nodes[name] = r
	s.mu.Unlock()
	return nil
}

// evict makes the Evict decision durable and holds the pod terminating.
func (s *Service) evict(ctx context.Context, node string, running []*model.Pod, e *pressure.Eviction) (*berthv1.Evict, error) {
	i := slices.IndexFunc(running, func(p *model.Pod) bool { return p.UID == e.Pod.UID })
	victim := running[i]
	grace := e.GracePeriodSeconds
	if err := s.opts.Evictor.Evict(ctx, framework.Eviction{
		Victim: victim, Node: node, Cause: framework.EvictNodePressure,
		Message: e.Message, GracePeriodSeconds: &grace,
	}); err != nil {
		return nil, fmt.Errorf("evict %s: %w", victim.Key(), err)
	}
	s.evictions.WithLabelValues(string(e.Threshold.Signal)).Inc()
	return &berthv1.Evict{
		Victim: &berthv1.PodRef{Namespace: victim.Namespace, Name: victim.Name, Uid: victim.UID},
		Node:   node, Reason: e.Message, Cause: berthv1.EvictCause_EVICT_CAUSE_NODE_PRESSURE, GracePeriodSeconds: &grace,
	}, nil
}

func (r nodeRecord) proto(name string, now time.Time, cfg pressure.Config) *berthv1.NodePressure {
	np := &berthv1.NodePressure{Node: name, ThresholdsMet: r.State.ThresholdsMet}
	for _, c := range r.State.ConditionsAt(now, cfg.PressureTransitionPeriod) {
		np.Conditions = append(np.Conditions, string(c))
	}
	if !r.LastReport.IsZero() {
		np.LastReportUnixSeconds = r.LastReport.Unix()
	}
	return np
}
