package preemption

import (
	"context"
	"slices"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// The dry-run memo. A dry run's outcome on a node (victims, budget
// violations, or the status that makes the node no candidate) is a
// function of: the node's pods (its NodeInfo version), the preemptor's
// filter verdicts (its signature, when every filter that runs for it is
// node-local: framework.Handle.LocalMemo), its priority (which pods are
// lower), the nominated pods the filters add, the disruption budgets and,
// only through pods that have not started, the time. Successive preemptors
// alike (replicas of one workload) dry-run the same unchanged nodes again
// and again in kube; here the outcome is kept on the node's memo entry
// with those inputs and reused while they are the same. A preemption
// changes one node, so the next preemptor recomputes that one only.

// dryRun is one remembered dry run.
type dryRun struct {
	priority  int32
	nominated []*framework.PodInfo
	budgets   *budgetSet
	// clocked: a lower-priority pod has not started, so the order of
	// importance compares the time with the other pods' start times;
	// latestStart is the latest of those, and the outcome holds at any time
	// after it. at is when the dry run ran.
	clocked     bool
	latestStart time.Time
	at          time.Time

	victims    []*model.Pod
	violations int
	status     *framework.Status
}

// holds reports whether the remembered dry run is what one now would give.
func (r *dryRun) holds(priority int32, nominated []*framework.PodInfo, budgets *budgetSet, now time.Time) bool {
	if r.priority != priority || r.budgets != budgets || !framework.SamePodInfos(r.nominated, nominated) {
		return false
	}
	return !r.clocked || (r.at.After(r.latestStart) && now.After(r.latestStart))
}

// budgetSet is the disruption budgets as one Preempt call read them;
// calls that read the same budgets share one, so remembered dry runs
// compare them by identity.
type budgetSet struct {
	list []framework.PDBStatus
}

// budgetsNow returns the current budgets, as the last call's set when
// they have not changed.
func (e *Evaluator) budgetsNow() *budgetSet {
	list := e.budgets()
	if last := e.lastBudgets.Load(); last != nil && sameBudgets(last.list, list) {
		return last
	}
	b := &budgetSet{list: list}
	e.lastBudgets.Store(b)
	return b
}

// sameBudgets compares budgets by object (replaced, never changed, when
// updated; the selector comes with it) and allowance.
func sameBudgets(a, b []framework.PDBStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].PDB != b[i].PDB || a[i].DisruptionsAllowed != b[i].DisruptionsAllowed {
			return false
		}
	}
	return true
}

// dryRunNode is SelectVictimsOnNode on a clone of ni and of state, with
// the outcome remembered on ni's memo entry when the handle keeps one for
// the pod, and taken from there when it holds.
func (e *Evaluator) dryRunNode(ctx context.Context, state *framework.CycleState, pod *model.Pod, ni *framework.NodeInfo, budgets *budgetSet) ([]*model.Pod, int, *framework.Status) {
	if !hasLowerPriority(ni, pod.Priority) {
		// Passed over before cloning: SelectVictimsOnNode's first test.
		return nil, 0, framework.NewStatus(framework.UnschedulableAndUnresolvable, MsgNoVictims)
	}
	now := e.h.Clock().Now()
	m := e.h.LocalMemo(state, ni)
	if m == nil {
		return e.selectVictims(ctx, state.Clone(), pod, ni.Clone(), budgets.list, now)
	}
	nominator := e.h.PodNominator()
	nominated := framework.NominatedPodsToAdd(nominator, pod, ni)
	if r, ok := m.Preemption.(*dryRun); ok && r.holds(pod.Priority, nominated, budgets, now) {
		return r.victims, r.violations, r.status
	}
	victims, violations, st := e.selectVictims(ctx, state.Clone(), pod, ni.Clone(), budgets.list, now)
	// Not remembered: errors, and outcomes computed while the node's
	// nominations changed.
	if st.Code() != framework.Error && framework.SamePodInfos(nominated, framework.NominatedPodsToAdd(nominator, pod, ni)) {
		r := &dryRun{priority: pod.Priority, nominated: slices.Clone(nominated), budgets: budgets, at: now,
			victims: victims, violations: violations, status: st}
		r.clocked, r.latestStart = startTimes(ni, pod.Priority)
		m.Preemption = r
	}
	return victims, violations, st
}

// startTimes reports whether a pod of ni below priority has not started,
// and the latest start time of those that have.
func startTimes(ni *framework.NodeInfo, priority int32) (unstarted bool, latest time.Time) {
	for _, pi := range ni.Pods {
		p := pi.Pod
		switch {
		case p.Priority >= priority:
		case p.StartTime.IsZero():
			unstarted = true
		case p.StartTime.After(latest):
			latest = p.StartTime
		}
	}
	return unstarted, latest
}
