package defragsvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/deschedule"
	"github.com/berthsched/berth/core/deschedule/defrag"
	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/core/simulate"
	"github.com/berthsched/berth/server/decisionlog"
)

// Defaults of Options.
const (
	DefaultMaxMoves = 8
	DefaultTimeout  = 2 * time.Second
	DefaultInterval = 30 * time.Second
	DefaultBound    = 2 * time.Minute
)

// maxSearchesPerCheck bounds the searches of one check, so that a queue
// of many stuck pods costs at most this many timeouts per interval; the
// others wait for the next check.
const maxSearchesPerCheck = 4

// View is the live scheduler's read side; scheduler.View satisfies it.
type View interface {
	Pods() []*model.Pod
	Nodes() ([]scheduler.NodeUsage, error)
	PDBs() []*model.PodDisruptionBudget
	Namespaces() []*model.Namespace
	PriorityClasses() []*model.PriorityClass
	PodGroups() []*model.PodGroup
	Budgets(pod *model.Pod) []disruption.Budget
	Pod(uid string) (*model.Pod, bool)
	Pending() []scheduler.PendingPod
	ExplainUID(uid string) (scheduler.Explanation, error)
	Held() bool
}

// Options configure a Service.
type Options struct {
	Config   *config.Config // nil: config.Default()
	Registry runtime.Registry
	View     View
	// Planner commits the plans (scheduler.ControllerDecisions).
	Planner framework.Planner
	// Evicted tells whether a pod has an Evict awaiting its deletion.
	Evicted func(uid string) bool
	// MaxMoves bounds one plan's moves (0: DefaultMaxMoves); Timeout one
	// search (0: DefaultTimeout); Interval is how often pods are checked
	// and how long one must have been pending (0: DefaultInterval); Bound
	// is how long a plan may take, and how long a pod or group waits
	// before it is searched for again (0: DefaultBound).
	MaxMoves int
	Timeout  time.Duration
	Interval time.Duration
	Bound    time.Duration
	// Registerer receives the berth_defragment_* metrics; nil: none.
	Registerer prometheus.Registerer
	Clock      func() time.Time
	Logger     *slog.Logger
}

// Result names what became of a search or a plan, as
// berth_defragment_plans_total{result} counts it.
type Result string

// The results.
const (
	// Committed: the plan's Evicts and Nominations are durable.
	Committed Result = "committed"
	// Completed: every waiting pod is bound where planned.
	Completed Result = "completed"
	// Abandoned: the plan ended otherwise; its nominations are cleared.
	Abandoned Result = "abandoned"
	// NoPlan: no set of moves within the bounds makes room.
	NoPlan Result = "no_plan"
	// NotNeeded: the pods fit, or can preempt, as the cluster stands.
	NotNeeded Result = "not_needed"
	// Refused: a plan was found but could not be committed as found.
	Refused Result = "refused"
	// Failed: the search or the commit failed.
	Failed Result = "failed"
)

// Outcome is what one check did for one waiting pod or group.
type Outcome struct {
	// Set is "pod ns/name" or "pod group ns/name".
	Set    string
	Result Result
	// Why says more: the abandonment's or refusal's reason, the error.
	Why   string
	Moves int
}

// Service is the defragmenter. It is safe for concurrent use; checks do
// not overlap.
type Service struct {
	opts    Options
	mu      sync.Mutex
	flights map[string]*inflight
	// retryAt holds sets back from a new search until then.
	retryAt map[string]time.Time
	plans   *prometheus.CounterVec
	moves   prometheus.Counter
}

// New returns a Service; Registry, View, Planner and Evicted are
// required.
func New(opts Options) (*Service, error) {
	if opts.Registry == nil || opts.View == nil || opts.Planner == nil || opts.Evicted == nil {
		return nil, errors.New("defragsvc: Registry, View, Planner and Evicted are required")
	}
	if opts.MaxMoves < 0 || opts.Timeout < 0 || opts.Interval < 0 || opts.Bound < 0 {
		return nil, fmt.Errorf("defragsvc: max moves %d, timeout %s, interval %s and bound %s must not be negative", opts.MaxMoves, opts.Timeout, opts.Interval, opts.Bound)
	}
	if opts.Config == nil {
		opts.Config = config.Default()
	}
	if opts.MaxMoves == 0 {
		opts.MaxMoves = DefaultMaxMoves
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Interval == 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Bound == 0 {
		opts.Bound = DefaultBound
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{opts: opts, flights: map[string]*inflight{}, retryAt: map[string]time.Time{},
		plans: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "berth_defragment_plans_total",
			Help: "Defragmentation searches and plans, by result: committed, completed, abandoned, no_plan, not_needed, refused, failed.",
		}, []string{"result"}),
		moves: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "berth_defragment_moves_evicted_total",
			Help: "Pods evicted (cause defragment) by committed defragmentation plans.",
		}),
	}
	if opts.Registerer != nil {
		for _, c := range []prometheus.Collector{s.plans, s.moves} {
			if err := opts.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("defragsvc: registering metrics: %w", err)
			}
		}
	}
	return s, nil
}

// Loop checks every interval until ctx ends.
func (s *Service) Loop(ctx context.Context) {
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.Check(ctx); err != nil && ctx.Err() == nil {
				s.opts.Logger.Warn("defragmentation check failed", "err", err)
			}
		}
	}
}

// Check follows the plans in flight, then searches for the waiting pods
// and groups that have none, and commits the plans found. It returns
// what it did per set. An error is the cluster unreadable or a commit
// failed; what was done before it is in the outcomes.
func (s *Service) Check(ctx context.Context) ([]Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.View.Held() {
		return nil, nil // the cluster is not all there before the re-list
	}
	now := s.opts.Clock()
	var out []Outcome
	for key, fl := range s.flights {
		o, err := s.follow(ctx, fl, now)
		if err != nil {
			return out, err
		}
		if o.Result != "" {
			out = append(out, o)
			delete(s.flights, key)
		}
	}
	for key, at := range s.retryAt {
		if !now.Before(at) {
			delete(s.retryAt, key)
		}
	}
	var cluster *deschedule.Cluster
	searches := 0
	for _, set := range waitingSets(s.pending(), s.opts.View.PodGroups(), s.opts.View.Pods(), now, s.opts.Interval) {
		if _, busy := s.flights[set.key]; busy {
			continue
		}
		if _, wait := s.retryAt[set.key]; wait {
			continue
		}
		if searches == maxSearchesPerCheck {
			break
		}
		searches++
		if cluster == nil {
			var err error
			if cluster, err = s.snapshot(); err != nil {
				return out, err
			}
		}
		o, err := s.defragment(ctx, set, cluster, now)
		out = append(out, o)
		if o.Result == Committed {
			cluster = nil // the moves and nominations change it
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// pending reads each pending pod's queue state and, only for those the
// queue alone does not rule out (Explain costs more), when they were
// queued and whether the last attempt failed.
func (s *Service) pending() []pendingState {
	var out []pendingState
	for _, p := range s.opts.View.Pending() {
		st := pendingState{pod: p.Pod, queue: p.Queue}
		if ruledOutByQueue(p.Pod, p.Queue) == "" {
			if ex, err := s.opts.View.ExplainUID(p.Pod.UID); err == nil {
				st.queued, st.failed = ex.Queued, ex.Diagnosis != nil
			}
		}
		out = append(out, st)
	}
	return out
}

// defragment searches a plan for set on cluster and commits it.
func (s *Service) defragment(ctx context.Context, set waitingSet, cluster *deschedule.Cluster, now time.Time) (Outcome, error) {
	o := Outcome{Set: set.key}
	start := s.opts.Clock()
	waiting := map[string]bool{}
	for _, p := range set.pods {
		waiting[p.UID] = true
	}
	found, err := defrag.Find(ctx, cluster, set.pods, defrag.Options{
		MaxMoves: s.opts.MaxMoves, Deadline: start.Add(s.opts.Timeout), Clock: s.opts.Clock,
		Movable:         s.movable(cluster, waiting, now),
		Sim:             simulate.Options{Registry: s.opts.Registry, Logger: s.opts.Logger},
		Config:          simulate.Input{Config: s.opts.Config},
		PriorityClasses: s.opts.View.PriorityClasses(),
	})
	took := s.opts.Clock().Sub(start)
	switch {
	case errors.Is(err, defrag.ErrNotNeeded):
		o.Result = NotNeeded
		s.opts.Logger.Debug("defragmentation not needed", "for", set.key)
		return s.count(o), nil
	case errors.Is(err, defrag.ErrNoPlan):
		o.Result, o.Why = NoPlan, err.Error()
		s.retryAt[set.key] = now.Add(s.opts.Bound)
		s.opts.Logger.Info("defragmentation found no plan", "for", set.key, "err", err, "max_moves", s.opts.MaxMoves, "took", took)
		return s.count(o), nil
	case err != nil:
		o.Result, o.Why = Failed, err.Error()
		s.retryAt[set.key] = now.Add(s.opts.Bound)
		s.count(o)
		return o, fmt.Errorf("defragmenting for %s: %w", set.key, err)
	}
	plan, fl, err := planFor(set, found, s.opts.View.Pod, s.opts.View.Budgets, s.opts.Evicted)
	if err != nil {
		o.Result, o.Why = Refused, err.Error()
		s.retryAt[set.key] = now.Add(s.opts.Bound)
		s.opts.Logger.Info("defragmentation plan refused", "for", set.key, "why", err)
		return s.count(o), nil
	}
	res, err := s.opts.Planner.Submit(ctx, plan)
	if err != nil {
		o.Result, o.Why = Failed, err.Error()
		s.retryAt[set.key] = now.Add(s.opts.Bound)
		s.count(o)
		return o, fmt.Errorf("committing the defragmentation for %s: %w", set.key, err)
	}
	fl.committed = now
	var lost []string
	for i, item := range plan.Items {
		rerr := res.Err(i)
		if rerr == nil {
			if _, ok := item.(*framework.Eviction); ok {
				o.Moves++
				s.moves.Inc()
			}
			continue
		}
		switch it := item.(type) {
		case *framework.Eviction:
			// Evicted meanwhile by someone else: it leaves all the same,
			// and is never evicted twice.
			if !errors.Is(rerr, decisionlog.ErrAlreadyEvicted) {
				lost = append(lost, fmt.Sprintf("the Evict of %s: %v", it.Victim.Key(), rerr))
			}
		case *framework.Nomination:
			lost = append(lost, fmt.Sprintf("the Nomination of %s: %v", it.Pod.Key(), rerr))
		}
	}
	moves, placements := describe(found)
	s.opts.Logger.Info("defragmentation plan committed", "for", set.key, "moves", moves, "placements", placements, "evicted", o.Moves, "took", took)
	o.Result = Committed
	s.count(o)
	if len(lost) > 0 {
		// Part of the plan was refused: it cannot make the room it
		// planned, so let go of what it holds at once.
		why := "part of the plan was refused: " + strings.Join(lost, "; ")
		ab, err := s.abandon(ctx, fl, why)
		if err != nil {
			return o, err
		}
		s.retryAt[set.key] = now.Add(s.opts.Bound)
		return ab, nil
	}
	s.flights[set.key] = fl
	return o, nil
}

// movable is the DefaultEvictor's rules with its defaults (the
// Descheduler's: no pods with local storage, of DaemonSets, system
// critical or of priority at or above system-cluster-critical, nor bare
// pods), and further: no pod being evicted or deleted already (a pod is
// evicted once), no waiting pod, no pod of a pod group (moving one member
// would break its gang).
func (s *Service) movable(c *deschedule.Cluster, waiting map[string]bool, now time.Time) func(*model.Pod) string {
	rules := deschedule.Movable(defaultEvictor(), c, now)
	return func(p *model.Pod) string {
		switch {
		case waiting[p.UID]:
			return "it is a waiting pod"
		case p.Terminating || s.opts.Evicted(p.UID):
			return "it is being evicted or deleted already"
		case p.SchedulingGroup != "":
			return "it is a member of pod group " + p.GroupKey()
		}
		if live, ok := s.opts.View.Pod(p.UID); ok && live.NodeName == "" {
			return "it is pending, nominated to " + p.NodeName
		}
		return rules(p)
	}
}

func defaultEvictor() *policy.EvictorArgs {
	return &policy.EvictorArgs{PriorityThreshold: model.SystemCriticalPriority, Protections: map[policy.Protection]bool{
		policy.PodsWithLocalStorage: true, policy.DaemonSetPods: true, policy.SystemCriticalPods: true, policy.FailedBarePods: true}}
}

// snapshot copies the live cluster. A pending pod nominated to a node is
// put there, so the search leaves the room held for it alone.
func (s *Service) snapshot() (*deschedule.Cluster, error) {
	usage, err := s.opts.View.Nodes()
	if err != nil {
		return nil, fmt.Errorf("defragmentation: listing nodes: %w", err)
	}
	c := &deschedule.Cluster{PDBs: s.opts.View.PDBs(), Namespaces: s.opts.View.Namespaces()}
	for _, u := range usage {
		c.Nodes = append(c.Nodes, u.Node)
	}
	for _, p := range s.opts.View.Pods() {
		if p.NodeName == "" && p.NominatedNodeName != "" {
			held := *p
			held.NodeName = p.NominatedNodeName
			p = &held
		}
		c.Pods = append(c.Pods, p)
	}
	return c, nil
}

func (s *Service) count(o Outcome) Outcome {
	s.plans.WithLabelValues(string(o.Result)).Inc()
	return o
}
