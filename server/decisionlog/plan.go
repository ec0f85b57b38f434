package decisionlog

import (
	"context"
	"errors"
	"fmt"
	"slices"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/store"
)

var _ framework.Planner = (*Log)(nil)

// Submit makes a plan durable: each decision is encoded by its kind's
// encoder below into one store.Batch (the record appended, with the
// keyspace changes it implies), committed once, and the log's memory
// updated after the commit. A Bind nobody waits for any more
// (ErrBindAbandoned) and a second Evict of a pod (*AlreadyEvictedError)
// are refused and left out; an Unschedulable repeating the pod's last
// message and a deallocation overtaken by a new allocation of its claim
// are left out without a refusal. Any other failure fails the whole plan.
func (l *Log) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	if len(plan.Items) == 1 {
		if b, ok := plan.Items[0].(*framework.Bind); ok && len(b.Claims) == 0 && len(b.Volumes) == 0 {
			return l.bindOne(ctx, b)
		}
	}
	w := &planWriter{l: l, at: make([]int, len(plan.Items))}
	release, err := l.book.HoldClaims(ctx, planClaimKeys(plan))
	if err != nil {
		return framework.PlanResult{}, fmt.Errorf("decisionlog: %w", err)
	}
	defer release()
	res := framework.PlanResult{Revisions: make([]uint64, len(plan.Items)), Refused: make([]error, len(plan.Items))}
	for i, item := range plan.Items {
		w.at[i], w.cur = -1, i
		err := w.add(ctx, item)
		if isRefusal(err) {
			res.Refused[i] = err
			continue
		}
		if err != nil {
			w.finish(store.CommitResult{}, err)
			if plan.Group != "" {
				err = fmt.Errorf("decisionlog: binds of pod group %s: %w", plan.Group, err)
			}
			return framework.PlanResult{}, err
		}
	}
	if len(w.types) == 0 {
		return res, nil
	}
	start := l.opts.Clock()
	cr, err := l.store.Commit(ctx, &w.b)
	l.observeCommit(l.opts.Clock().Sub(start))
	if err != nil {
		err = fmt.Errorf("decisionlog: append %s: %w", w.describe(), err)
	}
	w.finish(cr, err)
	if err != nil {
		return framework.PlanResult{}, err
	}
	for i, at := range w.at {
		if at >= 0 {
			res.Revisions[i] = cr.Revision(at)
		}
	}
	return res, nil
}

// isRefusal tells the failures that refuse one decision of a plan from
// those that fail it all.
func isRefusal(err error) bool {
	return errors.Is(err, ErrBindAbandoned) || errors.Is(err, ErrAlreadyEvicted) ||
		errors.Is(err, ErrAlreadyAdmitted) || errors.Is(err, ErrNotAdmitted)
}

// planClaimKeys lists the claims a plan writes, so that their writes are
// serialized (podbook.Book.HoldClaims).
func planClaimKeys(plan framework.Plan) []string {
	var keys []string
	for _, item := range plan.Items {
		switch it := item.(type) {
		case *framework.Bind:
			keys = append(keys, claimKeys(it.Claims)...)
		case *framework.Deallocation:
			keys = append(keys, podbook.ClaimKey(it.Claim))
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// bindOne is Submit for the plan of one Bind without claims, the decision
// made per pod: one allocation holds its batch (pendingBind).
func (l *Log) bindOne(ctx context.Context, b *framework.Bind) (framework.PlanResult, error) {
	pb, err := l.startBind(ctx, b)
	if isRefusal(err) {
		return framework.PlanResult{Refused: []error{err}}, nil
	}
	if err != nil {
		return framework.PlanResult{}, err
	}
	cr, err := l.commitOne(ctx, &pb.batch, TypeBind)
	if err := l.finishBind(b.Pod, pb, cr, err); err != nil {
		return framework.PlanResult{}, err
	}
	return framework.PlanResult{Revisions: []uint64{cr.First}}, nil
}

// commitOne commits b and counts it as a decision of type typ.
func (l *Log) commitOne(ctx context.Context, b *store.Batch, typ string) (store.CommitResult, error) {
	start := l.opts.Clock()
	res, err := l.store.Commit(ctx, b)
	l.observeCommit(l.opts.Clock().Sub(start))
	if err != nil {
		return res, fmt.Errorf("decisionlog: append %s decision: %w", typ, err)
	}
	if l.opts.Metrics != nil {
		l.opts.Metrics.ObserveDecision(typ)
	}
	return res, nil
}

// planWriter encodes one plan into one store.Batch.
type planWriter struct {
	l *Log
	b store.Batch
	// at is, per plan item, the index of its record; -1 for none. cur
	// is the item being encoded.
	at  []int
	cur int
	// types and after are per record: its metric label, and the work
	// after the commit, given the record's revision (0 on failure) and
	// the commit's error.
	types []string
	after []func(rev uint64, err error)
	// noms holds the nominations the plan makes (node "" for a cleared
	// one), so a later ClearNomination names the node as if they were
	// committed; reported the Unschedulable messages.
	noms     map[string]string
	reported map[string]string
}

// record adds the current item's payload and the work after its commit.
func (w *planWriter) record(typ string, payload []byte, after func(rev uint64, err error)) {
	w.at[w.cur] = len(w.types)
	w.b.Append(payload)
	w.types = append(w.types, typ)
	w.after = append(w.after, after)
}

// describe names the plan's records in an error.
func (w *planWriter) describe() string {
	if len(w.types) == 1 {
		return w.types[0] + " decision"
	}
	return fmt.Sprintf("%d decisions (%s first)", len(w.types), w.types[0])
}

// finish runs the work after the commit (or after a failure that ends
// the plan before it) and counts the decisions.
func (w *planWriter) finish(cr store.CommitResult, err error) {
	l := w.l
	for i, after := range w.after {
		rev := uint64(0)
		if err == nil {
			rev = cr.Revision(i)
			if l.opts.Metrics != nil {
				l.opts.Metrics.ObserveDecision(w.types[i])
			}
		}
		after(rev, err)
	}
}

// add encodes one decision of the plan.
func (w *planWriter) add(ctx context.Context, item framework.PlanItem) error {
	switch it := item.(type) {
	case *framework.Bind:
		return w.bind(ctx, it)
	case *framework.Eviction:
		return w.evict(ctx, it)
	case *framework.Nomination:
		return w.nominate(ctx, it)
	case *framework.ClearNomination:
		return w.clearNomination(ctx, it)
	case *framework.UnschedulableReport:
		return w.unschedulable(ctx, it)
	case *framework.Deallocation:
		return w.deallocate(it)
	case *framework.Admission:
		return w.admit(ctx, it)
	case *framework.WorkloadEviction:
		return w.evictWorkload(ctx, it)
	}
	return fmt.Errorf("decisionlog: unknown decision %T", item)
}

// bind encodes a Bind (startBind: its book record, the end of its
// nomination, its claims' allocations).
func (w *planWriter) bind(ctx context.Context, b *framework.Bind) error {
	l := w.l
	pb, err := l.startBind(ctx, b)
	if err != nil {
		return err
	}
	w.record(TypeBind, pb.batch.Records[0], func(rev uint64, err error) {
		one := store.CommitResult{First: rev, Last: rev}
		if l.finishBind(b.Pod, pb, one, err) != nil || len(b.Claims) == 0 {
			return
		}
		allocated := l.book.ClaimsWritten(b.Claims)
		if m, ok := l.opts.Metrics.(DeviceMetrics); ok {
			m.ObserveClaimAllocations(allocated)
			m.SetAllocatedDevices(l.book.AllocatedDevices())
		}
	})
	w.b.Ops = append(w.b.Ops, pb.batch.Ops...)
	return nil
}

// evict encodes an Evict and records the eviction in the book (before
// the commit, so that a deletion of the pod racing with it removes the
// record; the book's check and record are one step, so of two Evicts
// racing for a pod one is refused). The book's record is its durable
// value, so that after a restart the victim is held as terminating until
// it is deleted.
func (w *planWriter) evict(ctx context.Context, e *framework.Eviction) error {
	l := w.l
	d := evictDecision(e)
	payload, err := encode(d)
	if err != nil {
		return err
	}
	victim := e.Victim
	if !l.book.OpenEviction(victim.UID, d.GetEvict()) {
		return &AlreadyEvictedError{Pod: victim.Key()}
	}
	if err := l.book.PrepareWrite(ctx, victim.UID, podbook.KindEvict.Space()); err != nil {
		l.book.AbortEviction(victim.UID)
		return err
	}
	cause := CauseOf(e.Cause)
	w.record(TypeEvict, payload, func(_ uint64, err error) {
		if err != nil {
			l.book.AbortEviction(victim.UID)
			return
		}
		if m, ok := l.opts.Metrics.(EvictionMetrics); ok {
			m.ObserveEviction(CauseLabel(cause))
		}
	})
	w.b.Put(podbook.KindEvict.Space(), []byte(victim.UID), payload)
	return nil
}

// nominate encodes a Nominate and puts it in store.Nominations.
func (w *planWriter) nominate(ctx context.Context, n *framework.Nomination) error {
	l := w.l
	payload, err := encode(nominateDecision(n.Pod, n.Node))
	if err != nil {
		return err
	}
	uid, node := n.Pod.UID, n.Node
	if err := l.book.PrepareWrite(ctx, uid, store.Assumed, store.Nominations); err != nil {
		return err
	}
	w.setNom(uid, node)
	w.record(TypeNominate, payload, func(rev uint64, err error) {
		if err == nil {
			l.book.Nominated(uid, node, rev)
		}
	})
	w.b.Put(store.Nominations, []byte(uid), payload)
	return nil
}

// clearNomination encodes a ClearNomination naming the node the pod was
// nominated to, and deletes its nomination.
func (w *planWriter) clearNomination(ctx context.Context, c *framework.ClearNomination) error {
	l := w.l
	uid := c.Pod.UID
	d := clearNominationDecision(c.Pod, c.Reason)
	if d.GetClearNomination().GetPreviousNode() == "" {
		node, planned := w.noms[uid]
		if !planned {
			node, _ = l.book.Nomination(uid)
		}
		d.GetClearNomination().PreviousNode = node
	}
	payload, err := encode(d)
	if err != nil {
		return err
	}
	if err := l.book.PrepareWrite(ctx, uid, store.Assumed, store.Nominations); err != nil {
		return err
	}
	w.setNom(uid, "")
	w.record(TypeClearNomination, payload, func(_ uint64, err error) {
		if err == nil {
			l.book.NominationCleared(uid)
		}
	})
	w.b.Delete(store.Nominations, []byte(uid))
	return nil
}

func (w *planWriter) setNom(uid, node string) {
	if w.noms == nil {
		w.noms = make(map[string]string)
	}
	w.noms[uid] = node
}

// unschedulable encodes an Unschedulable, unless the pod's last one
// (since it was last bound or deleted, across restarts) carries the same
// message: a scheduler reports each new message once, and after a
// restart its first report of a pod would repeat the last one made
// before. The message is kept in store.Unschedulable for that.
func (w *planWriter) unschedulable(ctx context.Context, u *framework.UnschedulableReport) error {
	l := w.l
	uid, message := u.Pod.UID, u.Message
	last, known := w.reported[uid]
	if !known {
		last, known = l.book.LastMessage(uid)
	}
	if known && last == message {
		return nil
	}
	payload, err := encode(unschedulableDecision(u.Pod, message, u.FitErr, l.opts.MaxNodeReasons))
	if err != nil {
		return err
	}
	if err := l.book.PrepareWrite(ctx, uid, store.Unschedulable); err != nil {
		return err
	}
	if w.reported == nil {
		w.reported = make(map[string]string)
	}
	w.reported[uid] = message
	w.record(TypeUnschedulable, payload, func(_ uint64, err error) {
		if err == nil {
			l.book.Reported(uid, message)
		}
	})
	w.b.Put(store.Unschedulable, []byte(uid), []byte(message))
	return nil
}

// deallocate encodes a DeallocateClaim and deletes the claim from
// store.Claims. A claim allocated anew since (a later Bind wrote another
// allocation of it) is skipped: that Bind already told the orchestrator.
// The plan holds the claim's writes (podbook.Book.HoldClaims).
func (w *planWriter) deallocate(d *framework.Deallocation) error {
	l := w.l
	if !l.book.ClaimCurrent(d.Claim) {
		return nil
	}
	payload, err := encode(deallocateDecision(d.Claim, d.Reason))
	if err != nil {
		return err
	}
	key := podbook.ClaimKey(d.Claim)
	w.record(TypeDeallocateClaim, payload, func(_ uint64, err error) {
		if err != nil {
			return
		}
		l.book.ClaimRemoved(key)
		if m, ok := l.opts.Metrics.(DeviceMetrics); ok {
			m.ObserveClaimDeallocations(1)
			m.SetAllocatedDevices(l.book.AllocatedDevices())
		}
	})
	w.b.Delete(store.Claims, []byte(key))
	return nil
}

// admit encodes an Admit and puts it in store.Admissions. The book
// records the admission before the commit, so that of two Admits of a
// workload one is refused (*AlreadyAdmittedError), across restarts too:
// the book restores its admissions.
func (w *planWriter) admit(ctx context.Context, a *framework.Admission) error {
	l := w.l
	d := admitDecision(a)
	payload, err := encode(d)
	if err != nil {
		return err
	}
	admit, key := d.GetAdmit(), podbook.AdmissionKey(a.Workload.Namespace, a.Workload.Name)
	if !l.book.OpenAdmission(admit) {
		return &WorkloadRefusal{Workload: key, Err: ErrAlreadyAdmitted}
	}
	if err := l.book.PrepareWrite(ctx, key, store.Admissions); err != nil {
		l.book.AdmissionWritten(admit, true)
		return err
	}
	w.record(TypeAdmit, payload, func(_ uint64, err error) {
		l.book.AdmissionWritten(admit, err != nil)
	})
	w.b.Put(store.Admissions, []byte(key), payload)
	return nil
}

// evictWorkload encodes a WorkloadEviction and deletes the workload's
// admission from store.Admissions; a workload not admitted durably is
// refused (*WorkloadRefusal wrapping ErrNotAdmitted). The Evicts of its
// pods are items of their own in the same plan.
func (w *planWriter) evictWorkload(ctx context.Context, e *framework.WorkloadEviction) error {
	l := w.l
	payload, err := encode(workloadEvictionDecision(e))
	if err != nil {
		return err
	}
	key := podbook.AdmissionKey(e.Workload.Namespace, e.Workload.Name)
	prev, ok := l.book.CloseAdmission(e.Workload.Namespace, e.Workload.Name)
	if !ok {
		return &WorkloadRefusal{Workload: key, Err: ErrNotAdmitted}
	}
	if err := l.book.PrepareWrite(ctx, key, store.Admissions); err != nil {
		l.book.ReopenAdmission(prev)
		return err
	}
	w.record(TypeEvictWorkload, payload, func(_ uint64, err error) {
		if err != nil {
			l.book.ReopenAdmission(prev)
		}
	})
	w.b.Delete(store.Admissions, []byte(key))
	return nil
}

// CauseOf is the wire cause of an eviction's cause.
func CauseOf(c framework.EvictCause) berthv1.EvictCause {
	switch c {
	case framework.EvictPreemption:
		return berthv1.EvictCause_EVICT_CAUSE_PREEMPTION
	case framework.EvictTaint:
		return berthv1.EvictCause_EVICT_CAUSE_TAINT
	case framework.EvictAPI:
		return berthv1.EvictCause_EVICT_CAUSE_API
	case framework.EvictNodePressure:
		return berthv1.EvictCause_EVICT_CAUSE_NODE_PRESSURE
	case framework.EvictDeschedule:
		return berthv1.EvictCause_EVICT_CAUSE_DESCHEDULE
	case framework.EvictDefragment:
		return berthv1.EvictCause_EVICT_CAUSE_DEFRAGMENT
	case framework.EvictQuota:
		return berthv1.EvictCause_EVICT_CAUSE_QUOTA
	}
	return berthv1.EvictCause_EVICT_CAUSE_UNSPECIFIED
}
