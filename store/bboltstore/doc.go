// Package bboltstore is the embedded store.Store: one bbolt file, berth.db,
// in the data directory, locked against a second process, with a
// write-ahead file, berth.wal, in front of it.
//
// Commit hands its batch to a single committer goroutine that writes many
// batches as one frame of the write-ahead file (group commit) and syncs it
// once, with one fdatasync, for all of them; the callers return after that.
// A commit that finds the committer idle (no write in progress, nothing
// queued, the last group a single commit) writes its frame itself instead,
// sparing the hand-over and the wake-up back.
// An applier goroutine copies the groups into bbolt, many per transaction
// (bbolt's commit syncs twice), and Open replays the groups bbolt lacks after
// a crash. New records also go to a bounded in-memory tail, so followers
// close to live read without touching bbolt, and a channel that is closed and
// replaced on every commit wakes them. A background goroutine applies the
// retention policy.
//
// The revisions, the tail and Wait, the intake and close protocol, the
// compaction loop and the keyspace values' checks are store/logstore's, the
// log layer etcdstore shares.
//
// Records and keyspace values carry a CRC-32C: a damaged record is refused
// naming it (the intact records before it are still read), a damaged value
// reads as absent, logged and counted (DamagedValues). Open checks the data file's header before bbolt maps it, and
// refuses a write-ahead file that ends before its high-water mark. A failed
// write makes the store refuse the commits that need it and retry with
// backoff until a write succeeds (Health reports it). Every file operation
// goes through an FS, where tests inject faults.
//
// The buckets and the record format are declared in schema.go; store.go has
// Open and Close, load.go what Open reads and replays, header.go the
// header check and bbolt's guarded open, commit.go the committer,
// wal.go the write-ahead file, apply.go the applier, health.go the failure
// state and backoff, fs.go the file layer, read.go the read side,
// compact.go compaction, verify.go the offline check and repair.go the
// offline repair (damaged keyspace values dropped, a copy kept).
package bboltstore
