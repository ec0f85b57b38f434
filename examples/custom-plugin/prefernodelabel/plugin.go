package prefernodelabel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "PreferNodeLabel"

// MaxValues bounds Args.Values.
const MaxValues = 64

// Args are the plugin's pluginConfig args.
type Args struct {
	// Key is the node label read; required.
	Key string `json:"key"`
	// Values are the label values preferred; at least one, none empty.
	Values []string `json:"values"`
}

// validate names the field at fault, as the in-tree plugins do.
func (a *Args) validate() error {
	switch {
	case a.Key == "":
		return errors.New("key: required")
	case len(a.Values) == 0:
		return errors.New("values: at least one value is required")
	case len(a.Values) > MaxValues:
		return fmt.Errorf("values: %d values, at most %d", len(a.Values), MaxValues)
	}
	for i, v := range a.Values {
		if v == "" {
			return fmt.Errorf("values[%d]: must not be empty", i)
		}
	}
	return nil
}

// PreferNodeLabel scores nodes by one label.
type PreferNodeLabel struct {
	args Args
}

var (
	_ framework.ScorePlugin = (*PreferNodeLabel)(nil)
	_ framework.SignPlugin  = (*PreferNodeLabel)(nil)
)

// New decodes args strictly (an unknown field is an error) and validates
// them. It is a framework.PluginFactory.
func New(_ context.Context, raw json.RawMessage, _ framework.Handle) (framework.Plugin, error) {
	var args Args
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&args); err != nil {
			return nil, fmt.Errorf("%s args: %w", Name, err)
		}
	}
	if err := args.validate(); err != nil {
		return nil, fmt.Errorf("%s args: %w", Name, err)
	}
	return &PreferNodeLabel{args: args}, nil
}

// Name returns Name.
func (*PreferNodeLabel) Name() string { return Name }

// Score is MaxNodeScore on a preferred node, else 0.
func (p *PreferNodeLabel) Score(_ context.Context, _ *framework.CycleState, _ *model.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	return NodeScore(p.args, nodeInfo.Node()), nil
}

// ScoreExtensions is nil: the scores are already in [0, MaxNodeScore].
func (*PreferNodeLabel) ScoreExtensions() framework.ScoreExtensions { return nil }

// SignPod signs nothing: the score reads no field of the pod, so a node's
// result holds for every pod.
func (*PreferNodeLabel) SignPod(*model.Pod, *framework.Signature) {}

// NodeScore is the score of node under args.
func NodeScore(args Args, node *model.Node) int64 {
	if node == nil {
		return 0
	}
	v, ok := node.Labels[args.Key]
	if ok && slices.Contains(args.Values, v) {
		return framework.MaxNodeScore
	}
	return 0
}
