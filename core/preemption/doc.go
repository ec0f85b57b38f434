// Package preemption is kube-scheduler's preemption evaluator: when no node
// fits a pod, it looks for a node where evicting lower-priority pods would
// let the pod in, evicts the fewest and least important of them, and
// nominates the pod to that node.
//
// The flow of Evaluator.Preempt, with kube's semantics:
//
//  1. Eligibility: a pod with preemptionPolicy Never never preempts; a pod
//     nominated to a node where a lower-priority pod is terminating by
//     preemption (model.Pod.TerminatingByPreemption: the scheduler marks
//     the victims it evicted so, and callers may report others) waits for
//     it instead of preempting again, unless its nominated node is now
//     UnschedulableAndUnresolvable. Pods terminating for another reason do
//     not hold it back.
//
//  2. Candidates: the nodes whose filter status was Unschedulable (never
//     the UnschedulableAndUnresolvable ones, where evicting cannot help) are
//     dry-run in parallel, starting at an offset (random, or 0 when
//     deterministic), until max(minCandidateNodesPercentage% of them,
//     minCandidateNodesAbsolute) candidates are found, at least one of them
//     violating no disruption budget. A dry run works on a clone of the
//     NodeInfo and of the CycleState: it removes every lower-priority pod,
//     checks the filters (with nominated pods, as the cycle does), then adds
//     pods back ("reprieves" them), most important first and those whose
//     eviction would violate a budget before the others, keeping as victims
//     only those without which the pod does not fit.
//
//     Budgets: a victim is charged to every budget of its namespace whose
//     selector matches its labels, and violates one when that budget's
//     allowance (DisruptionsAllowed) goes below zero. As in kube, a budget
//     with an empty (or missing) selector matches no pod here, although an
//     empty selector covers the whole namespace when the allowance is
//     computed; a pod without labels is covered by none; a pod a budget
//     lists in DisruptedPods was counted already and is not charged to it
//     again.
//
//     Equally important pods (same priority and start time) are reprieved
//     in the order kube's (unstable) sort leaves them in from the node's
//     pod order, which removals change as kube's do.
//
//  3. Choice: fewest budget violations; lowest highest-victim priority;
//     smallest sum of victim priorities (each shifted by 2^31 so negatives
//     count); fewest victims; latest start time among the highest-priority
//     victims; then the smallest node name when deterministic, else the
//     first candidate found.
//
//  4. Execution: each victim not already terminating gets an Evict decision
//     naming the preemptor, after which the scheduler holds it as
//     terminating by preemption until it is deleted (a victim held at
//     Permit is rejected in memory instead, and goes back to the queue);
//     lower-priority pods nominated to the node lose their
//     nomination (ClearNomination). The caller nominates the preemptor from
//     the returned PostFilterResult; the pod waits in the queue until the
//     victims are gone, and its nomination keeps lower-priority pods off the
//     room meanwhile.
//
// Synchronous preemption. kube-scheduler 1.36 preempts asynchronously
// (SchedulerAsyncPreemption, on by default since 1.33): PostFilter returns
// once the candidate is chosen, and a goroutine then clears the lower
// nominations and deletes the victims through the API, while the
// DefaultPreemption PreEnqueue plugin keeps the preemptor out of the queue
// until the deletions are issued. Berth executes within PostFilter, as
// kube does with the gate off: its Evict is a durable decision, not a slow
// API call, and the victims are held as terminating by preemption as soon
// as it is out. What can be observed differs only in timing and order:
//   - in Berth's decision stream a preemption's Evicts come first, then
//     its ClearNominations, then the preemptor's Nominate; kube clears
//     nominations before deleting, and the preemptor's nominatedNodeName
//     may be set before its victims are terminating;
//   - kube schedules other pods while the deletions are in flight, and
//     they still see the victims as running; Berth's next cycle already
//     sees them terminating (not healthy for budgets, skipped by topology
//     spread counts, not evicted again);
//   - a failed Evict makes the attempt unschedulable, the error in its
//     message, as kube's synchronous path does: the preemptor waits for a
//     cluster event like any unschedulable pod (the Evicts already out
//     stand); kube's goroutine logs the failed deletion and moves the
//     preemptor back to the active queue;
//   - there is no "waiting for the preemption for this pod to be finished"
//     gating: a preemptor retried early finds its victims terminating by
//     preemption and waits for them (not eligible), which is where kube's
//     preemptor ends up once its deletions are issued.
//
// Limits, as in kube: preemption is per node, never across nodes (a pod
// whose required pod affinity or topology spread needs pods on other nodes
// to go is not helped); and since the dry run first removes every
// lower-priority pod, a pod whose required pod affinity only lower-priority
// pods satisfy finds no candidate where they run.
//
// Data comes from the framework.Handle: the snapshot (SnapshotSharedLister),
// the filters (PluginRunner), the nominator, the disruption budgets (PDBs)
// and the decision sink.
package preemption
