// Package fullloop runs a cluster through Berth's real scheduling loop
// until nothing more can be placed, as kubeoracle's throughput mode
// (--print-placements) runs kube-scheduler's, and reports where each pod
// ended and which pod groups were bound.
//
// core/simulate gives each pending pod one attempt, which is what a trace
// compares; a gang is not a pod at a time: its members wait at PreEnqueue
// until MinCount of them exist, a group cycle places them together or not
// at all, group preemption evicts for the whole group and the members go
// back to the queue. Only the loop itself shows that, so this package
// drives core/scheduler as berthd does, with the decision seam played by
// an orchestrator that confirms every bind at once and deletes every
// victim at once.
//
// Data in: an Input (nodes, running and pending pods, priority classes,
// pod groups, namespaces, disruption budgets, a configuration), read from
// manifests by core/manifest. Data out: a Result with one PodLine per pod
// that was pending or was evicted by the run, and one GroupLine per pod
// group. berthctl simulate prints them for manifests with pod groups;
// core/gang's parity test holds them to the real kube-scheduler's loop.
//
// Where it differs from the live daemon: cycles run one at a time on the
// caller's goroutine with binds inline (scheduler.Replay.BindInline), ties
// go to the smallest node name (Deterministic), and backoffs do not wait:
// a pod in backoff is tried at its turn in the loop's order.
package fullloop
