// Package decisionlog is the durable decision log: it turns the
// scheduler's decisions into berth.v1 Decisions appended to the store. It
// only encodes and appends; server/watch streams the log back to watchers
// with the one decoder of its records, Decode.
//
// Data comes in as plans (framework.Plan) through Submit, the one
// framework.Planner Log implements (plan.go): the scheduler's cycles and
// binding cycles, and the eviction producers (server/eviction for taints
// and the eviction API, server/pressuresvc) all submit there. One encoder
// per decision kind turns each decision into its record and the keyspace
// changes it implies, and a plan is one store.Batch, one group commit: a
// Bind writes its book record and ends the pod's nomination; a Nominate
// puts store.Nominations, a ClearNomination deletes it; an Evict writes its
// book record; a Bind with claims also puts the claims, with their
// allocations, in store.Claims, and a DeallocateClaim deletes its claim
// there (writes of one claim are serialized by the book's HoldClaims, and
// a deallocation overtaken by a new allocation of the claim is dropped);
// an Unschedulable puts its message in store.Unschedulable, and one
// repeating the pod's last message is not written. Plans commit
// concurrently, so the store groups them into shared transactions; Submit
// returns once its plan is durable. A single decision is a one-item plan
// (framework.SubmitOne); a failed scheduling attempt's decisions (a
// preemption's Evicts and ClearNominations, the pod's Nominate and
// Unschedulable) are one plan, and so are a group cycle's Binds. A Bind
// its producer no longer awaits (framework.Bind.Awaiter) and a second
// Evict of a pod are refused item by item (PlanResult.Refused).
//
// The log only encodes and appends: what its decisions make durable about
// a pod it tells the book of per-pod facts (server/podbook), which is
// the only one to remember, restore and remove those facts. The log calls
// the book, never the reverse (a Bind is recorded in the book before its
// commit, since a watcher may see it and report its outcome before the
// commit returns).
//
// The log has an identity (ID), created with the data directory by the
// first Recover and sent in every WatchResponse, so that a watcher can
// tell its revisions came from another log; ReadID reads it without
// creating it, for a follower replica.
//
// The payload of a record is a berthv1.Decision without revision and time:
// both come from the store's record, so a decision read after a restart is
// the one sent before it.
package decisionlog
