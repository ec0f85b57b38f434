package prioritysort

import (
	"context"
	"encoding/json"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/plugins/names"
)

// Name is the plugin's name in configurations.
const Name = names.PrioritySort

// PrioritySort orders pods by priority, then by queue timestamp.
type PrioritySort struct{}

var _ framework.QueueSortPlugin = (*PrioritySort)(nil)

// New returns the plugin. It has no args; like kube-scheduler it ignores
// any it is given.
func New(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
	return &PrioritySort{}, nil
}

// Name returns Name.
func (*PrioritySort) Name() string { return Name }

// Less reports whether a is popped before b: higher priority first, then
// the earlier Timestamp.
func (*PrioritySort) Less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := a.Pod.Priority, b.Pod.Priority
	return pa > pb || (pa == pb && a.Timestamp.Before(b.Timestamp))
}
