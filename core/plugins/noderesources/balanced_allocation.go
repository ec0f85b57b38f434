package noderesources

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
)

// BalancedAllocationName is NodeResourcesBalancedAllocation's name in
// configurations.
const BalancedAllocationName = names.NodeResourcesBalancedAllocation

const balancedPreScoreStateKey framework.StateKey = "PreScore" + BalancedAllocationName

// BalancedAllocation favours nodes whose resource fractions the pod brings
// closer together. For each node it computes balance = (1 - std of the
// requested/allocatable fractions) * 100 with and without the pod and
// scores 50 + (50 + with - without) / 2: 75 when the pod changes nothing,
// towards 100 when it improves the balance, towards 50 when it worsens it.
type BalancedAllocation struct {
	scorer resourceScorer
}

var (
	_ framework.PreScorePlugin = (*BalancedAllocation)(nil)
	_ framework.ScorePlugin    = (*BalancedAllocation)(nil)
	_ framework.SignPlugin     = (*BalancedAllocation)(nil)
)

// NewBalancedAllocation decodes NodeResourcesBalancedAllocationArgs and
// returns the plugin.
func NewBalancedAllocation(_ context.Context, raw json.RawMessage, _ framework.Handle) (framework.Plugin, error) {
	args, err := DecodeBalancedAllocationArgs(raw)
	if err != nil {
		return nil, err
	}
	return NewBalancedAllocationWithArgs(args), nil
}

// NewBalancedAllocationWithArgs returns the plugin for args that
// DecodeBalancedAllocationArgs accepted.
func NewBalancedAllocationWithArgs(args *BalancedAllocationArgs) *BalancedAllocation {
	return &BalancedAllocation{scorer: newResourceScorer(balancedAllocation, slices.Clone(args.Resources), true)}
}

// Name returns BalancedAllocationName.
func (*BalancedAllocation) Name() string { return BalancedAllocationName }

// PreScore computes the pod's exact requests and Skips a pod that
// requests none of the resources, so that best-effort pods do not all pile
// onto one node.
func (ba *BalancedAllocation) PreScore(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) *framework.Status {
	reqs := ba.scorer.podRequests(pod)
	if isBestEffort(reqs) {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(balancedPreScoreStateKey, scoreRequests(reqs))
	return nil
}

func isBestEffort(reqs []int64) bool {
	for _, r := range reqs {
		if r != 0 {
			return false
		}
	}
	return true
}

// Score scores the change in the node's balance.
func (ba *BalancedAllocation) Score(_ context.Context, state *framework.CycleState, pod *model.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	reqs, ok := framework.ReadAs[scoreRequests](state, balancedPreScoreStateKey)
	if !ok {
		if reqs = ba.scorer.podRequests(pod); isBestEffort(reqs) {
			return 0, nil
		}
	}
	return ba.scorer.score(nodeInfo, reqs), nil
}

// ScoreExtensions returns nil: scores are already on 0..100.
func (*BalancedAllocation) ScoreExtensions() framework.ScoreExtensions { return nil }

// SignPod signs what PreScore and Score read: the pod's requests.
func (*BalancedAllocation) SignPod(pod *model.Pod, sig *framework.Signature) { signRequests(pod, sig) }
