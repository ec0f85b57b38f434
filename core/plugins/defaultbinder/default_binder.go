package defaultbinder

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.DefaultBinder

// DefaultBinder binds pods through the handle's Planner.
type DefaultBinder struct {
	handle framework.Handle
}

var _ framework.BindPlugin = (*DefaultBinder)(nil)

// New returns the plugin. It has no args; like kube-scheduler it ignores
// any it is given.
func New(_ context.Context, _ json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	return &DefaultBinder{handle: h}, nil
}

// Name returns Name.
func (*DefaultBinder) Name() string { return Name }

// Bind records the binding; a failure is an Error status wrapping the
// sink's error.
func (b *DefaultBinder) Bind(ctx context.Context, _ *framework.CycleState, pod *model.Pod, nodeName string) *framework.Status {
	if _, err := framework.SubmitOne(ctx, b.handle.Decisions(), &framework.Bind{Pod: pod, Node: nodeName}); err != nil {
		return framework.AsStatus(fmt.Errorf("binding %s to %s: %w", pod.Key(), nodeName, err))
	}
	return nil
}
