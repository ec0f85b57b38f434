package preemption

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// kube's messages.
const (
	// MsgNoVictims is a node's dry-run status when it has no lower-priority
	// pod.
	MsgNoVictims = "No preemption victims found for incoming pod"
	// MsgNotHelpful is the status of the nodes not dry-run (their filter
	// status was UnschedulableAndUnresolvable).
	MsgNotHelpful = "Preemption is not helpful for scheduling"
	// MsgPolicyNever is returned for a pod with preemptionPolicy Never.
	MsgPolicyNever = "not eligible due to preemptionPolicy=Never."
	// MsgTerminatingVictim is returned for a pod whose nominated node still
	// has a lower-priority pod terminating by preemption.
	MsgTerminatingVictim = "not eligible due to a terminating pod on the nominated node."
	// MsgNoCandidate is returned when candidates exist but none could be
	// chosen (should not happen).
	MsgNoCandidate = "no candidate node for preemption"
)

// Options configure an Evaluator.
type Options struct {
	// PluginName names the plugin in Permit rejections of waiting victims.
	PluginName string
	// MinCandidateNodesPercentage and MinCandidateNodesAbsolute bound the
	// number of candidates the dry run looks for:
	// min(max(numNodes*percentage/100, absolute), numNodes).
	MinCandidateNodesPercentage int32
	MinCandidateNodesAbsolute   int32
	// Deterministic starts the dry run at the first node and breaks final
	// ties by the smallest node name.
	Deterministic bool
	// Offset picks where the dry run starts among n > 0 nodes when not
	// Deterministic; nil means uniformly at random.
	Offset func(n int) int
}

// Evaluator runs preemption for one framework. Between calls it keeps only
// the last budgets it read (the dry runs themselves are remembered on the
// nodes' memo entries, memo.go); it is safe for concurrent use.
type Evaluator struct {
	h           framework.Handle
	opts        Options
	lastBudgets atomic.Pointer[budgetSet] // see budgetsNow
}

// New returns an Evaluator over h.
func New(h framework.Handle, opts Options) *Evaluator {
	if opts.Offset == nil {
		opts.Offset = randomOffset
	}
	return &Evaluator{h: h, opts: opts}
}

// Candidate is a node where evicting Victims lets the pod fit.
type Candidate struct {
	Node string
	// Victims are ordered from the most to the least important.
	Victims []*model.Pod
	// NumPDBViolations counts victims whose eviction exceeds a budget.
	NumPDBViolations int
}

// Preempt tries to make room for pod, which no node fit (m holds the
// nodes' filter statuses). It returns, as kube's Evaluator.Preempt:
//   - a result naming the node and Success: victims were evicted, the pod
//     is to be nominated there; the message names the node and the number
//     of victims (kube 1.37);
//   - a result with no node and Unschedulable: preemption cannot help, the
//     pod's nomination is to be cleared; the message is a fit error over
//     the dry-run statuses;
//   - no result and Unschedulable: the pod is not eligible, its nomination
//     stays;
//   - no result and Error: something failed.
func (e *Evaluator) Preempt(ctx context.Context, state *framework.CycleState, pod *model.Pod, m *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	if ok, msg := e.eligible(pod, m); !ok {
		return nil, framework.NewStatus(framework.Unschedulable, msg)
	}
	lister := e.h.SnapshotSharedLister()
	all := lister.List()
	if len(all) == 0 {
		return nil, framework.AsStatus(errors.New("no nodes available"))
	}
	candidates, statuses, err := e.findCandidates(ctx, state, pod, all, m)
	if len(candidates) == 0 {
		if err != nil {
			return nil, framework.AsStatus(err)
		}
		statuses.AbsentStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable, MsgNotHelpful)
		fitErr := &framework.FitError{PodKey: pod.Key(), NumAllNodes: len(all), Diagnosis: framework.Diagnosis{NodeToStatus: statuses}}
		return &framework.PostFilterResult{}, framework.NewStatus(framework.Unschedulable, fitErr.Error())
	}
	best := e.SelectCandidate(candidates)
	if best == nil {
		return nil, framework.NewStatus(framework.Unschedulable, MsgNoCandidate)
	}
	if err := e.execute(ctx, best, pod); err != nil {
		return nil, framework.AsStatus(err)
	}
	return &framework.PostFilterResult{NominatedNodeName: best.Node}, framework.NewStatus(framework.Success,
		fmt.Sprintf("found a potential placement for pod on node %s, preempting %d victims", best.Node, len(best.Victims)))
}

// eligible is kube's PodEligibleToPreemptOthers.
func (e *Evaluator) eligible(pod *model.Pod, m *framework.NodeToStatus) (bool, string) {
	if pod.EffectivePreemptionPolicy() == model.PreemptNever {
		return false, MsgPolicyNever
	}
	nominated := pod.NominatedNodeName
	if nominated == "" || m.Get(nominated).Code() == framework.UnschedulableAndUnresolvable {
		return true, ""
	}
	ni, err := e.h.SnapshotSharedLister().Get(nominated)
	if err != nil {
		return true, ""
	}
	for _, pi := range ni.Pods {
		// Only pods going because of a preemption count (the scheduler
		// marks those it evicted); pods terminating for another reason do
		// not hold the pod back, as in kube.
		if pi.Pod.Priority < pod.Priority && pi.Pod.TerminatingByPreemption() {
			return false, MsgTerminatingVictim
		}
	}
	return true, ""
}

// findCandidates dry-runs the nodes whose status is Unschedulable, in the
// snapshot's order from the offset, until enough candidates are found. It
// returns them (budget-respecting ones first) and the statuses of the nodes
// that are not candidates.
func (e *Evaluator) findCandidates(ctx context.Context, state *framework.CycleState, pod *model.Pod, all []*framework.NodeInfo, m *framework.NodeToStatus) ([]*Candidate, *framework.NodeToStatus, error) {
	statuses := framework.NewNodeToStatus()
	var potential []*framework.NodeInfo
	for _, ni := range all {
		if m.Get(ni.Name()).Code() == framework.Unschedulable {
			potential = append(potential, ni)
		}
	}
	if len(potential) == 0 {
		return nil, statuses, nil
	}
	budgets := e.budgetsNow()
	n := len(potential)
	offset, want := 0, e.numCandidates(n)
	if !e.opts.Deterministic {
		offset = e.opts.Offset(n)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var clean, violating []*Candidate
	var errs []error
	check := func(i int) {
		ni := potential[(offset+i)%n]
		victims, violations, st := e.dryRunNode(ctx, state, pod, ni, budgets)
		if st.IsSuccess() && len(victims) == 0 {
			st = framework.AsStatus(fmt.Errorf("expected at least one victim pod on node %q", ni.Name()))
		}
		mu.Lock()
		defer mu.Unlock()
		if !st.IsSuccess() {
			if st.Code() == framework.Error {
				errs = append(errs, st.AsError())
			}
			statuses.Set(ni.Name(), st)
			return
		}
		c := &Candidate{Node: ni.Name(), Victims: victims, NumPDBViolations: violations}
		// Each list holds at most want candidates, as kube's.
		if violations == 0 {
			if len(clean) < want {
				clean = append(clean, c)
			}
		} else if len(violating) < want {
			violating = append(violating, c)
		}
		if len(clean) > 0 && len(clean)+len(violating) >= want {
			cancel()
		}
	}
	e.h.Parallelizer().Until(ctx, n, check)
	return append(clean, violating...), statuses, errors.Join(errs...)
}

// hasLowerPriority reports whether the node runs a pod below priority:
// without one, removing pods cannot help (kube's SelectVictimsOnNode finds
// no potential victim, after cloning the node and the cycle state; here
// such nodes are passed over before).
func hasLowerPriority(ni *framework.NodeInfo, priority int32) bool {
	for _, pi := range ni.Pods {
		if pi.Pod.Priority < priority {
			return true
		}
	}
	return false
}

// numCandidates is kube's calculateNumCandidates.
func (e *Evaluator) numCandidates(numNodes int) int {
	n := numNodes * int(e.opts.MinCandidateNodesPercentage) / 100
	n = max(n, int(e.opts.MinCandidateNodesAbsolute))
	return min(n, numNodes)
}

// budgets returns the disruption budgets, none without a lister.
func (e *Evaluator) budgets() []framework.PDBStatus {
	if l := e.h.PDBs(); l != nil {
		return l.List()
	}
	return nil
}
