// Package gang is Berth's gang scheduling: pod groups (model.PodGroup)
// whose pods are placed all-or-nothing, as kube-scheduler 1.37's
// GangScheduling plugin (GenericWorkload, scheduling.k8s.io/v1beta1) places a
// PodGroup.
//
// It has three parts, each behind a narrow interface to the scheduling loop
// (core/scheduler/gang.go is the glue):
//
//   - Registry: the groups and the pods that name them. A group's spec is
//     fixed at creation (ErrSpecImmutable).
//   - Gate: a PreEnqueue plugin holding a member out of the active queue
//     until its group exists and MinCount of its pods are known (pending or
//     placed), as kube's PreEnqueue does; the scheduler re-checks gated
//     members when the group or a member arrives.
//   - Place: one group cycle. Members are tried in queue order, each on the
//     state left by the members placed before it (the Placer assumes them);
//     when at least Need of them fit, every member that fit is kept (and
//     bound together), otherwise every placement is undone: nothing is held
//     between cycles, so two groups that fit alone but not together cannot
//     deadlock.
//
// Once a group has MinCount members placed (bound or assumed), later
// members are ordinary pods of the group: each is scheduled on its own.
//
// The scheduler side (core/scheduler/gang.go, gangpreempt.go) runs the
// Placer over its cache, restricts a cycle to one topology domain, and
// plans preemption for a whole group; docs/gang-scheduling.md says what
// Berth promises.
package gang
