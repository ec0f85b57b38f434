package volumebinding

import (
	"context"
	"encoding/json"
	"fmt"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.VolumeBinding

// VolumeBinding scores nodes by the storage the pod's claims would use.
type VolumeBinding struct{}

var _ framework.ScorePlugin = (*VolumeBinding)(nil)

// New checks the args (VolumeBindingArgs, as kube validates them) and
// returns the plugin.
func New(_ context.Context, raw json.RawMessage, _ framework.Handle) (framework.Plugin, error) {
	if err := checkArgs(raw); err != nil {
		return nil, err
	}
	return &VolumeBinding{}, nil
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

// Score is kube's score of a node for a pod without volume claims: 0 (no
// claim uses the node's storage). See the package doc.
func (*VolumeBinding) Score(context.Context, *framework.CycleState, *model.Pod, *framework.NodeInfo) (int64, *framework.Status) {
	return 0, nil
}

// ScoreExtensions returns nil: the scores need no normalizing.
func (*VolumeBinding) ScoreExtensions() framework.ScoreExtensions { return nil }
