// Package admission decides Kueue 0.17's admission over core/quota's
// objects: scheduling cycles that pop the head of every active
// ClusterQueue, assign flavors per resource group (flavorFungibility,
// borrowing through the cohort tree within borrowingLimit and
// lendingLimit, partial admission), pick preemption victims as Kueue's
// classical preemptor does (withinClusterQueue, reclaimWithinCohort,
// borrowWithinCohort) or, with fair sharing, by dominant resource share
// and its two strategies, admit in Kueue's iterator order (classical, or
// the fair-sharing tournament) and requeue the rest (StrictFIFO,
// BestEffortFIFO with its inadmissible list and sticky preemptor).
// ApplyToPods then gates the pods of workloads not admitted and gives the
// others their flavors' node labels and tolerations.
//
// Run follows kueueoracle's loop (../shared/kueueoracle/README.md) so its
// Lines compare with the oracle's line by line: cycle N runs at start + N
// seconds, a preemption's victims release their quota between two cycles
// and are requeued with their cohort tree's inadmissible workloads, and
// the loop stops when no active heap holds a workload or a cycle changed
// nothing.
//
// The tree's usage is the admitted workloads' (Kueue's cache); what a
// cycle's snapshot adds for workloads it does not admit is kept apart
// (scratch) and taken back at the end of the cycle.
//
// Options holds Berth's departures from Kueue, all off by default:
// Progress is the no-livelock rule (a preemptor whose victims are gone is
// tried first; see docs/queueing.md and parity's TestProgress);
// NoThrottle (throttle.go) runs each group of cohort trees on its own
// until quiet, in one pass, and reaches what Kueue's cycles reach once
// quiet (Quiesce, the cycle engine with that stop rule; parity's
// TestNoThrottle); Placement is the seam of placement-aware admission
// (placement.go): for a ClusterQueue with quota.ClusterQueue's
// AdmissionPlacement, a workload that fits its quota is admitted only if
// the PlacementChecker places all its pods.
//
// Not implemented (core/manifest refuses the input that asks for them):
// admission fair sharing, admission checks, TAS.
package admission
