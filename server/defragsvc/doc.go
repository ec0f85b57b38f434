// Package defragsvc is berthd's defragmenter (--defragment): it finds the
// pending pods, and the pod groups whose members are all there, that have
// waited at least one check interval since their last attempt failed
// without preemption nominating a node (they fit nowhere and cannot
// preempt), searches a plan of moves for each with core/deschedule/defrag
// on a copy of the live cluster, and commits one framework.Plan per
// waiting pod or group: an Evict with cause DEFRAGMENT for every moved pod
// (within its PodDisruptionBudgets as the eviction API applies them), and
// a Nomination of each waiting pod to the node planned for it, so the
// scheduler holds the freed room for it as it holds a preemptor's.
//
// A committed plan is followed at every check until it ends: completed
// when every waiting pod is bound where planned; abandoned, its
// nominations cleared, when a waiting pod is deleted, binds or is
// nominated elsewhere, or the plan is not done within its bound (the moved
// pods not deleted, or the waiting pods not bound). A nomination the
// scheduler drops while the moved pods are still going is given back. At
// most one plan is in flight per waiting pod or group, a pod is evicted at
// most once (the decision log refuses a second Evict), and a waiting pod
// or group whose search found nothing, or whose plan was refused or
// abandoned, is searched again only after the bound.
//
// Data comes from the scheduler's read side (View); it goes out through
// the scheduler's controller planner (scheduler.ControllerDecisions) to
// the decision log, and as berth_defragment_* metrics and one log line
// per plan.
package defragsvc
