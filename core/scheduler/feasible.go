package scheduler

// Finding the nodes a pod fits: PreFilter, the nominated node, then Filter
// over the nodes from the round-robin start, up to kube's adaptive bound.

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// kube's bounds on how many feasible nodes a cycle looks for.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// findNodesThatFitPod runs PreFilter, tries the nominated node, then
// filters the nodes.
func (s *Scheduler) findNodesThatFitPod(ctx context.Context, state *framework.CycleState, fwk framework.Framework, pod *model.Pod, att *Attempt) ([]*framework.NodeInfo, error) {
	d := &att.Diagnosis
	d.NodeToStatus = framework.NewNodeToStatus()
	allNodes := s.snapshot.List()
	preRes, st, rejectors := fwk.RunPreFilterPlugins(ctx, state, pod, allNodes)
	d.UnschedulablePlugins = rejectors
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return nil, st.AsError()
		}
		d.NodeToStatus.AbsentStatus = st
		d.PreFilterMsg = st.Message()
		addPluginStatus(d, st)
		return nil, nil
	}

	if pod.NominatedNodeName != "" {
		feasible, err := s.evaluateNominatedNode(ctx, state, fwk, pod, d)
		if err != nil {
			s.logger.Warn("evaluating the nominated node failed", "pod", pod.Key(), "node", pod.NominatedNodeName, "err", err)
		}
		if len(feasible) > 0 {
			att.ViaNominatedNode = true
			return feasible, nil
		}
	}

	nodes := allNodes
	if !preRes.AllNodes() {
		nodes = make([]*framework.NodeInfo, 0, len(preRes.NodeNames))
		// Sorted, so the order does not depend on map iteration.
		for _, name := range sortedKeys(preRes.NodeNames) {
			if ni, err := s.snapshot.Get(name); err == nil {
				nodes = append(nodes, ni)
			}
		}
		d.NodeToStatus.AbsentStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable,
			fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sortedKeys(rejectors)))
	}
	if att.within != nil {
		nodes = slices.DeleteFunc(slices.Clone(nodes), func(ni *framework.NodeInfo) bool { return !att.within[ni.Name()] })
		d.NodeToStatus.AbsentStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable, errOutsideDomain)
	}
	feasible, passed, err := s.findFeasible(ctx, state, fwk, pod, att, nodes)
	// Advance the start index even on error, so every node gets its turn.
	if len(allNodes) > 0 && !att.whatIf {
		processed := len(feasible) + d.NodeToStatus.Len() + passed
		s.nextStartNodeIndex = (s.nextStartNodeIndex + processed) % len(allNodes)
	}
	return feasible, err
}

// findFeasible filters nodes: by the domain walk (domainwalk.go) when the
// pod's Filter plugins reject whole domains and the walk would be in order
// anyway (memo warm, or one worker), else by findNodesThatPassFilters. It
// also returns how many rejected nodes it processed without recording
// their statuses (lean attempts that found a node: nobody reads them).
func (s *Scheduler) findFeasible(ctx context.Context, state *framework.CycleState, fwk framework.Framework, pod *model.Pod, att *Attempt, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, int, error) {
	d := &att.Diagnosis
	s.carried = nil
	toFind := s.feasibleToFind(fwk, len(nodes), att.whatIf)
	// A nominated node already rejected has its status: leave the count
	// of processed nodes to the plain walk.
	if len(nodes) == 0 || toFind == 0 || d.NodeToStatus.Len() > 0 || !fwk.HasFilterPlugins() ||
		!fwk.ResultsRemembered(state) && fwk.Parallelizer().Parallelism > 1 {
		feasible, err := s.findNodesThatPassFilters(ctx, state, fwk, pod, d, nodes, att.whatIf)
		return feasible, 0, err
	}
	plan := s.planDomainWalk(state, fwk, nodes)
	if plan == nil {
		feasible, err := s.findNodesThatPassFilters(ctx, state, fwk, pod, d, nodes, att.whatIf)
		return feasible, 0, err
	}
	s.domainWalks++
	s.feasibleBuf = slices.Grow(s.feasibleBuf[:0], toFind)[:toFind]
	return s.filterByDomain(ctx, state, fwk, pod, d, nodes, s.feasibleBuf, plan, !att.lean)
}

// evaluateNominatedNode filters only the pod's nominated node.
func (s *Scheduler) evaluateNominatedNode(ctx context.Context, state *framework.CycleState, fwk framework.Framework, pod *model.Pod, d *framework.Diagnosis) ([]*framework.NodeInfo, error) {
	s.carried = nil
	ni, err := s.snapshot.Get(pod.NominatedNodeName)
	if err != nil {
		return nil, err
	}
	return s.findNodesThatPassFilters(ctx, state, fwk, pod, d, []*framework.NodeInfo{ni}, false)
}

// findNodesThatPassFilters filters nodes starting at the round-robin start
// index and stops once enough feasible nodes are found (or filters them
// all). It spreads the nodes over the profile's goroutines, unless the
// framework remembers most verdicts for this pod's signature: then it
// walks them in order on this goroutine, which is cheaper and gives what
// a parallelism of 1 gives. The feasible nodes returned live in the
// scheduler's buffer until the next cycle.
func (s *Scheduler) findNodesThatPassFilters(ctx context.Context, state *framework.CycleState, fwk framework.Framework, pod *model.Pod, d *framework.Diagnosis, nodes []*framework.NodeInfo, all bool) ([]*framework.NodeInfo, error) {
	n := len(nodes)
	toFind := s.feasibleToFind(fwk, n, all)
	if n == 0 {
		return nil, nil
	}
	s.feasibleBuf = slices.Grow(s.feasibleBuf[:0], toFind)[:toFind]
	feasible := s.feasibleBuf
	if !fwk.HasFilterPlugins() {
		for i := range feasible {
			feasible[i] = nodes[(s.nextStartNodeIndex+i)%n]
		}
		return feasible, nil
	}
	if fwk.ResultsRemembered(state) {
		return s.filterInOrder(ctx, state, fwk, pod, d, nodes, feasible)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var found atomic.Int32
	var firstErr atomic.Pointer[error]
	s.statusBuf = slices.Grow(s.statusBuf[:0], n)[:n]
	statuses := s.statusBuf
	clear(statuses)
	check := func(i int) {
		ni := nodes[(s.nextStartNodeIndex+i)%n]
		st := fwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni)
		switch {
		case st.Code() == framework.Error:
			err := st.AsError()
			if firstErr.CompareAndSwap(nil, &err) {
				cancel()
			}
		case st.IsSuccess():
			k := found.Add(1)
			if int(k) > toFind {
				cancel()
				found.Add(-1)
			} else {
				feasible[k-1] = ni
			}
		default:
			statuses[i] = st
		}
	}
	fwk.Parallelizer().Until(ctx, n, check)
	feasible = feasible[:found.Load()]
	for i, st := range statuses {
		if st != nil {
			d.NodeToStatus.Set(nodes[(s.nextStartNodeIndex+i)%n].Name(), st)
			addPluginStatus(d, st)
		}
	}
	if p := firstErr.Load(); p != nil {
		return feasible, *p
	}
	return feasible, nil
}

// filterInOrder filters the nodes one after the other from the start
// index until enough are feasible. Like the parallel search with one
// worker (kube's, and the oracle's), it stops at the first feasible node
// beyond the number wanted: the nodes rejected before that one count as
// processed. The feasible nodes' remembered scores are carried in
// s.carried for the score pass (framework.CarriedScores).
func (s *Scheduler) filterInOrder(ctx context.Context, state *framework.CycleState, fwk framework.Framework, pod *model.Pod, d *framework.Diagnosis, nodes []*framework.NodeInfo, feasible []*framework.NodeInfo) ([]*framework.NodeInfo, error) {
	n, toFind, found := len(nodes), len(feasible), 0
	// One slot more than wanted: the first feasible node past them is
	// filtered too, and carried nowhere.
	s.carryBuf = slices.Grow(s.carryBuf[:0], toFind+1)[:toFind+1]
	carry := s.carryBuf
	done := func(found int) []*framework.NodeInfo {
		s.carried = carry[:found]
		return feasible[:found]
	}
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return done(found), err
		}
		ni := nodes[(s.nextStartNodeIndex+i)%n]
		st := fwk.RunFilterPluginsCarrying(ctx, state, pod, ni, &carry[found])
		switch {
		case st.Code() == framework.Error:
			return done(found), st.AsError()
		case st.IsSuccess():
			if found == toFind {
				return done(found), nil
			}
			feasible[found] = ni
			found++
		default:
			d.NodeToStatus.Set(ni.Name(), st)
			addPluginStatus(d, st)
		}
	}
	return done(found), nil
}

// feasibleToFind is how many feasible nodes the search looks for among n:
// all of them for an Evaluate, one without Score plugins, else kube's
// adaptive bound.
func (s *Scheduler) feasibleToFind(fwk framework.Framework, n int, all bool) int {
	switch {
	case all:
		return n
	case !fwk.HasScorePlugins():
		return min(n, 1)
	}
	return int(s.numFeasibleNodesToFind(fwk.PercentageOfNodesToScore(), int32(n)))
}

// numFeasibleNodesToFind is kube's adaptive bound: every node below 100
// nodes; else percentageOfNodesToScore (profile, then global; 0 means
// 50 - nodes/125, at least 5) of the nodes, at least 100.
func (s *Scheduler) numFeasibleNodesToFind(profilePercentage *int32, numAllNodes int32) int32 {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	percentage := s.percentageOfNodesToScore
	if profilePercentage != nil {
		percentage = *profilePercentage
	}
	if percentage == 0 {
		percentage = max(int32(50)-numAllNodes/125, minFeasibleNodesPercentageToFind)
	}
	return max(numAllNodes*percentage/100, minFeasibleNodesToFind)
}
