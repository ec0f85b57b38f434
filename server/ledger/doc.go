// Package ledger is the one home of decisions awaiting their outcome: a
// Bind until the orchestrator confirms it, reports it failed or deletes
// the pod; an Evict until its victim is deleted. Each is a Record of a
// Kind, kept in memory (Ledger) and durably, one key per pod in its kind's
// keyspace (Kind.Space), so any store.Store backend holds it.
//
// Data comes in from two sides:
//   - the decision log (server/decisionlog) opens a record with the
//     decision that makes it, in the same durable batch: BeginBind and
//     FinishBind around a Bind's commit, OpenEviction before an Evict's;
//   - the orchestrator's side closes them through Outcomes, the rules the
//     state service's pod calls go through: a pod arriving bound or a bind
//     report settles its bind, a deletion forgets every record of the pod,
//     a complete re-list forgets those restored for pods not re-sent. A
//     failure is removed durably before the scheduler requeues the pod.
//
// An eviction's record keeps its Evict decision (OpenEviction, Restore),
// which the admin API's Explain reads through Eviction: nobody reads the
// ledger's keyspaces but the ledger.
//
// Outcomes keeps the scheduler's view in step through Scheduler, the
// narrow interface it declares (the scheduler's set of evicted pods, its
// binds in flight), and removes durable copies through Log, which the
// decision log implements (its background remover groups removals into
// few transactions).
//
// After a restart, Restore reads the records back (before the scheduler
// runs); a bind's revision is searched in the log from the hint its value
// carries. A restored bind holds its pod on the bind's node, even when the
// pod is re-listed without one, until the bind is settled: no pod is bound
// twice and no node overcommitted across a crash. Such a re-list neither
// confirms the bind nor fails it: as kube reads it, a bind is done only
// when the pod is seen with its node, and a pod seen without one while
// its bind awaits an outcome is one the orchestrator has not acted on yet.
// The bind stays outstanding (Outstanding; the admin API reports the pod
// binding), and a CONFIRMED or FAILED report, or the pod re-sent with its
// node, settles it as before the restart. Restored evictions keep
// their victims terminating by preemption (NewOutcomes hands them to the
// scheduler).
//
// New kinds of outcomes fit the same record: an eviction for another
// reason (taints, the eviction API, node pressure) is a KindEvict with its
// own decision reason; the binds of a gang, committed in one batch, are
// KindBind records sharing Record.Group. A new kind declares its keyspace
// in Kind.Space (and store.Spaces), its value in parseValue, and its end
// in Outcomes.
//
// Lock order: the ledger's lock is a leaf but for the wanted function
// BeginBind calls under it (the scheduler's binding lock, itself a leaf);
// the decision log calls the ledger holding none of its own locks.
package ledger
