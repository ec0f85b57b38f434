// Package bboltstore is the embedded store.Store: one bbolt file, berth.db,
// in the data directory, locked against a second process.
//
// Commit hands its batch to a single committer goroutine that writes many
// batches in one bbolt transaction (group commit) and fsyncs once for all of
// them; the callers return after that. New records also go to a bounded
// in-memory tail, so followers close to live read without touching bbolt, and
// a channel that is closed and replaced on every commit wakes them. A
// background goroutine applies the retention policy.
//
// The buckets and the record format are declared in schema.go; store.go has
// Open and Close, commit.go the committer, read.go the read side and
// compact.go compaction.
package bboltstore
