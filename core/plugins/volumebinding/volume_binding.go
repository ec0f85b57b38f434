package volumebinding

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/volume"
)

// Name is the plugin's name in configurations.
const Name = names.VolumeBinding

const stateKey framework.StateKey = Name

// VolumeBinding checks that the pod's persistent volume claims can be
// used on a node and scores nodes by the storage the claims would use.
type VolumeBinding struct {
	t *volume.Tracker
	// attempts numbers the signatures of pods with claims (SignPod).
	attempts atomic.Uint64
	skip     *framework.Status
}

var (
	_ framework.PreFilterPlugin   = (*VolumeBinding)(nil)
	_ framework.FilterPlugin      = (*VolumeBinding)(nil)
	_ framework.ScorePlugin       = (*VolumeBinding)(nil)
	_ framework.EnqueueExtensions = (*VolumeBinding)(nil)
	_ framework.SignPlugin        = (*VolumeBinding)(nil)
)

// New checks the args (VolumeBindingArgs, as kube validates them) and
// returns the plugin. A framework without storage state (Handle.Volumes
// nil) gets an empty one: pods with claims wait for claims that never
// come.
func New(_ context.Context, raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	if err := checkArgs(raw); err != nil {
		return nil, err
	}
	var t *volume.Tracker
	if h != nil {
		t = h.Volumes()
	}
	if t == nil {
		t = volume.NewTracker()
	}
	return &VolumeBinding{t: t, skip: framework.NewStatus(framework.Skip)}, nil
}

// checkArgs applies kube's validation of VolumeBindingArgs: a
// non-negative bind timeout and a shape of increasing utilizations within
// 0..100 with scores within 0..10.
func checkArgs(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var a configv1.VolumeBindingArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("%s args: %w", Name, err)
	}
	if a.BindTimeoutSeconds != nil && *a.BindTimeoutSeconds < 0 {
		return fmt.Errorf("%s args: bindTimeoutSeconds: %d: invalid value, must not be negative", Name, *a.BindTimeoutSeconds)
	}
	for i, p := range a.Shape {
		if p.Utilization < 0 || p.Utilization > 100 {
			return fmt.Errorf("%s args: shape[%d].utilization: %d: not in valid range [0-100]", Name, i, p.Utilization)
		}
		if p.Score < 0 || p.Score > 10 {
			return fmt.Errorf("%s args: shape[%d].score: %d: not in valid range [0-10]", Name, i, p.Score)
		}
		if i > 0 && p.Utilization <= a.Shape[i-1].Utilization {
			return fmt.Errorf("%s args: shape[%d].utilization: %d: utilization values must be sorted in increasing order", Name, i, p.Utilization)
		}
	}
	return nil
}

// Name returns Name.
func (*VolumeBinding) Name() string { return Name }

// SignPod makes the plugin node-local for pods without claims (it skips
// their Filter and scores them 0 everywhere). A pod with claims depends
// on the cluster's volumes, not only on the node: each of its attempts
// signs uniquely, so nothing is reused for it.
func (pl *VolumeBinding) SignPod(pod *model.Pod, sig *framework.Signature) {
	sig.Tag(Name)
	if !hasClaims(pod) {
		sig.Int(0)
		return
	}
	sig.Int(int64(pl.attempts.Add(1)))
}

// PreFilter gathers the pod's claims (kube's reasons for a claim missing,
// lost, being deleted or not the pod's) and sorts them into bound ones and
// unbound ones; a pod with an unbound claim of an Immediate class waits
// for the volume controller to bind it. Pods without claims Skip.
func (pl *VolumeBinding) PreFilter(_ context.Context, state *framework.CycleState, pod *model.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if !hasClaims(pod) {
		return nil, pl.skip
	}
	claims, err := pl.podClaims(pod)
	if err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	if len(claims.unboundImmediate) > 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnboundImmediate)
	}
	if len(claims.unboundDelayed) > 0 {
		// Berth does not yet choose volumes for WaitForFirstConsumer
		// claims, nor tell the orchestrator: such a pod waits rather
		// than be bound as if it had no claim.
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonDelayedUnsupported)
	}
	state.Write(stateKey, &stateData{bound: claims.bound})
	return nil, nil
}

// PreFilterExtensions returns nil: the claims' fit does not change with
// the pods added or removed on a node.
func (*VolumeBinding) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter checks that the volumes of the pod's bound claims exist and that
// their node affinity admits the node.
func (pl *VolumeBinding) Filter(_ context.Context, state *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, ok := framework.ReadAs[*stateData](state, stateKey)
	if !ok {
		return nil
	}
	var reasons []string
	affinityOK, volumesFound := pl.checkBound(s.bound, nodeInfo.Node())
	if !affinityOK {
		reasons = append(reasons, ErrReasonNodeConflict)
	}
	if !volumesFound {
		reasons = append(reasons, ErrReasonPVNotExist)
	}
	if len(reasons) > 0 {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasons...)
	}
	return nil
}

// Score is 0: the pod's claims are bound, so no volume is chosen or
// provisioned on the node (kube's capacity score counts only those).
func (*VolumeBinding) Score(context.Context, *framework.CycleState, *model.Pod, *framework.NodeInfo) (int64, *framework.Status) {
	return 0, nil
}

// ScoreExtensions returns nil: the scores need no normalizing.
func (*VolumeBinding) ScoreExtensions() framework.ScoreExtensions { return nil }
