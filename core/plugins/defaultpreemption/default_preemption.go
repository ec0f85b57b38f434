package defaultpreemption

import (
	"context"
	"encoding/json"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
	"github.com/berthsched/berth/core/preemption"
)

// Name is the plugin's name in configurations.
const Name = names.DefaultPreemption

// DefaultPreemption preempts lower-priority pods for a pod no node fits.
type DefaultPreemption struct {
	args      Args
	evaluator *preemption.Evaluator
}

var _ framework.PostFilterPlugin = (*DefaultPreemption)(nil)

// New decodes the args and returns the plugin.
func New(_ context.Context, raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args, err := DecodeArgs(raw)
	if err != nil {
		return nil, err
	}
	return &DefaultPreemption{
		args: *args,
		evaluator: preemption.New(h, preemption.Options{
			PluginName:                  Name,
			MinCandidateNodesPercentage: *args.MinCandidateNodesPercentage,
			MinCandidateNodesAbsolute:   *args.MinCandidateNodesAbsolute,
			Deterministic:               h.Deterministic(),
		}),
	}, nil
}

// Name returns Name.
func (*DefaultPreemption) Name() string { return Name }

// Args returns the plugin's decoded args.
func (pl *DefaultPreemption) Args() Args { return pl.args }

// PostFilter runs preemption; its messages are prefixed with
// "preemption: ", as kube's.
func (pl *DefaultPreemption) PostFilter(ctx context.Context, state *framework.CycleState, pod *model.Pod, filtered *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	result, st := pl.evaluator.Preempt(ctx, state, pod, filtered)
	if msg := st.Message(); msg != "" {
		return result, framework.NewStatus(st.Code(), "preemption: "+msg)
	}
	return result, st
}
