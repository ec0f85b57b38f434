// Package watch streams the decision log to its watchers
// (DecisionService.Watch, the dashboard's decision stream). It only reads:
// the records from the store (Store, the read side of a store.Store:
// Read, Revisions, Wait), each turned into its berth.v1 Decision by the
// log's one decoder (decisionlog.Decode), and the log's identity from
// whoever knows it (decisionlog.Log.ID on the leader; a follower replica
// reads it from the shared store). It writes nothing, so a follower serves
// Watch with a Feed over its read-only view of the store and no decision
// log of its own.
//
// A watcher reads the log from its revision and waits for more, on its
// own goroutine, so a slow watcher only falls behind (and catches up from
// the log) without holding up the scheduler or other watchers; the Feed
// keeps nothing per watch but its position (positions.go), for WatchLag
// (berth_watch_lag_revisions). Responses are bounded in bytes. Reading
// below the oldest retained revision fails with a *store.CompactedError
// (wrapped in a *ReadError naming the log), beyond the end of the log with
// an *AheadError, and a log_id not the log's with a *LogMismatchError;
// server/errmap maps them to OUT_OF_RANGE, OUT_OF_RANGE and
// FAILED_PRECONDITION with their ErrorInfo reasons.
//
// Lock order: positions' mu is a leaf, held only to add, remove or scan
// the positions; no lock is held across a read, a wait or a send.
package watch
