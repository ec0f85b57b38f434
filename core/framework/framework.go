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
	// RunScorePluginsInto is RunScorePlugins working in reusable buffers
	// (nil: fresh ones); the result lives in buf until its next use.
	RunScorePluginsInto(ctx context.Context, state *CycleState, pod *model.Pod, nodes []*NodeInfo, buf *ScoreBuffers) ([]NodePluginScores, *Status)
	// ResultsRemembered reports whether the node-local plugin results of
	// earlier pods with this pod's signature are remembered (after
	// PreFilter), so that filtering mostly reads them: cheaper in order on
	// one goroutine than spread over many.
	ResultsRemembered(state *CycleState) bool
	// RejectedDomains gathers, after PreFilter, the domains the pod's
	// Filter plugins reject whole (see DomainRejecter); nil when there are
	// none or incremental indexes are off (Handle.IncrementalIndexes).
	RejectedDomains(state *CycleState) []RejectedDomains
	// RunFilterPluginsPassing filters a node as the scheduling cycle does
	// (RunFilterPluginsWithNominatedPods) but does not run the plugin
	// named passes, known to accept the node, unless pods are nominated to
	// it ("": every plugin runs).
	RunFilterPluginsPassing(ctx context.Context, state *CycleState, pod *model.Pod, nodeInfo *NodeInfo, passes string) *Status
	// RunFilterPluginsCarrying is RunFilterPluginsWithNominatedPods that,
	// when the node passes and the pod's signature is remembered, copies
	// the node's name and remembered raw scores into carry (else sets
	// carry.Owner nil), for ScoreBuffers.Carried. Only a caller filtering
	// on one goroutine uses it.
	RunFilterPluginsCarrying(ctx context.Context, state *CycleState, pod *model.Pod, nodeInfo *NodeInfo, carry *CarriedScores) *Status
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

// ScoreBuffers is reusable working memory for scoring one pod; see
// Framework.RunScorePluginsInto. The zero value is ready to use.
type ScoreBuffers struct {
	// TotalsOnly: the caller reads only each node's TotalScore, so the
	// per-plugin scores are not kept (NodePluginScores.Scores is nil).
	TotalsOnly bool
	// Carried, when it has one entry per node scored, holds what the filter
	// pass copied from each node's memo (Framework.RunFilterPluginsCarrying):
	// scoring reads the remembered raw scores and names there instead of
	// visiting every node again. Entries whose signature is not the pod's
	// are ignored.
	Carried []CarriedScores

	raw     []NodeScoreList
	rawMem  []NodeScore
	out     []NodePluginScores
	backing []PluginScore
}

// Raw returns plugins lists of nodes scores each, zeroed.
func (b *ScoreBuffers) Raw(plugins, nodes int) []NodeScoreList {
	b.rawMem = grow(b.rawMem, plugins*nodes)
	b.raw = grow(b.raw, plugins)
	for p := range b.raw {
		b.raw[p] = b.rawMem[p*nodes : (p+1)*nodes : (p+1)*nodes]
	}
	return b.raw
}

// Out returns the per-node results and the backing array of their
// per-plugin scores, zeroed.
func (b *ScoreBuffers) Out(nodes, plugins int) ([]NodePluginScores, []PluginScore) {
	b.out = grow(b.out, nodes)
	b.backing = grow(b.backing, nodes*plugins)
	return b.out, b.backing
}

// grow returns s resized to n zeroed elements, reusing its memory.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
