// Package podbook is the one book of durable per-pod facts: what berthd
// must remember about a pod across a crash or a change of leader. It
// holds, in memory and in step with their durable copies:
//   - the records of decisions awaiting their outcome (Record, of a Kind,
//     one key per pod in its kind's keyspace, Kind.Space): a Bind and its
//     revision until the orchestrator confirms it, reports it failed or
//     deletes the pod (the Bind's value carries its claims and volume
//     bindings); an Evict until its victim is deleted;
//   - the pod's nomination (store.Nominations) and the message of its
//     last Unschedulable (store.Unschedulable), facts.go;
//   - the allocated claims (store.Claims), claims.go;
//   - the Kueue workloads admitted (store.Admissions, by workload, not by
//     pod), admissions.go: written by an Admit, deleted by its
//     WorkloadEviction or by ForgetAdmission when the admission controller
//     (server/queuesvc) sees the workload gone;
//   - the last bind reported FAILED (memory only: a repeat is harmless).
//
// Data comes in from two sides, each in one direction:
//   - the decision log (server/decisionlog) writes a fact with the
//     decision that makes it, in the decision's batch, and tells the book:
//     BeginBind and FinishBind around a Bind's commit (a Bind's
//     framework.Bind.Awaiter is asked, under the book's lock, whether the
//     scheduler still awaits it), OpenEviction before an Evict's,
//     Nominated, NominationCleared, Reported, ClaimsWritten, ClaimRemoved
//     after theirs; it calls PrepareWrite before writing a pod's keys and
//     HoldClaims around a plan's claims. The book never calls the log.
//   - the orchestrator's side ends facts through Outcomes, the rules the
//     state service's pod calls go through: a pod arriving bound or a bind
//     report settles its bind, a deletion forgets every fact of the pod
//     (Forget), a complete re-list forgets those restored for pods not
//     re-sent. The book removes the durable copies itself, in the
//     background (settle.go: removals queued while one batch is written go
//     together into the next); a failure is removed durably before the
//     scheduler requeues the pod.
//
// Restore, at start or on becoming the leader, is the one reader of these
// keyspaces: it reads every fact back before the scheduler runs (a bind's
// revision is searched in the log from the hint its value carries) and
// returns them as Facts, whose Scheduler part the daemon hands to
// scheduler.Restore. Outcomes.Resynced, after the orchestrator's re-list,
// is the other half (server/daemon/restart.go runs both).
//
// A restored bind holds its pod on the bind's node, even when the pod is
// re-listed without one, until the bind is settled: no pod is bound twice
// and no node overcommitted across a crash; its volumes stay reserved for
// their claims (issue 30), and a failed report frees them. The object
// store's admission, which runs before Outcomes.AddPod, asks HeldOnNode,
// so such a pod is admitted as the bound pod it is held as (never refused
// for a class gone meanwhile). Such a re-list
// neither confirms the bind nor fails it: as kube reads it, a bind is done
// only when the pod is seen with its node, and a pod seen without one
// while its bind awaits an outcome is one the orchestrator has not acted
// on yet. The bind stays outstanding (Outstanding; the admin API reports
// the pod binding), and a CONFIRMED or FAILED report, or the pod re-sent
// with its node, settles it as before the restart. Restored evictions
// keep their victims terminating by preemption.
//
// New kinds of outcomes fit the same record: an eviction for another
// reason is a KindEvict with its own decision reason; the binds of a
// gang, committed in one batch, are KindBind records sharing
// Record.Group. A new kind declares its keyspace in Kind.Space (and
// store.Spaces), its value in parseValue, and its end in Outcomes.
//
// Lock order: the claim holds (HoldClaims), then the settler's mu, then
// the book's mu, then the facts' and the claim book's mu (leaves); the
// book's mu is held across a Bind's Awaiter (the scheduler's bindsMu, a
// leaf). The decision log calls the book holding none of its own locks.
package podbook
