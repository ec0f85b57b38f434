// Package store declares Berth's durable state: an append-only decision log
// with a server-wide monotonic revision, and a few small keyspaces (pending
// nominations, outstanding assumed binds, evictions not carried out yet,
// server metadata) that restart needs.
//
// The server encodes each decision (bind, evict, nominate, clear-nomination,
// unschedulable) into an opaque payload and commits it, together with the
// keyspace changes it implies, as one Batch. Commit returns once the batch is
// durable; only then may the decision be sent to watchers. Watchers Read from
// a revision and Wait for more. Old records are removed by a Retention policy;
// reading below the oldest retained revision fails with a *CompactedError.
//
// The package holds the interface, the value types and the pure parts of the
// policy; backends live in sub-packages (bboltstore is the embedded default).
// The store never decodes payloads and imports nothing from api/ or server/.
package store
