package runtime

import (
	"log/slog"
	"time"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/volume"
)

// Option injects a dependency into New.
type Option func(*options)

type options struct {
	snapshot     framework.NodeInfoLister
	nominator    framework.PodNominator
	namespaces   framework.NamespaceLister
	pdbs         framework.PDBLister
	decisions    framework.Planner
	clock        framework.Clock
	logger       *slog.Logger
	parallelizer framework.Parallelizer
	waitingPods  *WaitingPods
	metrics      Metrics
	devices      *dra.Tracker
	volumes      *volume.Tracker
	// deterministic: see WithDeterministic (preemption_extras.go).
	deterministic bool
	// noResultMemo: see WithoutResultMemo.
	noResultMemo bool
	// noIndexes: see WithoutIncrementalIndexes.
	noIndexes bool
	// noPreemptionMemo: see WithoutPreemptionMemo.
	noPreemptionMemo bool
	// noScoreCarry: see WithoutScoreCarry.
	noScoreCarry bool
}

func defaultOptions() options {
	return options{
		clock:        realClock{},
		logger:       slog.New(slog.DiscardHandler),
		parallelizer: framework.NewParallelizer(framework.DefaultParallelism),
	}
}

// WithSnapshotLister sets what SnapshotSharedLister returns. The scheduler
// either refreshes one snapshot in place every cycle (cache.Snapshot) or
// passes a *SnapshotRef and swaps the snapshot it points to.
func WithSnapshotLister(l framework.NodeInfoLister) Option {
	return func(o *options) { o.snapshot = l }
}

// WithPodNominator sets the nominator RunFilterPluginsWithNominatedPods
// reads and plugins get from the handle.
func WithPodNominator(n framework.PodNominator) Option {
	return func(o *options) { o.nominator = n }
}

// WithNamespaceLister sets the namespace labels plugins read.
func WithNamespaceLister(l framework.NamespaceLister) Option {
	return func(o *options) { o.namespaces = l }
}

// WithPDBLister sets the disruption budgets preemption reads.
func WithPDBLister(l framework.PDBLister) Option {
	return func(o *options) { o.pdbs = l }
}

// WithDecisions sets the planner decisions are submitted to.
func WithDecisions(s framework.Planner) Option {
	return func(o *options) { o.decisions = s }
}

// WithClock sets the time source. A clock that also implements TimerClock
// drives the Permit timeouts (tests use a fake one); otherwise they run on
// real timers.
func WithClock(c framework.Clock) Option {
	return func(o *options) { o.clock = c }
}

// WithLogger sets the logger. Default: discard.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// WithParallelism sets the number of goroutines Score (and plugins through
// the handle) use; n <= 0 means framework.DefaultParallelism. 1 runs
// everything on the calling goroutine in order.
func WithParallelism(n int) Option {
	return func(o *options) { o.parallelizer = framework.NewParallelizer(n) }
}

// WithWaitingPods shares one waiting-pods map between the frameworks of
// all profiles, as kube does, so a Permit plugin sees every waiting pod.
// Default: a map of the framework's own.
func WithWaitingPods(w *WaitingPods) Option {
	return func(o *options) { o.waitingPods = w }
}

// WithDevices sets the DRA state plugins read through Handle.Devices.
// Default: none.
func WithDevices(t *dra.Tracker) Option {
	return func(o *options) { o.devices = t }
}

// WithVolumes sets the storage state plugins read through
// Handle.Volumes. Default: none.
func WithVolumes(t *volume.Tracker) Option {
	return func(o *options) { o.volumes = t }
}

// WithMetrics sets the metrics hook. Default: none.
func WithMetrics(m Metrics) Option {
	return func(o *options) { o.metrics = m }
}

// Metrics receives the framework's timings; the server plugs Prometheus in.
// Calls happen on the scheduling path and from concurrent binding cycles:
// implementations must be cheap and safe for concurrent use. Extension
// point names are kube's metric labels: PreFilter, PostFilter, PreScore,
// Score, Reserve, Unreserve, Permit, PreBind, Bind, PostBind.
type Metrics interface {
	// ObserveExtensionPoint records one run of an extension point (all its
	// plugins) and the status it returned.
	ObserveExtensionPoint(profile, point string, code framework.Code, d time.Duration)
	// ObservePlugin records one call of a plugin at a point that calls each
	// plugin once per pod (not Filter and Score, which run per node).
	ObservePlugin(profile, point, plugin string, code framework.Code, d time.Duration)
	// ObservePermitWait records how long a pod waited on Permit plugins and
	// how the wait ended.
	ObservePermitWait(profile string, code framework.Code, d time.Duration)
}

// Extension point names used as metric labels.
const (
	PointPreFilter  = "PreFilter"
	PointPostFilter = "PostFilter"
	PointPreScore   = "PreScore"
	PointScore      = "Score"
	PointReserve    = "Reserve"
	PointUnreserve  = "Unreserve"
	PointPermit     = "Permit"
	PointPreBind    = "PreBind"
	PointBind       = "Bind"
	PointPostBind   = "PostBind"
)

// TimerClock is a Clock that can also run a function after a delay. When
// the injected clock implements it, Permit timeouts use it.
type TimerClock = framework.TimerClock

// Timer is a pending AfterFunc call.
type Timer = framework.Timer

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// WithoutResultMemo turns off the reuse of node-local plugin results
// (plan.go): every plugin runs on every node for every pod. Tests use it
// to check that the memo changes no outcome.
func WithoutResultMemo() Option {
	return func(o *options) { o.noResultMemo = true }
}

// WithoutIncrementalIndexes makes plugins recompute their cross-node state
// (topology spread counts, inter-pod affinity counts) from every node for
// every pod instead of keeping indexes updated by deltas. Tests use it to
// check that the indexes change no outcome.
func WithoutIncrementalIndexes() Option {
	return func(o *options) { o.noIndexes = true }
}

// WithoutPreemptionMemo turns off what the memo keeps for preemption
// (LocalMemo returns nil): the verdicts on nodes with nominated pods added
// and the preemption evaluator's dry runs are computed every time, as kube
// does. Tests use it to check that the memo changes no outcome.
func WithoutPreemptionMemo() Option {
	return func(o *options) { o.noPreemptionMemo = true }
}

// WithoutScoreCarry makes RunFilterPluginsCarrying carry nothing, so that
// scoring reads every feasible node's remembered scores from the node
// itself. Tests use it to check that carrying them changes no outcome.
func WithoutScoreCarry() Option {
	return func(o *options) { o.noScoreCarry = true }
}
