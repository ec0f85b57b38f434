package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// planner is the framework.Planner plugins get (Handle.Decisions) and the
// scheduler's own decisions go through: it applies each decision to the
// scheduler's view of the pods, as kube's API calls would come back
// through its informer (an evicted pod is terminating by preemption, a
// nominated one carries its node, a bound pod's claims are committed),
// and hands the decisions to Options.Decisions: at once, or, with
// Options.GroupDecisions, those of a failed attempt gathered into the
// attempt's plan (attemptPlan) and submitted when it ends. It counts
// evictions, so an attempt knows how many victims its preemption evicted.
type planner struct {
	next      framework.Planner
	s         *Scheduler
	evictions atomic.Int64
}

var _ framework.Planner = (*planner)(nil)

// Submit applies plan: its Binds are handed on together (one plan, the
// claims of each pod as they will be committed), the other decisions one
// at a time in order. The result names the refusals; the revisions are
// those of the Binds and of decisions handed on at once.
func (p *planner) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	if len(plan.Items) == 1 {
		if b, ok := plan.Items[0].(*framework.Bind); ok {
			return p.bind(ctx, plan, []*framework.Bind{b})
		}
	}
	res := framework.PlanResult{Revisions: make([]uint64, len(plan.Items)), Refused: make([]error, len(plan.Items))}
	var binds []*framework.Bind
	var bindAt []int
	var errs []error
	for i, item := range plan.Items {
		var err error
		switch it := item.(type) {
		case *framework.Bind:
			binds, bindAt = append(binds, it), append(bindAt, i)
			continue
		case *framework.Eviction:
			err = p.s.evict(ctx, it)
		case *framework.Nomination:
			err = p.s.nominate(ctx, it)
		case *framework.ClearNomination:
			err = p.s.clearNomination(ctx, it)
		case *framework.Deallocation:
			err = p.s.deallocate(ctx, []*resourceapi.ResourceClaim{it.Claim}, it.Reason, true)
		case *framework.UnschedulableReport:
			err = p.s.report(ctx, it)
		default:
			err = fmt.Errorf("scheduler: unknown decision %T", item)
		}
		res.Refused[i] = err
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(binds) > 0 {
		items := make([]framework.PlanItem, len(binds))
		for i, b := range binds {
			items[i] = b
		}
		br, err := p.bind(ctx, framework.Plan{Items: items, Group: plan.Group}, binds)
		if err != nil {
			return res, err
		}
		for i, at := range bindAt {
			res.Revisions[at], res.Refused[at] = br.Revision(i), br.Err(i)
		}
	}
	if len(plan.Items) == 1 && len(errs) == 1 {
		return res, errs[0] // a single decision's failure is the plan's
	}
	return res, nil
}

// bind hands binds (the items of plan) on. A pod whose claims have
// allocations in flight (put there by DynamicResources' Reserve) carries
// its claims as they will be committed; once the bind is durable, the
// allocations are committed (dra.Tracker.Commit) and the claims' update
// events raised.
func (p *planner) bind(ctx context.Context, plan framework.Plan, binds []*framework.Bind) (framework.PlanResult, error) {
	for _, b := range binds {
		b.Awaiter = p.s
		if len(b.Pod.ResourceClaims) > 0 {
			b.Claims = p.s.devices.BindClaims(b.Pod)
		}
		if len(b.Pod.Volumes) > 0 {
			b.Volumes = p.s.bindVolumes(b.Pod)
		}
	}
	res, err := p.next.Submit(ctx, plan)
	if err != nil {
		return res, err
	}
	for i, b := range binds {
		if len(b.Pod.ResourceClaims) > 0 && res.Err(i) == nil {
			p.s.claimEvents(ctx, p.s.devices.Commit(b.Pod))
		}
	}
	return res, nil
}

// attemptPlan is one failed attempt's plan (Options.GroupDecisions),
// carried by the cycle's context: the decisions made with that context
// are gathered and submitted when the cycle ends (submitAttempt), before
// the next one starts, so their order and revisions are those of separate
// submissions. Binding cycles run with the caller's context and submit
// their own.
type attemptPlan struct {
	plan framework.Plan
	// victims were marked evicted by a gathered Evict, by plan index: if
	// the plan fails, or refuses their Evict, they are unmarked.
	victims map[int]*model.Pod
}

type attemptPlanKey struct{}

// withAttemptPlan returns ctx carrying a new attempt plan, or ctx itself
// without Options.GroupDecisions.
func (s *Scheduler) withAttemptPlan(ctx context.Context) (context.Context, *attemptPlan) {
	if !s.opts.GroupDecisions {
		return ctx, nil
	}
	ap := &attemptPlan{}
	return context.WithValue(ctx, attemptPlanKey{}, ap), ap
}

// attemptPlanOf is the plan gathering ctx's decisions, nil when they are
// submitted one by one.
func attemptPlanOf(ctx context.Context) *attemptPlan {
	ap, _ := ctx.Value(attemptPlanKey{}).(*attemptPlan)
	return ap
}

// submitAttempt submits what the attempt gathered. If that fails, nothing
// of it is durable: the victims go back to running (their Evicts failed),
// and the nomination and report stay as a failed Nominate or report
// leaves them; a victim whose Evict alone was refused goes back too.
func (s *Scheduler) submitAttempt(ctx context.Context, ap *attemptPlan) {
	if ap == nil || ap.plan.Len() == 0 {
		return
	}
	plan, victims := ap.plan, ap.victims
	ap.plan, ap.victims = framework.Plan{}, nil
	res, err := s.opts.Decisions.Submit(ctx, plan)
	if err != nil {
		s.logger.Error("writing an attempt's decisions failed", "victims", len(victims), "err", err)
	}
	for i, v := range victims {
		if err != nil || res.Err(i) != nil {
			if err == nil {
				s.logger.Error("an eviction of the attempt was refused", "victim", v.Key(), "err", res.Err(i))
			}
			s.unmarkEvicted(ctx, v)
		}
	}
	for i, item := range plan.Items {
		if _, ok := item.(*framework.Eviction); !ok && err == nil && res.Err(i) != nil {
			s.logger.Error("a decision of the attempt was refused", "err", res.Err(i))
		}
	}
}

// hand submits one decision at once, or adds it to ctx's attempt plan,
// returning its index there (-1 when submitted).
func (s *Scheduler) hand(ctx context.Context, item framework.PlanItem) (int, error) {
	if ap := attemptPlanOf(ctx); ap != nil {
		ap.plan.Add(item)
		return ap.plan.Len() - 1, nil
	}
	_, err := framework.SubmitOne(ctx, s.opts.Decisions, item)
	return -1, err
}

// evict evicts a victim (of a preemption, or of the rest of its group),
// marks it evicted, and evicts the rest of its group after it.
func (s *Scheduler) evict(ctx context.Context, e *framework.Eviction) error {
	if cur, ok := s.state.lookup(e.Victim.UID); ok && cur.TerminatingByPreemption() {
		return nil // evicted already, with the rest of its group
	}
	at, err := s.hand(ctx, e)
	if err != nil {
		return err
	}
	if at >= 0 {
		ap := attemptPlanOf(ctx)
		if ap.victims == nil {
			ap.victims = make(map[int]*model.Pod)
		}
		ap.victims[at] = e.Victim
	}
	s.decisions.evictions.Add(1)
	s.markEvicted(ctx, e.Victim.UID, true)
	s.evictRestOfGroup(ctx, e.Victim, e.Preemptor, e.Message) // gangpreempt.go
	return nil
}

// nominate records a nomination in the scheduler's view and hands it on.
func (s *Scheduler) nominate(ctx context.Context, n *framework.Nomination) error {
	_, err := s.hand(ctx, n)
	s.setNominatedNodeName(ctx, n.Pod.UID, n.Node)
	return err
}

// clearNomination ends a nomination in the scheduler's view and hands
// the ClearNomination on.
func (s *Scheduler) clearNomination(ctx context.Context, c *framework.ClearNomination) error {
	_, err := s.hand(ctx, c)
	s.setNominatedNodeName(ctx, c.Pod.UID, "")
	return err
}

// report hands an Unschedulable report on.
func (s *Scheduler) report(ctx context.Context, r *framework.UnschedulableReport) error {
	_, err := s.hand(ctx, r)
	return err
}

// deallocate hands on claims the scheduler deallocated (the
// DynamicResources PostFilter's, already applied to the tracker, or those
// whose last consumer is gone), at once and in one plan; with events it
// first raises their update events so the pods waiting for devices are
// tried again (the PostFilter's: the scheduler raises its own).
func (s *Scheduler) deallocate(ctx context.Context, claims []*resourceapi.ResourceClaim, reason string, events bool) error {
	changes := make([]dra.ClaimChange, len(claims))
	plan := framework.Plan{Items: make([]framework.PlanItem, len(claims))}
	for i, c := range claims {
		changes[i] = dra.ClaimChange{Old: c, New: unallocated(c)}
		plan.Items[i] = &framework.Deallocation{Claim: c, Reason: reason}
	}
	if events {
		s.claimEvents(ctx, changes)
	}
	res, err := s.opts.Decisions.Submit(ctx, plan)
	if err != nil {
		return err
	}
	var errs []error
	for i := range claims {
		errs = append(errs, res.Err(i))
	}
	return errors.Join(errs...)
}

// unmarkEvicted undoes markEvicted for a preemption victim whose Evict
// never became durable. victim is the pod as it was evicted: not
// terminating (the executor skips those).
func (s *Scheduler) unmarkEvicted(ctx context.Context, victim *model.Pod) {
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	cur, ok := s.state.unmarkEvicted(victim.UID)
	if !ok || !cur.Terminating {
		return
	}
	restore := func(p *model.Pod) *model.Pod {
		cp := *p
		cp.Terminating, cp.Preempted = victim.Terminating, victim.Preempted
		return &cp
	}
	s.state.store(restore(cur))
	s.updateCached(ctx, cur.UID, restore)
}
