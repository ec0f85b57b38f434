// Package admission decides Kueue 0.17's admission over core/quota's
// objects: scheduling cycles that pop the head of every active
// ClusterQueue, assign flavors per resource group (flavorFungibility,
// borrowing through the cohort tree within borrowingLimit and
// lendingLimit, partial admission), pick preemption victims as Kueue's
// classical preemptor does (withinClusterQueue, reclaimWithinCohort,
// borrowWithinCohort), admit in Kueue's iterator order and requeue the
// rest (StrictFIFO, BestEffortFIFO with its inadmissible list and sticky
// preemptor).
//
// Run follows kueueoracle's loop (../shared/kueueoracle/README.md) so its
// Lines compare with the oracle's line by line: cycle N runs at start + N
// seconds, a preemption's victims release their quota between two cycles
// and are requeued with their cohort tree's inadmissible workloads, and
// the loop stops when no active heap holds a workload or a cycle changed
// nothing.
//
// Not implemented (refused with ErrUnsupported where input asks for it):
// fair sharing, admission fair sharing, admission checks, TAS.
package admission
