// Package etcdstore is store.Store on etcd, for berthd replicas that share
// one decision log (--store etcd): every key lives under a prefix, so that
// several Berth clusters can share one etcd, and the layout (layout.go) is
// documented in store/README.md.
//
// Commit hands its batch to one committer goroutine that packs concurrent
// batches into etcd transactions below etcd's request limits (1.5 MiB, 128
// operations by default). Each transaction appends the records, applies the
// keyspace operations and moves the next-revision key, on two conditions:
// next-revision is still what this store last wrote (no gap, no repeat),
// and the Fence, when set, still holds (the writer's election key still
// exists with its create revision): a deposed leader can never append
// (store.ErrFenced).
//
// Every store, leader or follower, follows the prefix with an etcd watch, so
// Revisions and Wait see another replica's commits; Read, Get and List read
// etcd. Records and keyspace values carry the CRC-32C that bboltstore puts
// on them, and are checked by the log layer both share (store/logstore,
// which also keeps the revisions, Wait, the intake and close protocol and
// the compaction loop). Compaction applies store.Retention as bboltstore does, in fenced
// transactions; freeing etcd's own history is etcd's auto-compaction's job.
//
// store.go has Open and Close, layout.go the keys and encodings, commit.go
// the committer, follow.go the watch, read.go the read side, compact.go
// compaction.
package etcdstore
