// Package bboltstore is the embedded store.Store: one bbolt file, berth.db,
// in the data directory, locked against a second process, with a
// write-ahead file, berth.wal, in front of it.
//
// Commit hands its batch to a single committer goroutine that writes many
// batches as one frame of the write-ahead file (group commit) and syncs it
// once, with one fdatasync, for all of them; the callers return after that.
// An applier goroutine copies the groups into bbolt, many per transaction
// (bbolt's commit syncs twice), and Open replays the groups bbolt lacks after
// a crash. New records also go to a bounded in-memory tail, so followers
// close to live read without touching bbolt, and a channel that is closed and
// replaced on every commit wakes them. A background goroutine applies the
// retention policy.
//
// The buckets and the record format are declared in schema.go; store.go has
// Open and Close, commit.go the committer, wal.go the write-ahead file,
// apply.go the applier, read.go the read side and compact.go compaction.
package bboltstore
