package simulate

import (
	"context"
	"log/slog"
	"time"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/queue"
	"github.com/berthsched/berth/core/volume"
)

// Input is the cluster to simulate.
type Input struct {
	Nodes []*model.Node
	// Pods in input order: those with NodeName run there, the others are
	// pending. Run schedules the pending ones; an Engine made by New only
	// holds them (their nominations keep room), it schedules the pods given
	// to Schedule.
	Pods            []*model.Pod
	PriorityClasses []*model.PriorityClass
	PDBs            []*model.PodDisruptionBudget
	Namespaces      []*model.Namespace
	// Nominations are those of pending pods of Pods, kept as a scheduler
	// restored from its store keeps them (see
	// scheduler.Restore); a pod's own NominatedNodeName is
	// another way to give one.
	Nominations []queue.Nomination
	// Devices are the DRA objects (device classes, resource slices,
	// claims with their allocations, claim templates); nil: none.
	Devices *dra.Objects
	// Volumes are the storage objects (volumes, claims, classes, CSI
	// objects); nil: none.
	Volumes *volume.Objects
	// Config is the scheduler configuration; nil means config.Default().
	Config *config.Config
}

// Options tune a run.
type Options struct {
	// Registry holds the plugin factories the configuration names.
	// Required.
	Registry runtime.Registry
	// PercentageOfNodesToScore overrides the global percentage. Unset, the
	// configuration's global value is used if it sets one (0, kube's
	// adaptive default, included), else 100 (every node is filtered and
	// scored), as kubeoracle does.
	PercentageOfNodesToScore *int32
	// MaxPreemptionRetries is how many times a pod that got a node
	// nominated is retried at once. 0 means 1 (kubeoracle's default); a
	// negative value disables the retry.
	MaxPreemptionRetries int
	// Logger defaults to discarding.
	Logger *slog.Logger
	// NoResultMemo runs every plugin on every node for every pod (see
	// scheduler.Replay.NoResultMemo); tests compare the two.
	NoResultMemo bool
	// NoIncrementalIndexes makes plugins rebuild their cross-node state
	// for every pod (see scheduler.Replay.NoIncrementalIndexes); tests
	// compare the two.
	NoIncrementalIndexes bool
	// NoPreemptionMemo dry-runs every preemption candidate anew (see
	// scheduler.Replay.NoPreemptionMemo); tests compare the two.
	NoPreemptionMemo bool
	// NoScoreCarry scores from each node's memo, not from the filter
	// pass's copy (see scheduler.Replay.NoScoreCarry); tests compare the
	// two.
	NoScoreCarry bool
	// NoDevicePrecheck sends every node to the DRA allocator (see
	// scheduler.Replay.NoDevicePrecheck); tests compare the two.
	NoDevicePrecheck bool
	// NoDeviceSliceFilter hands the DRA allocator every slice as it is
	// (see scheduler.Replay.NoDeviceSliceFilter); tests compare the two.
	NoDeviceSliceFilter bool
	// NoDeviceNodeMemo runs the DRA allocator on every node asked about
	// (see scheduler.Replay.NoDeviceNodeMemo); tests compare the two.
	NoDeviceNodeMemo bool
}

// Results of a Line.
const (
	ResultBound         = "bound"
	ResultNominated     = "nominated"
	ResultUnschedulable = "unschedulable"
	ResultGated         = "gated"
	ResultError         = "error"
	ResultSkipped       = "skipped"
	// ResultDeallocated: DynamicResources' PostFilter deallocated a claim
	// of the pod (allocated where the pod cannot run); the pod is tried
	// again at once.
	ResultDeallocated = "deallocated"
)

// TieBreakSmallestName marks a bind among several top-scoring nodes.
const TieBreakSmallestName = "smallest-node-name"

// baseTime is the creation time manifests without one start from; the
// simulated clock starts an hour after the latest creation time.
var baseTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Run simulates the cluster and returns one Line per attempt (and per pod
// refused, skipped or gated), in order: an Engine holding the cluster less
// its pods, scheduling the pods.
func Run(ctx context.Context, in Input, opts Options) ([]Line, error) {
	pods := in.Pods
	in.Pods = nil
	e, err := New(ctx, in, opts)
	if err != nil {
		return nil, err
	}
	atts, err := e.Schedule(ctx, pods)
	lines := make([]Line, len(atts))
	for i, a := range atts {
		lines[i] = a.Line
	}
	return lines, err
}

// ConfigError is returned by New and Run when no scheduler can be built
// from the configuration (an unknown plugin, invalid plugin args, ...).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "simulate: " + e.Err.Error() }

func (e *ConfigError) Unwrap() error { return e.Err }
