package store

import (
	"context"
	"time"
)

// Store is Berth's durable state. Implementations are safe for concurrent use.
//
// Revisions start at 1 and increase by one per record, across restarts and
// compactions: a revision is never reused.
type Store interface {
	// Commit applies b atomically and returns once it is durable: the
	// records are appended to the log with consecutive revisions and the
	// keyspace operations are applied in order, or nothing is. Concurrent
	// commits are ordered; their records never interleave. If ctx ends
	// before the store took the batch, nothing is applied; if it ends while
	// the batch is being written, Commit returns ctx's error and the batch
	// may or may not be durable (Read tells). Commit does not keep b's slices.
	Commit(ctx context.Context, b *Batch) (CommitResult, error)

	// Read returns up to limit records (all when limit <= 0) with revisions
	// from `from` on (0 reads as 1), in revision order; none when from is
	// past the last revision. If any record from `from` on was removed by
	// compaction it returns a *CompactedError: read from its Oldest instead.
	// A damaged record ends what is returned: the intact records before it
	// come back without an error, and a read from it fails with a
	// *CorruptRecordError naming it. Payloads are shared: do not modify them.
	Read(ctx context.Context, from uint64, limit int) ([]Record, error)

	// Revisions returns the oldest retained and the newest revision. In a
	// store that never committed a record they are 1 and 0.
	Revisions() (first, last uint64)

	// Wait returns nil as soon as the newest revision is above after, the
	// context's error if ctx ends first, or ErrClosed if the store closes.
	// Waiting never holds up Commit.
	Wait(ctx context.Context, after uint64) error

	// Get returns the value stored under key in space; ok is false when
	// there is none. The value is a copy. Keyspace values are derived or
	// recomputable: a damaged one (its checksum fails) reads as absent,
	// and the backend logs and counts it.
	Get(space Space, key []byte) (value []byte, ok bool, err error)

	// List returns every pair in space, ordered by key, as copies, leaving
	// out damaged values as Get does.
	List(space Space) ([]KV, error)

	// Compact applies the retention policy now and returns how many
	// records it removed. It never removes the newest record.
	Compact(ctx context.Context) (removed int, err error)

	// Close waits for accepted commits to finish, stops background work
	// and releases the data. Later calls fail with ErrClosed.
	Close() error
}

// Record is one entry of the decision log.
type Record struct {
	Revision uint64
	Time     time.Time // when the record was committed, by the store's clock
	Payload  []byte    // opaque to the store
}

// CommitResult says where a committed batch's records landed.
type CommitResult struct {
	// First and Last are the revisions of the batch's first and last
	// records; both are zero when the batch had no records.
	First, Last uint64
	// Time is the commit time stamped on the records.
	Time time.Time
}

// Revision returns the revision of the batch's i-th record.
func (r CommitResult) Revision(i int) uint64 { return r.First + uint64(i) }

// KV is one key/value pair of a keyspace.
type KV struct {
	Key, Value []byte
}
