// Package decisionlog is the durable decision log: it turns the
// scheduler's decisions into berth.v1 Decisions appended to the store, and
// streams them back to watchers.
//
// Data comes in as plans (framework.Plan) through Submit, the one
// framework.Planner Log implements (plan.go): the scheduler's cycles and
// binding cycles, and the eviction producers (server/eviction for taints
// and the eviction API, server/pressuresvc) all submit there. One encoder
// per decision kind turns each decision into its record and the keyspace
// changes it implies, and a plan is one store.Batch, one group commit: a
// Bind writes its ledger record and ends the pod's nomination; a Nominate
// puts store.Nominations, a ClearNomination deletes it; an Evict writes its
// ledger record; a Bind with claims also puts the claims, with their
// allocations, in store.Claims, and a DeallocateClaim deletes its claim
// there (claims.go: writes of one claim are serialized, and a deallocation
// overtaken by a new allocation of the claim is dropped); an Unschedulable
// puts its message in store.Unschedulable, and one repeating the pod's
// last message is not written. Plans commit concurrently, so the store
// groups them into shared transactions; Submit returns once its plan is
// durable. A single decision is a one-item plan (framework.SubmitOne); a
// failed scheduling attempt's decisions (a preemption's Evicts and
// ClearNominations, the pod's Nominate and Unschedulable) are one plan,
// and so are a group cycle's Binds. A Bind nobody waits for any more and
// a second Evict of a pod are refused item by item (PlanResult.Refused).
// Binds and Evicts awaiting their outcome are the ledger's records
// (server/ledger): the log opens them in the ledger around their commit (a
// Bind is recorded before its commit, since a watcher may see it and
// report its outcome before the commit returns).
//
// The log has an identity (ID), created with the data directory and sent
// in every WatchResponse, so that a watcher can tell its revisions came
// from another log.
//
// Data goes out through Watch: a watcher reads the log from its revision
// and waits for more, on its own goroutine, so a slow watcher only falls
// behind (and catches up from the log) without holding up the scheduler or
// other watchers. Responses are bounded in bytes. Reading below the oldest
// retained revision fails with a *store.CompactedError, beyond the end of
// the log with an *AheadError; the service maps both to OUT_OF_RANGE.
//
// The ledger's rules (ledger.Outcomes) remove the durable copies of its
// records through Remove and ForgetPod; a pod's deletion, or its arrival
// bound by the orchestrator, also drops its nomination and Unschedulable
// message. Removals run in the background,
// grouped (Remove can wait for durability). After a restart, Recover reads
// the nominations and messages back, and RecoverClaims the allocated
// claims (for the scheduler's RestoreClaims, before the re-list).
//
// The payload of a record is a berthv1.Decision without revision and time:
// both come from the store's record, so a decision read after a restart is
// the one sent before it.
package decisionlog
