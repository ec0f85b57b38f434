package fullloop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/gang"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
)

// Input is the cluster to run.
type Input struct {
	Nodes []*model.Node
	// Pods with NodeName run there; the others are pending.
	Pods            []*model.Pod
	PriorityClasses []*model.PriorityClass
	PodGroups       []*model.PodGroup
	// CompositePodGroups are sent before the PodGroups; without the
	// CompositePodGroup gate they are left out, as kube 1.37's API server
	// does not serve the kind (their PodGroups are then gangs of their own).
	CompositePodGroups []*model.CompositePodGroup
	Namespaces         []*model.Namespace
	PDBs               []*model.PodDisruptionBudget
	// Config is the scheduler configuration (its FeatureGates decide
	// whether groups are gangs); nil means config.Default().
	Config *config.Config
}

// Options tune a run.
type Options struct {
	// Registry holds the plugin factories the configuration names.
	// Required.
	Registry runtime.Registry
	// MaxCycles bounds the scheduling cycles; 0 means ten per pod, as a
	// loop that stops making progress must still end.
	MaxCycles int
	Logger    *slog.Logger
}

// Results of a PodLine, beside core/simulate's bound, unschedulable and
// gated.
const (
	ResultBound         = "bound"
	ResultUnschedulable = "unschedulable"
	ResultGated         = "gated"
	// ResultEvicted: the run evicted the pod (preemption) and, as an
	// orchestrator does, deleted it.
	ResultEvicted = "evicted"
)

// Results of a GroupLine.
const (
	// GroupBound: at least MinCount members are bound.
	GroupBound = "bound"
	// GroupWaiting: fewer than MinCount members are bound.
	GroupWaiting = "waiting"
)

// PodLine is where one pod ended. It marshals as core/simulate's trace
// lines do (pod, result, node, message), without the per-attempt fields a
// loop of many attempts has no single value for.
type PodLine struct {
	Pod    string `json:"pod"`
	Result string `json:"result"`
	Node   string `json:"node,omitempty"`
	// Group is the pod's PodGroup (namespace/name), if any.
	Group string `json:"group,omitempty"`
	// Message is why a pod is not bound (its last attempt, or the gate
	// holding it), or, evicted, why it was.
	Message string `json:"message,omitempty"`
}

// GroupLine is where one pod group ended.
type GroupLine struct {
	Group  string `json:"group"`
	Result string `json:"result"`
	// MinCount is the group's; 0 for a group its pods name but that was
	// never sent.
	MinCount int32 `json:"minCount"`
	// Members are the group's pods held at the end (pending or bound);
	// Bound those bound.
	Members int `json:"members"`
	Bound   int `json:"bound"`
	// Message is why a waiting group waits: the gate's reason (the group
	// or members missing) or its members' last group cycle.
	Message string `json:"message,omitempty"`
}

// Result is a run's outcome.
type Result struct {
	// Pods are the pods that were pending, and those the run evicted, by
	// namespace/name.
	Pods []PodLine
	// Groups are the pod groups, by namespace/name.
	Groups []GroupLine
	// Cycles is how many scheduling cycles ran; Stalled says the run
	// stopped at Options.MaxCycles with pods still in the active queue or
	// backoff.
	Cycles  int
	Stalled bool
}

// Run runs in to quiescence: until no pod is in the active queue or
// backoff (the unschedulable and gated ones wait for events no run
// brings), or MaxCycles cycles.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if opts.Registry == nil {
		return nil, fmt.Errorf("fullloop: Options.Registry is required")
	}
	cfg := in.Config
	if cfg == nil {
		cfg = config.Default()
	}
	o := &orchestrator{}
	s, err := scheduler.New(ctx, scheduler.Options{
		Config: cfg, Registry: opts.Registry, Decisions: o, Deterministic: true,
		Replay: scheduler.Replay{BindInline: true}, Logger: opts.Logger,
	})
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	if err := load(ctx, s, in); err != nil {
		return nil, err
	}
	res := &Result{}
	limit := opts.MaxCycles
	if limit <= 0 {
		limit = 10 * max(1, len(in.Pods))
	}
	evicted := map[string]*framework.Eviction{} // by pod key
	for {
		if st := s.View().Stats().Queue; st.Active+st.Backoff == 0 {
			break
		}
		if res.Cycles == limit {
			res.Stalled = true
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := s.ScheduleOne(ctx); err != nil {
			return nil, fmt.Errorf("fullloop: cycle %d: %w", res.Cycles+1, err)
		}
		res.Cycles++
		// The orchestrator's side, at once: every bind confirmed (the pod
		// sent again with its node), every victim deleted.
		binds, victims := o.take()
		for _, b := range binds {
			if err := s.AddPod(ctx, b); err != nil {
				return nil, fmt.Errorf("fullloop: confirming the bind of %s: %w", b.Key(), err)
			}
		}
		for _, v := range victims {
			evicted[v.Victim.Key()] = v
			if err := s.DeletePod(ctx, v.Victim); err != nil {
				return nil, fmt.Errorf("fullloop: deleting the victim %s: %w", v.Victim.Key(), err)
			}
		}
	}
	res.Pods, res.Groups = outcome(s.View(), in, evicted)
	return res, nil
}

// ConfigError is returned when no scheduler can be built from the
// configuration.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "fullloop: " + e.Err.Error() }

func (e *ConfigError) Unwrap() error { return e.Err }

// load sends the cluster as an orchestrator would: classes, namespaces,
// budgets and nodes, then groups, then pods.
func load(ctx context.Context, s *scheduler.Scheduler, in Input) error {
	var objs []any
	for _, pc := range in.PriorityClasses {
		objs = append(objs, pc)
	}
	for _, ns := range in.Namespaces {
		objs = append(objs, ns)
	}
	for _, b := range in.PDBs {
		objs = append(objs, b)
	}
	for _, n := range in.Nodes {
		objs = append(objs, n)
	}
	for _, cg := range in.CompositePodGroups {
		objs = append(objs, cg)
	}
	for _, g := range in.PodGroups {
		objs = append(objs, g)
	}
	for _, o := range objs {
		if err := s.Upsert(ctx, o); err != nil {
			if _, composite := o.(*model.CompositePodGroup); composite && errors.Is(err, gang.ErrCompositeDisabled) {
				continue
			}
			return fmt.Errorf("fullloop: loading %T: %w", o, err)
		}
	}
	for _, p := range in.Pods {
		if err := s.AddPod(ctx, p); err != nil {
			return fmt.Errorf("fullloop: loading pod %s: %w", p.Key(), err)
		}
	}
	return nil
}

// outcome reads where every pending or evicted pod and every group
// ended.
func outcome(v scheduler.View, in Input, evicted map[string]*framework.Eviction) ([]PodLine, []GroupLine) {
	var pods []PodLine
	type groupAcc struct {
		bound   int
		members []*model.Pod // pending at the end, in queue order
		gated   string
		held    int
	}
	groups := map[string]*groupAcc{}
	acc := func(key string) *groupAcc {
		if groups[key] == nil {
			groups[key] = &groupAcc{}
		}
		return groups[key]
	}
	messages := map[string]string{} // pod uid -> why it waits
	for _, p := range in.Pods {
		key := p.Key()
		line := PodLine{Pod: key, Group: p.GroupKey()}
		if ev, ok := evicted[key]; ok {
			line.Result, line.Node, line.Message = ResultEvicted, ev.Node, ev.Message
			pods = append(pods, line)
			continue
		}
		ex, err := v.Explain(p.Namespace, p.Name)
		if err != nil {
			continue // not held: refused when loaded
		}
		g := (*groupAcc)(nil)
		if line.Group != "" {
			g = acc(line.Group)
			g.held++
		}
		switch {
		case ex.Phase == scheduler.PhaseBound || ex.Phase == scheduler.PhaseBinding:
			if g != nil {
				g.bound++
			}
			if p.NodeName != "" {
				continue // running as sent: not the run's
			}
			line.Result, line.Node = ResultBound, ex.Node
		case ex.Queue.GatingPlugin != "":
			line.Result, line.Message = ResultGated, ex.Queue.GatingMessage
			if g != nil && g.gated == "" {
				g.gated = ex.Queue.GatingMessage
			}
		default:
			line.Result = ResultUnschedulable
			if ex.Diagnosis != nil {
				line.Message = ex.Diagnosis.Message
			}
		}
		if g != nil && line.Result != ResultBound {
			g.members = append(g.members, ex.Pod)
			messages[ex.Pod.UID] = line.Message
		}
		pods = append(pods, line)
	}
	slices.SortStableFunc(pods, func(a, b PodLine) int { return cmp.Compare(a.Pod, b.Pod) })

	var lines []GroupLine
	sent := map[string]bool{}
	for _, grp := range in.PodGroups {
		sent[grp.Key()] = true
	}
	for key, a := range groups {
		if !sent[key] {
			// Named by pods but never sent: its members wait at the gate.
			lines = append(lines, GroupLine{Group: key, Members: a.held, Bound: a.bound, Result: GroupWaiting, Message: a.gated})
		}
	}
	for _, grp := range in.PodGroups {
		key := grp.Key()
		a := acc(key)
		gl := GroupLine{Group: key, MinCount: grp.MinCount, Members: a.held, Bound: a.bound, Result: GroupWaiting}
		if a.bound >= int(grp.MinCount) {
			gl.Result = GroupBound
		}
		if gl.Result == GroupWaiting {
			switch {
			case a.gated != "":
				gl.Message = a.gated
			case len(a.members) > 0:
				gang.Order(a.members)
				gl.Message = messages[a.members[0].UID]
			default:
				gl.Message = fmt.Sprintf("waiting for pod group %s: 0 of its min_count %d pods exist", key, grp.MinCount)
			}
		}
		lines = append(lines, gl)
	}
	slices.SortStableFunc(lines, func(a, b GroupLine) int { return cmp.Compare(a.Group, b.Group) })
	return pods, lines
}

// orchestrator is the decision seam: it keeps the binds and evictions of
// each cycle for Run to confirm and delete.
type orchestrator struct {
	binds   []*model.Pod
	victims []*framework.Eviction
}

var _ framework.Planner = (*orchestrator)(nil)

// Submit keeps each Bind (the pod with its node) and Eviction of the plan.
func (o *orchestrator) Submit(_ context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		switch it := item.(type) {
		case *framework.Bind:
			b := *it.Pod
			b.NodeName = it.Node
			o.binds = append(o.binds, &b)
		case *framework.Eviction:
			o.victims = append(o.victims, it)
		}
	}
	return framework.PlanResult{}, nil
}

func (o *orchestrator) take() ([]*model.Pod, []*framework.Eviction) {
	b, v := o.binds, o.victims
	o.binds, o.victims = nil, nil
	return b, v
}
