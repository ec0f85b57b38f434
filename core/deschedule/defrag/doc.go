// Package defrag is Berth's defragmentation for pending pods and gangs
// that fit nowhere and cannot preempt: a bounded search for a small set
// of moves of movable pods (the DefaultEvictor's rules, budgets allowing)
// after which every waiting pod fits, each moved pod re-placed by Berth's
// own scheduler (core/simulate) on another node. No pod is moved twice in
// one plan; the search stops at MaxMoves moves or its deadline.
//
// Data comes in as the cluster (core/deschedule.Cluster), the waiting pods
// and the scheduler's configuration; a Plan of moves and the node each
// waiting pod is then placed on goes out. Nothing is committed.
//
// The search, per waiting pod in order (a gang's members one after the
// other on the cluster as the earlier members' moves leave it): for each
// node, the sets of movable pods whose requests cover the pod's shortfall
// there, fewest pods first and largest pods first among sets of a size (at
// most 32 simulated per node); a set is kept if, on a copy of the cluster
// without its pods, the scheduler binds the waiting pod there and then
// every moved pod elsewhere (preemption off throughout). The node needing
// the fewest moves wins, ties by name. A gang's members are placed as pods
// (their group stripped): Find places all of them or none.
package defrag
