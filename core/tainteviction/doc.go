// Package tainteviction decides what kube's taint-eviction controller
// (the NoExecute taint manager) would do to a pod bound to a node: evict
// it now, at a deadline, or leave it. It is pure: the caller (in berthd,
// server/tainteviction) keeps the deadlines durably, and passes in the
// deadline scheduled for the pod, if any, and the time.
//
// The rules, as kube's controller applies them:
//   - no NoExecute taint on the node: a scheduled eviction is cancelled;
//   - a NoExecute taint the pod does not tolerate: evicted at once;
//   - every NoExecute taint tolerated: the tolerations used (per taint, the
//     first of the pod's tolerations that matches it) give the smallest
//     tolerationSeconds (any one at or below 0: at once); none with
//     seconds means tolerated forever, and a scheduled eviction is
//     cancelled;
//   - an eviction already scheduled is kept when the taints change (kube
//     compares the scheduled start plus the new minimum with now plus the
//     new minimum, which keeps it whenever it was scheduled before now: a
//     scheduled deadline never moves); otherwise one is scheduled at now
//     plus the minimum.
package tainteviction
