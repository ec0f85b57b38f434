package framework

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/volume"
)

// Plugin is anything registered with the framework.
type Plugin interface {
	Name() string
}

// PluginFactory builds a plugin from its raw pluginConfig args (nil means
// defaults) and the framework handle. Each plugin decodes its args into its
// own typed struct, applies defaults and validates them, naming the field on
// error.
type PluginFactory func(ctx context.Context, args json.RawMessage, h Handle) (Plugin, error)

// PreEnqueuePlugin decides whether a pod may enter activeQ at all (e.g.
// scheduling gates). A non-success status keeps the pod gated.
type PreEnqueuePlugin interface {
	Plugin
	PreEnqueue(ctx context.Context, pod *model.Pod) *Status
}

// QueueSortPlugin orders activeQ. Exactly one per profile.
type QueueSortPlugin interface {
	Plugin
	Less(a, b *QueuedPodInfo) bool
}

// EnqueueExtensions is implemented by plugins that reject pods: it names the
// cluster events that can make a rejected pod schedulable, so the queue
// moves only pods an event can help. A rejecting plugin that does not
// implement it is treated as interested in every event.
type EnqueueExtensions interface {
	Plugin
	EventsToRegister(ctx context.Context) ([]ClusterEventWithHint, error)
}

// PreFilterPlugin runs once per attempt before filtering. It may compute
// state for Filter, reject the pod outright, or narrow the node set.
type PreFilterPlugin interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, pod *model.Pod, nodes []*NodeInfo) (*PreFilterResult, *Status)
	// PreFilterExtensions returns nil when the plugin's state does not
	// depend on other pods.
	PreFilterExtensions() PreFilterExtensions
}

// PreFilterExtensions update PreFilter state incrementally when the runtime
// evaluates a node with a pod added (nominated pods) or removed
// (preemption victims).
type PreFilterExtensions interface {
	AddPod(ctx context.Context, state *CycleState, podToSchedule *model.Pod, podInfoToAdd *PodInfo, nodeInfo *NodeInfo) *Status
	RemovePod(ctx context.Context, state *CycleState, podToSchedule *model.Pod, podInfoToRemove *PodInfo, nodeInfo *NodeInfo) *Status
}

// FilterPlugin decides whether the pod can run on one node. Filters run in
// parallel over nodes and must only read state.
type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, pod *model.Pod, nodeInfo *NodeInfo) *Status
}

// DomainRejecter is implemented by Filter plugins whose PreFilter state
// decides whole topology domains at once (PodTopologySpread: every node of
// a domain whose count exceeds maxSkew fails). The scheduler uses it to
// pass over those nodes without filtering each one, counting them as
// filtered and rejected (see core/scheduler's domain walk); kube-scheduler
// filters every node it visits.
type DomainRejecter interface {
	FilterPlugin
	// RejectedDomains reads the pod's cycle state and returns topology
	// keys with the domains whose every node Filter rejects, whatever pods
	// are nominated to the node; a node lacking one of the keys must be
	// rejected too. nil when the plugin has nothing to say for the pod.
	RejectedDomains(state *CycleState) []RejectedDomains
}

// RejectedDomains are the values of one node label (a topology key) whose
// nodes a DomainRejecter rejects.
type RejectedDomains struct {
	Key     string
	Domains map[string]struct{}
	// Decisive: the plugin's Filter accepts every node that has the key
	// in a domain not listed, unless pods are nominated to the node.
	Decisive bool
	// Plugin names the plugin (the runtime fills it in).
	Plugin string
}

// PostFilterPlugin runs when no node passed Filter (preemption).
type PostFilterPlugin interface {
	Plugin
	PostFilter(ctx context.Context, state *CycleState, pod *model.Pod, filtered *NodeToStatus) (*PostFilterResult, *Status)
}

// PreScorePlugin runs once before scoring with the feasible nodes.
type PreScorePlugin interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, pod *model.Pod, nodes []*NodeInfo) *Status
}

// ScorePlugin ranks feasible nodes. Scores must lie in [MinNodeScore,
// MaxNodeScore] after NormalizeScore.
type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, state *CycleState, pod *model.Pod, nodeInfo *NodeInfo) (int64, *Status)
	// ScoreExtensions returns nil when the plugin does not normalize.
	ScoreExtensions() ScoreExtensions
}

// UniformScorer is implemented by Score plugins that can tell, after their
// PreScore, that Score would give every node the same raw score (and
// success) for the pod: for example ImageLocality when no node holds any
// of the pod's images. The runtime then uses that score without calling
// Score per node, and treats the plugin as node-local for this pod, so a
// warm signature is scored from the memo in order.
type UniformScorer interface {
	ScorePlugin
	// UniformScore returns the raw score every node gets, and true, when
	// that holds for the state's pod; false when nodes may differ.
	UniformScore(state *CycleState, pod *model.Pod) (int64, bool)
}

// ScoreExtensions normalizes raw scores in place.
type ScoreExtensions interface {
	NormalizeScore(ctx context.Context, state *CycleState, pod *model.Pod, scores NodeScoreList) *Status
}

// ReservePlugin claims (and on failure releases) per-node resources that the
// plugin tracks itself.
type ReservePlugin interface {
	Plugin
	Reserve(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string) *Status
	Unreserve(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string)
}

// PermitPlugin approves, denies or delays (Wait with a timeout) a binding.
type PermitPlugin interface {
	Plugin
	Permit(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string) (*Status, time.Duration)
}

// PreBindPlugin runs before Bind in the binding cycle.
type PreBindPlugin interface {
	Plugin
	PreBind(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string) *Status
}

// BindPlugin binds the pod. Plugins run in order until one does not Skip.
type BindPlugin interface {
	Plugin
	Bind(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string) *Status
}

// PostBindPlugin is told about a successful bind.
type PostBindPlugin interface {
	Plugin
	PostBind(ctx context.Context, state *CycleState, pod *model.Pod, nodeName string)
}

// NodeInfoLister reads the snapshot of the current cycle.
type NodeInfoLister interface {
	// List returns all nodes in the zone-interleaved scheduling order.
	List() []*NodeInfo
	// HavePodsWithAffinityList returns nodes with at least one pod with pod
	// affinity or anti-affinity.
	HavePodsWithAffinityList() []*NodeInfo
	// HavePodsWithRequiredAntiAffinityList returns nodes with at least one
	// pod with required anti-affinity.
	HavePodsWithRequiredAntiAffinityList() []*NodeInfo
	// Get returns the named node or an error.
	Get(nodeName string) (*NodeInfo, error)
	// NumNodes returns len(List()).
	NumNodes() int
}

// NodeJournal is implemented by snapshots that record which nodes each
// update changed. Plugins keeping indexes over the snapshot's nodes (see
// core/plugins/domaincount) use it to recompute only the nodes that
// changed since they last looked, instead of every node for every pod.
type NodeJournal interface {
	// JournalVersion is the version of the latest update that changed a
	// node.
	JournalVersion() int64
	// ChangedSince returns the names of the nodes added, changed or
	// removed after version v (a name may repeat), false when the journal
	// no longer reaches back to v.
	ChangedSince(v int64) ([]string, bool)
}

// NamespaceLister returns namespace labels for namespaceSelector matching.
type NamespaceLister interface {
	// NamespaceLabels returns the labels of a known namespace.
	NamespaceLabels(name string) (map[string]string, bool)
	// NamespacesMatching returns the names of namespaces whose labels match.
	NamespacesMatching(sel model.Selector) []string
}

// NominatingMode says whether a nomination replaces the current one.
type NominatingMode int

const (
	ModeNoop     NominatingMode = iota // keep what the nominator has
	ModeOverride                       // set NominatedNodeName
)

// NominatingInfo carries a nomination decision.
type NominatingInfo struct {
	NominatedNodeName string
	Mode              NominatingMode
}

// PodNominator remembers which pending pods have a node reserved through
// preemption, so lower-priority pods do not take the room.
type PodNominator interface {
	// AddNominatedPod records pi as nominated: to info's node in
	// ModeOverride, else to the pod's own NominatedNodeName.
	AddNominatedPod(pi *PodInfo, info *NominatingInfo)
	// DeleteNominatedPodIfExists forgets the pod's nomination.
	DeleteNominatedPodIfExists(pod *model.Pod)
	// UpdateNominatedPod replaces the pod's entry; an update that carries no
	// nomination keeps the node the scheduler nominated.
	UpdateNominatedPod(oldPod *model.Pod, newPodInfo *PodInfo)
	// NominatedPodsForNode returns the pods nominated to the node; callers
	// must not change the slice.
	NominatedPodsForNode(nodeName string) []*PodInfo
	// AnyNominated reports whether any pod is nominated at all. Filter
	// passes ask it before looking a node up by name, so that a cluster
	// with no nominations never reads the nodes' names (a cache miss per
	// node visited, a third of a cycle's CPU at 50,000 nodes).
	AnyNominated() bool
}

// PDBLister lists the disruption budgets with their current allowance.
type PDBLister interface {
	// List returns every budget with the number of disruptions it allows
	// now (caller-supplied or computed from the known pods).
	List() []PDBStatus
}

// PDBStatus is a budget with the disruptions it currently allows.
type PDBStatus struct {
	PDB                *model.PodDisruptionBudget
	Selector           model.Selector
	DisruptionsAllowed int32
}

// WaitingPod is a pod held by a Permit plugin.
type WaitingPod interface {
	Pod() *model.Pod
	// PendingPlugins names the Permit plugins still to allow the pod.
	PendingPlugins() []string
	// Allow marks the named plugin as approving; the pod proceeds when no
	// plugin is pending.
	Allow(pluginName string)
	// Reject fails the pod's permit with msg.
	Reject(pluginName, msg string)
}

// PluginRunner is the part of the runtime other plugins (preemption) call.
type PluginRunner interface {
	RunPreFilterExtensionAddPod(ctx context.Context, state *CycleState, podToSchedule *model.Pod, podInfoToAdd *PodInfo, nodeInfo *NodeInfo) *Status
	RunPreFilterExtensionRemovePod(ctx context.Context, state *CycleState, podToSchedule *model.Pod, podInfoToRemove *PodInfo, nodeInfo *NodeInfo) *Status
	// RunFilterPluginsWithNominatedPods filters the node as the cycle does:
	// with higher-or-equal-priority nominated pods added, then without.
	RunFilterPluginsWithNominatedPods(ctx context.Context, state *CycleState, pod *model.Pod, nodeInfo *NodeInfo) *Status
	RunFilterPlugins(ctx context.Context, state *CycleState, pod *model.Pod, nodeInfo *NodeInfo) *Status
}

// Handle is what plugin factories and plugins get from the framework.
type Handle interface {
	PluginRunner
	// SnapshotSharedLister reads the snapshot of the current cycle.
	SnapshotSharedLister() NodeInfoLister
	Namespaces() NamespaceLister
	PodNominator() PodNominator
	PDBs() PDBLister
	// Decisions is where plugins submit decisions (DefaultBinder its
	// Bind, DynamicResources its deallocations).
	Decisions() Planner
	Parallelizer() Parallelizer
	// IterateOverWaitingPods, GetWaitingPod and RejectWaitingPod give Permit
	// plugins access to pods held by any plugin.
	IterateOverWaitingPods(fn func(WaitingPod))
	GetWaitingPod(uid string) WaitingPod
	RejectWaitingPod(uid string) bool
	// Devices is the scheduler's DRA state (device classes, slices,
	// claims and their allocations in flight); nil when the scheduler
	// has none.
	Devices() *dra.Tracker
	// Volumes is the scheduler's storage state (volumes, claims, classes,
	// CSI objects); nil when the scheduler has none.
	Volumes() *volume.Tracker
	// ProfileName is the schedulerName the framework serves.
	ProfileName() string
	// IncrementalIndexes reports whether plugins may keep indexes over the
	// snapshot that they update by deltas (the default); off, they
	// recompute their cross-node state from every node for every pod, as
	// kube-scheduler does. The decisions are the same either way.
	IncrementalIndexes() bool
	Clock() Clock
	Logger() *slog.Logger
	// LocalMemo returns nodeInfo's memo entry for the pod state was made
	// for, when every Filter plugin that runs for it is node-local (so its
	// verdicts on the node, with or without other pods added, depend only
	// on the pod's signature and on the pods on the node); nil otherwise,
	// or when the memo or the preemption memo is off. The caller must be
	// the only goroutine evaluating nodeInfo, as in a filter pass.
	LocalMemo(state *CycleState, nodeInfo *NodeInfo) *MemoEntry
	// Deterministic reports whether the run must be replayable exactly
	// (simulate, parity, tests): a plugin that would choose at random
	// (DefaultPreemption's candidate search start, its final ties) chooses
	// by a fixed rule instead.
	Deterministic() bool
}

// Clock is the time source; tests inject a fake.
type Clock interface {
	Now() time.Time
}

// TimerClock is a Clock that can also run a function after a delay. Where a
// component waits (Permit timeouts, the queue's flush loops), it uses the
// injected clock's timers when the clock implements TimerClock, so a fake
// clock drives the waits and tests never sleep.
type TimerClock interface {
	Clock
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not happened; it reports whether it
	// did so.
	Stop() bool
}
