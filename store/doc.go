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
// policy. Below it, as etcd splits mvcc from its backend, logstore is the log
// layer both backends share (revisions, Wait, the tail, the intake and close
// protocol, compaction's loop, keyspace values' checks) and the backends are
// thin sub-packages over it: bboltstore (bbolt and its write-ahead file, the
// embedded default) and etcdstore (fenced etcd transactions and a watch);
// checksum is their shared CRC-32C and storetest the contract both pass.
// The store never decodes payloads and imports nothing from api/ or server/.
package store
