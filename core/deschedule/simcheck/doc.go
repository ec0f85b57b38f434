// Package simcheck is Berth's check of a descheduling plan against its own
// scheduler: an eviction is kept only if the scheduler, on the cluster
// without the pod (and with the plan's earlier moves applied), places the
// pod's replacement on another node and the violation or imbalance the
// strategy saw is reduced there; otherwise it is skipped with the reason.
// Kubernetes' Descheduler decides with its own fit predicates and no
// scoring, so its evictions can land back where they were; this is what
// Berth adds.
//
// Data comes in as the pass's evictions (core/deschedule) and the cluster
// they were planned on, with the scheduler configuration and plugins; the
// placements come from core/simulate (Berth's one simulation engine); what
// goes out is a Plan of moves and skips. Nothing is committed.
//
// The replacement is the pod as its controller would recreate it: the
// same spec, pending, with preemption off (a move that needs to evict
// others is not a move). What "reduced" means per strategy is in
// reduced.go.
package simcheck
