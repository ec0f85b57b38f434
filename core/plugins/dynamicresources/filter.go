package dynamicresources

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/helper"
)

// Filter checks that the pod's allocated claims are usable on the node and
// that its other claims can all be allocated there, keeping the
// allocation found for Score and Reserve.
func (pl *DynamicResources) Filter(ctx context.Context, cs *framework.CycleState, _ *model.Pod, ni *framework.NodeInfo) *framework.Status {
	s, ok := stateOf(cs)
	if !ok {
		return nil
	}
	var node *corev1.Node // made when needed: most nodes' answers need none
	nodeOf := func() *corev1.Node {
		if node == nil {
			node = kubeNode(ni.Node())
		}
		return node
	}
	var unavailable []int
	for i, sel := range s.availableOnNodes {
		if sel != nil && !sel.Match(nodeOf()) {
			unavailable = append(unavailable, i)
		}
	}
	var results []resourceapi.AllocationResult
	if s.allocator != nil {
		// The timeout bounds the allocator's run only: the answers
		// core/dra gives without it need no timer.
		res, reason, err := s.allocator.AllocateOn(ctx, ni.Name(), nodeOf, pl.filterTimeout)
		switch {
		case err != nil && ctx.Err() != nil:
			// The cycle has enough feasible nodes and stopped the others.
			return unresolvable(fmt.Sprintf("asked by caller to stop allocating devices: %v", context.Cause(ctx)))
		case errors.Is(err, context.DeadlineExceeded):
			// Possibly transient: an Error retries the pod after backoff.
			return framework.AsStatus(fmt.Errorf("node %s: timed out trying to allocate devices", ni.Name()))
		case err != nil:
			// A broken claim or class (a CEL runtime error): the attempt
			// fails, as in kube, and is retried after backoff.
			return framework.AsStatus(err)
		case reason != "":
			return unresolvable(reason)
		}
		results = res
	}
	if s.allocator == nil && len(unavailable) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(unavailable) > 0 {
		if s.unavailable == nil {
			s.unavailable = map[int]bool{}
		}
		for _, i := range unavailable {
			s.unavailable[i] = true
		}
		return unresolvable(ErrReasonNotAvailable)
	}
	s.nodeAllocations[ni.Name()] = results
	return nil
}

// kubeNode is the part of a node the allocator and node selectors read.
func kubeNode(n *model.Node) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels}}
}

// PostFilter deallocates one claim that no node could use, when no other
// pod uses it, so that the next attempt may allocate it elsewhere (the
// lowest index first; kube picks at random among them). With nothing to
// deallocate its status has no message, as kube 1.37's (1.36 said "no new
// claims to deallocate" or "still not schedulable").
func (pl *DynamicResources) PostFilter(ctx context.Context, cs *framework.CycleState, pod *model.Pod, _ *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	s, ok := stateOf(cs)
	if !ok {
		if _, ran := framework.ReadAs[prefilterRan](cs, ranKey); !ran {
			// An earlier PreFilter rejected the pod: kube's PostFilter
			// finds no state and fails, and preemption is not tried.
			return nil, framework.AsStatus(errors.New("not found"))
		}
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	s.mu.Lock()
	indexes := make([]int, 0, len(s.unavailable))
	for i := range s.unavailable {
		indexes = append(indexes, i)
	}
	s.mu.Unlock()
	slices.Sort(indexes)
	for _, i := range indexes {
		c := s.claims[i]
		if len(c.Status.ReservedFor) > 1 || (len(c.Status.ReservedFor) == 1 && string(c.Status.ReservedFor[0].UID) != pod.UID) {
			continue
		}
		ch, ok := pl.t.Deallocate(c.Namespace, c.Name, pod.UID)
		if !ok {
			continue
		}
		if p := pl.h.Decisions(); p != nil {
			if _, err := framework.SubmitOne(ctx, p, &framework.Deallocation{Claim: ch.Old, Reason: DeallocationReason}); err != nil {
				return nil, framework.AsStatus(err)
			}
		}
		return nil, framework.NewStatus(framework.Unschedulable, msgDeallocated)
	}
	return nil, framework.NewStatus(framework.Unschedulable)
}

// firstAvailableMaxSize is kube's bound on firstAvailable alternatives;
// the first one scores it, each later one one less.
const firstAvailableMaxSize = resourceapi.FirstAvailableDeviceRequestMaxSize

// Score rewards nodes where the claims got earlier firstAvailable
// alternatives, as kube does; 0 for pods without claims.
func (pl *DynamicResources) Score(_ context.Context, cs *framework.CycleState, pod *model.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	if len(pod.ResourceClaims) == 0 {
		return 0, nil
	}
	s, ok := stateOf(cs)
	if !ok || s.allocator == nil {
		return 0, nil
	}
	s.mu.Lock()
	results, found := s.nodeAllocations[ni.Name()]
	s.mu.Unlock()
	if !found {
		return 0, nil
	}
	var score int64
	j := 0
	for _, c := range s.claims {
		alloc := c.Status.Allocation
		if alloc == nil {
			if j >= len(results) {
				return 0, nil
			}
			alloc = &results[j]
			j++
		}
		chosen := map[string]bool{}
		for _, r := range alloc.Devices.Results {
			chosen[r.Request] = true
		}
		for _, req := range c.Spec.Devices.Requests {
			for i, sub := range req.FirstAvailable {
				if chosen[req.Name+"/"+sub.Name] {
					score += int64(firstAvailableMaxSize - i)
				}
			}
		}
	}
	return score, nil
}

// ScoreExtensions normalizes the scores to 0..100.
func (pl *DynamicResources) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore scales the scores so the best node has 100.
func (*DynamicResources) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *model.Pod, scores framework.NodeScoreList) *framework.Status {
	helper.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
	return nil
}

// Reserve puts the pod's allocations on the node in flight (their devices
// count as taken) and the pod among the consumers of its claims.
func (pl *DynamicResources) Reserve(_ context.Context, cs *framework.CycleState, pod *model.Pod, nodeName string) *framework.Status {
	s, ok := stateOf(cs)
	if !ok {
		return nil
	}
	results := make([]resourceapi.AllocationResult, len(s.claims))
	if s.allocator != nil {
		s.mu.Lock()
		found, ok := s.nodeAllocations[nodeName]
		s.mu.Unlock()
		if !ok {
			return framework.NewStatus(framework.Error, "claim allocation not found for node")
		}
		j := 0
		for i, c := range s.claims {
			if c.Status.Allocation == nil {
				results[i] = found[j]
				j++
			}
		}
	}
	if err := pl.t.Assume(pod, s.claims, results); err != nil {
		return framework.AsStatus(err)
	}
	return nil
}

// Unreserve forgets the pod's allocations in flight.
func (pl *DynamicResources) Unreserve(_ context.Context, cs *framework.CycleState, pod *model.Pod, _ string) {
	if _, ok := stateOf(cs); ok {
		pl.t.Forget(pod)
	}
}

// PreBind fails the bind of a pod two of whose entries name one claim
// that had to be allocated, as kube's PreBind does: it writes the first
// entry's allocation and reservation, then finds the claim "allocated
// elsewhere" for the second; Unreserve then drops the reservation, so the
// claim stays allocated, reserved by nobody.
func (pl *DynamicResources) PreBind(_ context.Context, cs *framework.CycleState, pod *model.Pod, _ string) *framework.Status {
	if len(pod.ResourceClaims) < 2 {
		return nil
	}
	s, ok := stateOf(cs)
	if !ok {
		return nil
	}
	for i, c := range s.claims {
		if c.Status.Allocation != nil || !slices.Contains(s.claims[:i], c) {
			continue
		}
		pl.t.CommitAllocation(pod, c.Namespace, c.Name)
		return framework.AsStatus(fmt.Errorf("claim %s got allocated elsewhere in the meantime", dra.Key(c.Namespace, c.Name)))
	}
	return nil
}
