package preemption

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// SelectVictimsOnNode finds the fewest, least important pods of ni to evict
// so that pod passes the filters there. state and ni must be clones: both
// are changed. It returns the victims (most important first), how many of
// them exceed a disruption budget, and Success; or the status that makes
// ni no candidate (UnschedulableAndUnresolvable MsgNoVictims when it has
// no lower-priority pod, the filters' status when the pod does not fit
// even without them).
func (e *Evaluator) SelectVictimsOnNode(ctx context.Context, state *framework.CycleState, pod *model.Pod, ni *framework.NodeInfo, pdbs []framework.PDBStatus) ([]*model.Pod, int, *framework.Status) {
	return e.selectVictims(ctx, state, pod, ni, pdbs, e.h.Clock().Now())
}

// selectVictims is SelectVictimsOnNode at the time now (pods not started
// count as starting then).
func (e *Evaluator) selectVictims(ctx context.Context, state *framework.CycleState, pod *model.Pod, ni *framework.NodeInfo, pdbs []framework.PDBStatus, now time.Time) ([]*model.Pod, int, *framework.Status) {
	remove := func(pi *framework.PodInfo) error {
		if err := ni.RemovePod(pi.Pod); err != nil {
			return err
		}
		return e.h.RunPreFilterExtensionRemovePod(ctx, state, pod, pi, ni).AsError()
	}
	add := func(pi *framework.PodInfo) error {
		ni.AddPodInfo(pi)
		return e.h.RunPreFilterExtensionAddPod(ctx, state, pod, pi, ni).AsError()
	}

	var potential []*framework.PodInfo
	for _, pi := range ni.Pods {
		if pi.Pod.Priority < pod.Priority {
			potential = append(potential, pi)
		}
	}
	if len(potential) == 0 {
		return nil, 0, framework.NewStatus(framework.UnschedulableAndUnresolvable, MsgNoVictims)
	}
	for _, pi := range potential {
		if err := remove(pi); err != nil {
			return nil, 0, framework.AsStatus(fmt.Errorf("removing %s from node %s: %w", pi.Pod.Key(), ni.Name(), err))
		}
	}
	if st := e.h.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni); !st.IsSuccess() {
		return nil, 0, st
	}

	// sort.Slice, not a stable sort: equally important pods (same priority
	// and start time) end up in the order kube's sort.Slice leaves them in
	// from the node's pod order, which decides which of them are reprieved.
	byImportance := func(pis []*framework.PodInfo) func(i, j int) bool {
		return func(i, j int) bool { return compareImportance(pis[i].Pod, pis[j].Pod, now) < 0 }
	}
	sort.Slice(potential, byImportance(potential))
	violating, others := splitByBudget(potential, pdbs)

	var victims []*framework.PodInfo
	// reprieve adds pi back and keeps it if the pod still fits.
	reprieve := func(pi *framework.PodInfo) (bool, error) {
		if err := add(pi); err != nil {
			return false, err
		}
		if e.h.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni).IsSuccess() {
			return true, nil
		}
		victims = append(victims, pi)
		return false, remove(pi)
	}
	numViolating := 0
	for g, group := range [][]*framework.PodInfo{violating, others} {
		for _, pi := range group {
			kept, err := reprieve(pi)
			if err != nil {
				return nil, 0, framework.AsStatus(fmt.Errorf("reprieving %s on node %s: %w", pi.Pod.Key(), ni.Name(), err))
			}
			if !kept && g == 0 {
				numViolating++
			}
		}
	}
	if len(violating) > 0 && len(others) > 0 {
		sort.Slice(victims, byImportance(victims))
	}
	out := make([]*model.Pod, len(victims))
	for i, pi := range victims {
		out[i] = pi.Pod
	}
	return out, numViolating, nil
}

// compareImportance orders pods from the most important: higher priority
// first, then the one that started earlier (a pod not started yet counts
// as starting now), as kube's MoreImportantPod.
func compareImportance(a, b *model.Pod, now time.Time) int {
	if a.Priority != b.Priority {
		if a.Priority > b.Priority {
			return -1
		}
		return 1
	}
	return startTime(a, now).Compare(startTime(b, now))
}

func startTime(p *model.Pod, now time.Time) time.Time {
	if p.StartTime.IsZero() {
		return now
	}
	return p.StartTime
}

// splitByBudget splits pods, keeping their order, into those whose
// eviction would exceed a disruption budget, counting down each budget's
// allowance pod by pod, and the others. A budget applies to the pods of its
// namespace its selector matches; an empty or missing selector matches
// none, and so does a pod without labels.
func splitByBudget(pods []*framework.PodInfo, pdbs []framework.PDBStatus) (violating, others []*framework.PodInfo) {
	allowed := make([]int32, len(pdbs))
	for i := range pdbs {
		allowed[i] = pdbs[i].DisruptionsAllowed
	}
	for _, pi := range pods {
		if budgetExceeded(pi.Pod, pdbs, allowed) {
			violating = append(violating, pi)
		} else {
			others = append(others, pi)
		}
	}
	return violating, others
}

// budgetExceeded takes pod's eviction off the allowance of every budget
// covering it and reports whether one went below zero. A budget listing the
// pod among its disrupted pods has counted its eviction already and is not
// charged again. (kube's pod-group preemption stops charging at the first
// budget exceeded; its single-pod preemption, this one, charges them all.)
func budgetExceeded(pod *model.Pod, pdbs []framework.PDBStatus, allowed []int32) bool {
	if len(pod.Labels) == 0 {
		return false
	}
	exceeded := false
	for i := range pdbs {
		b := &pdbs[i]
		if b.PDB.Namespace != pod.Namespace || b.Selector.IsEverything() || !b.Selector.Matches(pod.Labels) {
			continue
		}
		if _, disrupted := b.PDB.DisruptedPods[pod.Name]; disrupted {
			continue
		}
		allowed[i]--
		if allowed[i] < 0 {
			exceeded = true
		}
	}
	return exceeded
}
