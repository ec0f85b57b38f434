package simulate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/priority"
	"github.com/berthsched/berth/core/scheduler"
)

// Input is the cluster to simulate.
type Input struct {
	Nodes []*model.Node
	// Pods in input order: those with NodeName run there, the others are
	// pending.
	Pods            []*model.Pod
	PriorityClasses []*model.PriorityClass
	PDBs            []*model.PodDisruptionBudget
	Namespaces      []*model.Namespace
	// Config is the scheduler configuration; nil means config.Default().
	Config *config.Config
}

// Options tune a run.
type Options struct {
	// Registry holds the plugin factories the configuration names.
	// Required.
	Registry runtime.Registry
	// PercentageOfNodesToScore overrides the global percentage. Unset, the
	// configuration's global value is used if it sets one (0, kube's
	// adaptive default, included), else 100 (every node is filtered and
	// scored), as kubeoracle does.
	PercentageOfNodesToScore *int32
	// MaxPreemptionRetries is how many times a pod that got a node
	// nominated is retried at once. 0 means 1 (kubeoracle's default); a
	// negative value disables the retry.
	MaxPreemptionRetries int
	// Logger defaults to discarding.
	Logger *slog.Logger
	// NoResultMemo runs every plugin on every node for every pod (see
	// scheduler.Options.NoResultMemo); tests compare the two.
	NoResultMemo bool
	// NoIncrementalIndexes makes plugins rebuild their cross-node state
	// for every pod (see scheduler.Options.NoIncrementalIndexes); tests
	// compare the two.
	NoIncrementalIndexes bool
}

// Results of a Line.
const (
	ResultBound         = "bound"
	ResultNominated     = "nominated"
	ResultUnschedulable = "unschedulable"
	ResultGated         = "gated"
	ResultError         = "error"
	ResultSkipped       = "skipped"
)

// TieBreakSmallestName marks a bind among several top-scoring nodes.
const TieBreakSmallestName = "smallest-node-name"

// baseTime is the creation time manifests without one start from; the
// simulated clock starts an hour after the latest creation time.
var baseTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Run simulates the cluster and returns one Line per attempt (and per pod
// refused, skipped or gated), in order.
func Run(ctx context.Context, in Input, opts Options) ([]Line, error) {
	if opts.Registry == nil {
		return nil, errors.New("simulate: Options.Registry is required")
	}
	cfg := in.Config
	if cfg == nil {
		cfg = config.Default()
	}
	percentage := opts.PercentageOfNodesToScore
	if percentage == nil && cfg.PercentageOfNodesToScore == nil {
		percentage = ptr(int32(100))
	}
	retries := opts.MaxPreemptionRetries
	if retries == 0 {
		retries = 1
	}
	now := baseTime
	for _, p := range in.Pods {
		if p.CreationTime.After(now) {
			now = p.CreationTime
		}
	}
	r := &run{sink: &sink{}, now: now.Add(time.Hour)}
	s, err := scheduler.New(ctx, scheduler.Options{
		Config:                   cfg,
		Registry:                 opts.Registry,
		Decisions:                r.sink,
		Clock:                    fixedClock{r.now},
		Logger:                   opts.Logger,
		Deterministic:            true,
		PercentageOfNodesToScore: percentage,
		BindInline:               true,
		ScoreSingleNode:          true,
		NoResultMemo:             opts.NoResultMemo,
		NoIncrementalIndexes:     opts.NoIncrementalIndexes,
	})
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	r.s = s
	r.sink.remove = s.DeletePod
	pending, err := r.load(ctx, in)
	if err != nil {
		return nil, err
	}
	for _, pod := range r.order(pending) {
		if err := r.schedule(ctx, pod.UID, retries); err != nil {
			return r.lines, err
		}
	}
	return r.lines, nil
}

// ConfigError is returned by Run when no scheduler can be built from the
// configuration (an unknown plugin, invalid plugin args, ...).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "simulate: " + e.Err.Error() }

func (e *ConfigError) Unwrap() error { return e.Err }

// run is the state of one simulation.
type run struct {
	s     *scheduler.Scheduler
	sink  *sink
	now   time.Time // the simulated time of the last bind
	nodes []string  // every node (nodes do not change during a run)
	lines []Line
}

// load feeds the cluster to the scheduler and returns the pending pods it
// admitted, in input order. Pods refused at admission give "error" lines.
func (r *run) load(ctx context.Context, in Input) ([]*model.Pod, error) {
	for _, ns := range in.Namespaces {
		if err := r.s.SetNamespace(ctx, ns); err != nil {
			return nil, fmt.Errorf("simulate: namespace %s: %w", ns.Name, err)
		}
	}
	for _, pc := range in.PriorityClasses {
		if err := r.s.SetPriorityClass(ctx, pc); err != nil {
			return nil, fmt.Errorf("simulate: %w", err)
		}
	}
	for _, pdb := range in.PDBs {
		if err := r.s.SetPDB(ctx, pdb); err != nil {
			return nil, fmt.Errorf("simulate: %w", err)
		}
	}
	for _, n := range in.Nodes {
		if err := r.s.AddNode(ctx, n); err != nil {
			return nil, fmt.Errorf("simulate: node %s: %w", n.Name, err)
		}
		r.nodes = append(r.nodes, n.Name)
	}
	// Running pods first, so pending pods (and their nominations) meet a
	// populated cluster; a running pod refused at admission is left out.
	for _, p := range in.Pods {
		if p.NodeName != "" {
			_ = r.s.AddPod(ctx, p)
		}
	}
	var pending []*model.Pod
	for _, p := range in.Pods {
		if p.NodeName != "" {
			continue
		}
		if err := r.s.AddPod(ctx, p); err != nil {
			msg := err.Error()
			if unk := (*priority.UnknownClassError)(nil); errors.As(err, &unk) {
				msg = unk.Error()
			}
			r.lines = append(r.lines, Line{Pod: p.Key(), Result: ResultError, Message: msg})
			continue
		}
		admitted, _ := r.s.Pod(p.UID)
		pending = append(pending, admitted)
	}
	return pending, nil
}

// order sorts the pending pods as the queue would pop them: the first
// profile's QueueSort with the creation time as queue timestamp, stable.
func (r *run) order(pending []*model.Pod) []*model.Pod {
	less := r.s.QueueSortFunc()
	infos := make([]*framework.QueuedPodInfo, len(pending))
	for i, p := range pending {
		infos[i] = &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: p}, Timestamp: p.CreationTime}
	}
	slices.SortStableFunc(infos, func(a, b *framework.QueuedPodInfo) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	out := make([]*model.Pod, len(infos))
	for i, qpi := range infos {
		out[i] = qpi.Pod
	}
	return out
}

// schedule tries one pending pod and, after a nomination, retries it.
func (r *run) schedule(ctx context.Context, uid string, retries int) error {
	pod, ok := r.s.Pod(uid)
	if !ok || pod.NodeName != "" {
		return nil // gone (a preemption victim) or bound meanwhile
	}
	if _, ok := r.s.Profile(pod.SchedulerName); !ok {
		r.lines = append(r.lines, Line{Pod: pod.Key(), Result: ResultSkipped, Message: fmt.Sprintf("no profile for schedulerName %q", pod.SchedulerName)})
		return nil
	}
	if pod.Terminating {
		r.lines = append(r.lines, Line{Pod: pod.Key(), Result: ResultSkipped, Message: "pod is being deleted"})
		return nil
	}
	if ex, err := r.s.ExplainUID(uid); err == nil && ex.Queue.GatingPlugin != "" {
		plugin := ex.Queue.GatingPlugin
		r.lines = append(r.lines, Line{Pod: pod.Key(), Result: ResultGated, Plugin: plugin, Message: "pod was rejected by PreEnqueue plugin " + plugin})
		return nil
	}
	for round := 0; ; round++ {
		r.sink.reset()
		att, err := r.s.AttemptPod(ctx, uid)
		if err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
		victims, err := r.apply(ctx, att)
		if err != nil {
			return err
		}
		line := lineFor(att, victims, r.nodes)
		r.lines = append(r.lines, line)
		if line.Result != ResultNominated || round >= retries {
			return nil
		}
	}
}

// apply makes an attempt's outcome happen: a bind runs the pod on its node,
// preemption victims disappear. It returns the victims' keys, sorted.
func (r *run) apply(ctx context.Context, att *scheduler.Attempt) ([]string, error) {
	evicted, err := r.sink.takeEvicted()
	if err != nil {
		return nil, err
	}
	var victims []string
	for _, v := range evicted {
		victims = append(victims, v.Key())
	}
	slices.Sort(victims)
	if att.Result == scheduler.ResultScheduled && att.BindStatus.IsSuccess() {
		cur, ok := r.s.Pod(att.Pod.UID)
		if !ok {
			return victims, nil
		}
		bound := *cur
		r.now = r.now.Add(time.Second)
		bound.NodeName, bound.NominatedNodeName = att.Node, ""
		bound.StartTime, bound.Ready = r.now, true
		if err := r.s.UpdatePod(ctx, &bound); err != nil {
			return nil, fmt.Errorf("simulate: binding %s: %w", bound.Key(), err)
		}
	}
	return victims, nil
}

// sink records the decisions of one attempt. Binds are applied by run.
// A victim is deleted as soon as it is evicted, before the next one, as
// kubeoracle removes each victim at once when the executor deletes it
// (its removal reorders the node's pods, which matters to later
// preemptions there).
type sink struct {
	remove func(ctx context.Context, pod *model.Pod) error

	mu      sync.Mutex
	evicted []*model.Pod
	err     error
}

func (s *sink) reset() { _, _ = s.takeEvicted() }

// takeEvicted returns the pods evicted since the last call and the first
// error deleting one.
func (s *sink) takeEvicted() ([]*model.Pod, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, err := s.evicted, s.err
	s.evicted, s.err = nil, nil
	return out, err
}

func (s *sink) Bind(context.Context, *model.Pod, string) error { return nil }

func (s *sink) Evict(ctx context.Context, victim *model.Pod, _ string, _ *model.Pod, _ string) error {
	err := s.remove(ctx, victim)
	if errors.Is(err, scheduler.ErrNotFound) {
		err = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evicted = append(s.evicted, victim)
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("simulate: deleting victim %s: %w", victim.Key(), err)
	}
	return nil
}

func (s *sink) Nominate(context.Context, *model.Pod, string) error { return nil }

func (s *sink) ClearNomination(context.Context, *model.Pod, string) error { return nil }

// fixedClock is the scheduler's clock during a simulation: time stands
// still, so nothing backs off or times out.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

func ptr[T any](v T) *T { return &v }
