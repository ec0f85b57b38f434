package framework

import (
	"context"

	"github.com/berthsched/berth/core/model"
)

// PluginScore is one plugin's weighted, normalized score for a node.
type PluginScore struct {
	Name  string
	Score int64
}

// NodePluginScores is a node's scores from every score plugin and their sum.
type NodePluginScores struct {
	Name       string
	Scores     []PluginScore
	TotalScore int64
}

// LessFunc orders activeQ.
type LessFunc func(a, b *QueuedPodInfo) bool

// Framework is one scheduling profile: its plugins per extension point,
// run in the configured order. The scheduling loop drives it; the runtime
// package implements it.
type Framework interface {
	Handle

	QueueSortFunc() LessFunc
	PreEnqueuePlugins() []PreEnqueuePlugin
	EnqueueExtensions() []EnqueueExtensions

	// RunPreFilterPlugins runs every PreFilter plugin. On rejection the
	// status names the plugin. The returned set names the plugins whose
	// result narrowed the nodes to try: when the narrowed set leaves the
	// pod unschedulable, they are the ones whose events can help it.
	RunPreFilterPlugins(ctx context.Context, state *CycleState, pod *model.Pod, nodes []*NodeInfo) (*PreFilterResult, *Status, map[string]struct{})
	RunPostFilterPlugins(ctx context.Context, state *CycleState, pod *model.Pod, filtered *NodeToStatus) (*PostFilterResult, *Status)
	RunPreScorePlugins(ctx context.Context, state *CycleState, pod *model.Pod, nodes []*NodeInfo) *Status
	// RunScorePlugins scores nodes with every Score plugin, normalizes and
	// applies weights; the result is in the order of nodes.
	RunScorePlugins(ctx context.Context, state *CycleState, pod *model.Pod, nodes []*NodeInfo) ([]NodePluginScores, *Status)
	RunReservePluginsReserve(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string) *Status
	RunReservePluginsUnreserve(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string)
	// RunPermitPlugins returns Wait when a plugin holds the pod; the pod is
	// then a WaitingPod until WaitOnPermit returns.
	RunPermitPlugins(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string) *Status
	WaitOnPermit(ctx context.Context, pod *model.Pod) *Status
	RunPreBindPlugins(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string) *Status
	RunBindPlugins(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string) *Status
	RunPostBindPlugins(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string)

	HasFilterPlugins() bool
	HasPostFilterPlugins() bool
	HasScorePlugins() bool
	// PercentageOfNodesToScore is the profile's override, nil when unset.
	PercentageOfNodesToScore() *int32
}
