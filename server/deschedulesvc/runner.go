package deschedulesvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/deschedule"
	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/deschedule/simcheck"
	"github.com/berthsched/berth/core/disruption"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/core/simulate"
	"github.com/berthsched/berth/server/decisionlog"
)

// View is the live scheduler's read side; scheduler.View satisfies it.
type View interface {
	Pods() []*model.Pod
	Nodes() ([]scheduler.NodeUsage, error)
	PDBs() []*model.PodDisruptionBudget
	Namespaces() []*model.Namespace
	PriorityClasses() []*model.PriorityClass
	Budgets(pod *model.Pod) []disruption.Budget
	Pod(uid string) (*model.Pod, bool)
}

// Evictor writes an eviction; *eviction.Evictor satisfies it.
type Evictor interface {
	EvictAt(ctx context.Context, e framework.Eviction) (uint64, error)
}

// Metrics counts the pass's evictions; *metrics.Metrics satisfies it.
type Metrics interface {
	ObserveDescheduled(profile, strategy, result string)
}

// Options configure a Runner.
type Options struct {
	// Policy is the DeschedulerPolicy document. It is decoded at every
	// pass, so a priorityThreshold naming a PriorityClass sees the classes
	// held then.
	Policy   []byte
	Config   *config.Config // nil: config.Default()
	Registry runtime.Registry
	View     View
	Evictor  Evictor
	// Evicted tells whether a pod has an Evict awaiting its deletion.
	Evicted func(uid string) bool
	Metrics Metrics // nil: none
	Clock   func() time.Time
	Logger  *slog.Logger
}

// Runner runs the policy. It is safe for concurrent use.
type Runner struct {
	opts     Options
	interval time.Duration
	mu       sync.Mutex
	last     *berthv1.DeschedulePlan
}

// anyClass resolves every class name, for checking a policy before the
// classes are known.
type anyClass struct{}

func (anyClass) PriorityClassValue(string) (int32, bool) { return 0, true }

// classes are the classes held and the two Kubernetes builds in.
type classes []*model.PriorityClass

func (c classes) PriorityClassValue(name string) (int32, bool) {
	switch name {
	case "system-node-critical":
		return model.SystemCriticalPriority + 1000, true
	case "system-cluster-critical":
		return model.SystemCriticalPriority, true
	}
	return policy.ClassList(c).PriorityClassValue(name)
}

// CheckPolicy decodes a policy document as a Runner will, resolving no
// PriorityClass, for berthd to refuse a bad file at start.
func CheckPolicy(data []byte) (*policy.Policy, error) { return policy.Decode(data, anyClass{}) }

// New returns a Runner; Policy, Registry, View, Evictor and Evicted are
// required.
func New(opts Options) (*Runner, error) {
	if len(opts.Policy) == 0 || opts.Registry == nil || opts.View == nil || opts.Evictor == nil || opts.Evicted == nil {
		return nil, errors.New("deschedulesvc: Policy, Registry, View, Evictor and Evicted are required")
	}
	if opts.Config == nil {
		opts.Config = config.Default()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	pol, err := CheckPolicy(opts.Policy)
	if err != nil {
		return nil, err
	}
	return &Runner{opts: opts, interval: pol.Interval}, nil
}

// Last returns the last plan made, nil if none.
func (r *Runner) Last() *berthv1.DeschedulePlan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// Interval is the policy's deschedulingInterval (0: on demand only).
func (r *Runner) Interval() time.Duration { return r.interval }

// Loop runs a committing pass every interval until ctx ends.
func (r *Runner) Loop(ctx context.Context) {
	if r.interval <= 0 {
		return
	}
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := r.Run(ctx, false); err != nil && ctx.Err() == nil {
				r.opts.Logger.Warn("descheduling pass failed", "err", err)
			}
		}
	}
}

// Run makes one plan and, unless dryRun, evicts its moves.
func (r *Runner) Run(ctx context.Context, dryRun bool) (*berthv1.DeschedulePlan, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := r.opts.Clock()
	pol, err := policy.Decode(r.opts.Policy, classes(r.opts.View.PriorityClasses()))
	if err != nil {
		return nil, fmt.Errorf("descheduler policy: %w", err)
	}
	cluster, err := r.snapshot()
	if err != nil {
		return nil, err
	}
	res, err := deschedule.Run(pol, cluster, start)
	if err != nil {
		return nil, fmt.Errorf("descheduling: %w", err)
	}
	plan := &berthv1.DeschedulePlan{Time: timestamppb.New(start), DryRun: dryRun, PassSkipped: res.Skipped}
	profileOf := map[*model.Pod]string{}
	var evs []simcheck.Eviction
	for _, e := range res.Evictions {
		if e.Refused != "" {
			plan.Skipped = append(plan.Skipped, skip(e.Pod, e.Profile, e.Strategy, "refused by the eviction API: "+e.Refused, false))
			r.observe(e.Profile, e.Strategy, "refused")
			continue
		}
		profileOf[e.Pod] = e.Profile
		evs = append(evs, simcheck.Eviction{Pod: e.Pod, Strategy: e.Strategy})
	}
	for _, l := range res.LimitRefusals {
		plan.Skipped = append(plan.Skipped, &berthv1.DescheduleSkip{
			Pod: &berthv1.PodRef{Namespace: nsOf(l.Pod), Name: nameOf(l.Pod)}, From: l.Node, Profile: l.Profile, Strategy: l.Strategy,
			Reason: fmt.Sprintf("the pass's %s eviction limit is reached", l.Limit),
		})
		r.observe(l.Profile, l.Strategy, string(l.Limit)+" limit")
	}
	checked, err := simcheck.Check(ctx, simcheck.Input{
		Cluster: cluster, PriorityClasses: r.opts.View.PriorityClasses(),
		Sim: simulate.Options{Registry: r.opts.Registry, Logger: r.opts.Logger}, Config: simulate.Input{Config: r.opts.Config},
	}, evs)
	if err != nil {
		return nil, fmt.Errorf("descheduling: %w", err)
	}
	for _, s := range checked.Skipped {
		plan.Skipped = append(plan.Skipped, skip(s.Pod, profileOf[s.Pod], s.Strategy, s.Reason, s.LandsBack))
		r.observe(profileOf[s.Pod], s.Strategy, "skipped")
	}
	plan.PlanSeconds = r.opts.Clock().Sub(start).Seconds()
	for _, m := range checked.Moves {
		mv := &berthv1.DescheduleMove{
			Pod:  &berthv1.PodRef{Namespace: m.Pod.Namespace, Name: m.Pod.Name, Uid: m.Pod.UID},
			From: m.From, To: m.To, Profile: profileOf[m.Pod], Strategy: m.Strategy, Reason: m.Reason,
		}
		if dryRun {
			plan.Moves = append(plan.Moves, mv)
			continue
		}
		rev, why, err := r.evict(ctx, m, mv.Profile, pol.GracePeriodSeconds)
		if err != nil {
			return nil, err
		}
		if why != "" {
			plan.Skipped = append(plan.Skipped, skip(m.Pod, mv.Profile, m.Strategy, why, false))
			r.observe(mv.Profile, m.Strategy, "refused")
			continue
		}
		mv.Revision = rev
		plan.Moves = append(plan.Moves, mv)
		r.observe(mv.Profile, m.Strategy, "success")
	}
	r.last = plan
	return plan, nil
}

// evict applies the eviction API's budget rule to the pod as the
// scheduler holds it now and writes the Evict; why says why not.
func (r *Runner) evict(ctx context.Context, m simcheck.Move, profile string, grace *int64) (rev uint64, why string, err error) {
	pod, ok := r.opts.View.Pod(m.Pod.UID)
	if !ok {
		return 0, "the pod is gone", nil
	}
	if r.opts.Evicted(pod.UID) {
		return 0, "the pod is being evicted already", nil
	}
	budgets := r.opts.View.Budgets(pod)
	switch disruption.Check(pod, budgets) {
	case disruption.RefuseMultiple:
		return 0, "the pod is covered by more than one PodDisruptionBudget", nil
	case disruption.RefuseBudget:
		return 0, fmt.Sprintf("the disruption budget %s/%s allows no disruption now", budgets[0].PDB.Namespace, budgets[0].PDB.Name), nil
	}
	msg := fmt.Sprintf("Descheduled by %s/%s: %s", profile, m.Strategy, m.Reason)
	if m.To != "" {
		msg += " (Berth's scheduler re-places it on " + m.To + ")"
	}
	rev, err = r.opts.Evictor.EvictAt(ctx, framework.Eviction{Victim: pod, Node: pod.NodeName, Cause: framework.EvictDeschedule, Message: msg, GracePeriodSeconds: grace})
	if errors.Is(err, decisionlog.ErrAlreadyEvicted) {
		return 0, "the pod is being evicted already", nil
	}
	return rev, "", err
}

func (r *Runner) observe(profile, strategy, result string) {
	if r.opts.Metrics != nil {
		r.opts.Metrics.ObserveDescheduled(profile, strategy, result)
	}
}

// snapshot copies the live cluster: nodes, every pod, budgets and
// namespaces.
func (r *Runner) snapshot() (*deschedule.Cluster, error) {
	usage, err := r.opts.View.Nodes()
	if err != nil {
		return nil, fmt.Errorf("descheduling: listing nodes: %w", err)
	}
	c := &deschedule.Cluster{Pods: r.opts.View.Pods(), PDBs: r.opts.View.PDBs(), Namespaces: r.opts.View.Namespaces()}
	for _, u := range usage {
		c.Nodes = append(c.Nodes, u.Node)
	}
	return c, nil
}

func skip(p *model.Pod, profile, strategy, reason string, back bool) *berthv1.DescheduleSkip {
	return &berthv1.DescheduleSkip{
		Pod: &berthv1.PodRef{Namespace: p.Namespace, Name: p.Name, Uid: p.UID}, From: p.NodeName,
		Profile: profile, Strategy: strategy, Reason: reason, LandsBack: back,
	}
}

func nsOf(key string) string {
	ns, _, _ := strings.Cut(key, "/")
	return ns
}

func nameOf(key string) string {
	_, name, _ := strings.Cut(key, "/")
	return name
}
