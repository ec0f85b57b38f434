package scheduler

import (
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
)

// Result is how a scheduling attempt ended.
type Result string

const (
	// ResultScheduled: a node was chosen and the pod assumed there; the
	// binding cycle took over (or, with Replay.BindInline, already ran:
	// see Attempt.BindStatus).
	ResultScheduled Result = "scheduled"
	// ResultUnschedulable: no node fits (or Reserve/Permit rejected the
	// pod). Preemption may have nominated a node: Attempt.NominatedNode.
	ResultUnschedulable Result = "unschedulable"
	// ResultError: an internal error; the pod is retried after backoff.
	ResultError Result = "error"
	// ResultSkipped: the pod was not tried (no profile for its
	// schedulerName, being deleted, or already assumed).
	ResultSkipped Result = "skipped"
)

// Attempt records one scheduling cycle: what was evaluated and why it ended
// as it did. Run discards it; deterministic drivers (core/simulate) and
// tests read it.
type Attempt struct {
	Pod     *model.Pod // the version that was scheduled
	Profile string
	Result  Result
	// Node is the chosen node (ResultScheduled).
	Node string
	// NominatedNode is the node preemption nominated the pod to
	// (ResultUnschedulable with PostFilter success).
	NominatedNode string
	// Message is kube's failure message ("0/3 nodes are available: ...")
	// or the error, empty on success.
	Message string
	// Status is the failure status, nil on success.
	Status *framework.Status
	// FitError is the diagnosis when no node fit.
	FitError *framework.FitError

	// Feasible lists the nodes that passed Filter, in evaluation order.
	Feasible []string
	// ViaNominatedNode: the pod's nominated node passed the filters and
	// no other node was evaluated.
	ViaNominatedNode bool
	// Diagnosis holds the per-node statuses of the nodes that failed.
	Diagnosis framework.Diagnosis
	// NumAllNodes is the number of nodes in the snapshot.
	NumAllNodes int
	// Scores are the per-node weighted scores, in Feasible order; nil when
	// nothing was scored.
	Scores []framework.NodePluginScores
	// ScoresReportOnly: only one node was feasible, so kube-scheduler does
	// not score; the scores were computed on a copy of the cycle state for
	// reporting (Replay.ScoreSingleNode).
	ScoresReportOnly bool
	// TopNodes are the nodes with the highest total score, sorted by name.
	TopNodes []string

	// BindStatus is the binding cycle's result with Replay.BindInline
	// (nil: bound).
	BindStatus *framework.Status
	// Evictions counts the victims preemption evicted in this attempt.
	Evictions int

	Start    time.Time
	Duration time.Duration

	// inGroup marks a member's try in a pod group cycle: PostFilter
	// (preemption) does not run for it.
	inGroup bool
	// within, when set, is the only nodes the attempt may choose (a pod
	// group's topology domain); the others are rejected as unresolvable.
	within map[string]bool
	// whatIf marks an Evaluate: every node is filtered, a lone feasible
	// node is scored, PostFilter does not run.
	whatIf bool
	// lean: nobody reads the details (Run's cycles), so Feasible, Scores
	// and TopNodes are not kept.
	lean bool
}
