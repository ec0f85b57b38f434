package store

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors. Backends wrap them with %w; test with errors.Is.
var (
	// ErrClosed is returned by every call made after Close.
	ErrClosed = errors.New("store: closed")
	// ErrLocked means another process holds the data directory.
	ErrLocked = errors.New("store: data dir locked")
	// ErrSchemaVersion means the data was written with a schema this build
	// does not know. The error is a *SchemaVersionError.
	ErrSchemaVersion = errors.New("store: unsupported schema version")
	// ErrCompacted means the requested revision was removed by compaction.
	// The error is a *CompactedError carrying the oldest revision left.
	ErrCompacted = errors.New("store: revision compacted")
	// ErrInvalidBatch means a Batch broke a rule of Batch.Validate; nothing
	// of it was applied.
	ErrInvalidBatch = errors.New("store: invalid batch")
	// ErrUnknownSpace means a Space that is not one of Spaces.
	ErrUnknownSpace = errors.New("store: unknown keyspace")
	// ErrCorrupt means the stored data breaks an invariant of the format,
	// or fails its checksum. A damaged record is a *CorruptRecordError.
	ErrCorrupt = errors.New("store: corrupt data")
	// ErrUnavailable means the store cannot write its files now (a full
	// disk, an I/O error): commits are refused, nothing accepted before is
	// lost, and the store retries by itself and accepts commits again once
	// a write succeeds.
	ErrUnavailable = errors.New("store: cannot write")
	// ErrLogTruncated means the write-ahead file ends before groups that
	// were acknowledged (the filesystem lost them): opening would serve a
	// shortened history. The error is a *LogTruncatedError.
	ErrLogTruncated = errors.New("store: write-ahead file lost acknowledged groups")
	// ErrFenced means the writer lost the right to append: a shared store
	// (etcdstore) found its leader's election key gone or replaced, or
	// another writer's records. Nothing of the batch was applied, and the
	// store refuses every later commit: a new leader term opens a new one.
	ErrFenced = errors.New("store: fenced: this writer is no longer the leader")
)

// CorruptRecordError reports a stored record that is damaged (its checksum
// fails, or it is too short to hold its header). It matches ErrCorrupt
// under errors.Is.
type CorruptRecordError struct {
	Revision uint64
	Reason   string
}

func (e *CorruptRecordError) Error() string {
	return fmt.Sprintf("store: record at revision %d is damaged: %s", e.Revision, e.Reason)
}

// Unwrap makes errors.Is(err, ErrCorrupt) hold.
func (e *CorruptRecordError) Unwrap() error { return ErrCorrupt }

// LogTruncatedError reports a write-ahead file that went backwards: it
// ends at revision Last although revisions up to Acked had been
// acknowledged. It matches ErrLogTruncated under errors.Is.
type LogTruncatedError struct {
	Path        string // the write-ahead file
	Last, Acked uint64 // the newest revision found, the newest acknowledged
	Groups      uint64 // commit groups missing
}

func (e *LogTruncatedError) Error() string {
	if e.Acked <= e.Last {
		return fmt.Sprintf("store: %s lost %d acknowledged commit groups (keyspace changes only, no revisions) after revision %d",
			e.Path, e.Groups, e.Last)
	}
	return fmt.Sprintf("store: %s ends at revision %d, but revisions up to %d were acknowledged: %d commit groups (revisions %d-%d) are missing",
		e.Path, e.Last, e.Acked, e.Groups, e.Last+1, e.Acked)
}

// Unwrap makes errors.Is(err, ErrLogTruncated) hold.
func (e *LogTruncatedError) Unwrap() error { return ErrLogTruncated }

// CompactedError reports a read below the oldest retained revision. It
// matches ErrCompacted under errors.Is; use errors.As to get Oldest, the
// revision a reader must restart from after resynchronising.
type CompactedError struct {
	Requested uint64 // the revision asked for
	Oldest    uint64 // the oldest revision still in the log
}

func (e *CompactedError) Error() string {
	return fmt.Sprintf("store: revision %d compacted, oldest retained is %d", e.Requested, e.Oldest)
}

// Unwrap makes errors.Is(err, ErrCompacted) hold.
func (e *CompactedError) Unwrap() error { return ErrCompacted }

// ErrorReason is the reason of the google.rpc.ErrorInfo the API answers a
// compacted revision with (api/berth/v1/decision_service.proto).
func (e *CompactedError) ErrorReason() string { return "REVISION_COMPACTED" }

// ErrorMetadata is that ErrorInfo's metadata: the revision to restart from.
func (e *CompactedError) ErrorMetadata() map[string]string {
	return map[string]string{"oldest_revision": strconv.FormatUint(e.Oldest, 10)}
}

// SchemaVersionError reports data written with a schema version this build
// cannot read. It matches ErrSchemaVersion under errors.Is.
type SchemaVersionError struct {
	Path      string // the data file
	Found     uint64 // the version recorded in the data
	Supported uint64 // the version this build writes and reads
}

func (e *SchemaVersionError) Error() string {
	rel := "older"
	if e.Found > e.Supported {
		rel = "newer"
	}
	return fmt.Sprintf("store: %s has schema version %d, %s than version %d that this berthd supports",
		e.Path, e.Found, rel, e.Supported)
}

// Unwrap makes errors.Is(err, ErrSchemaVersion) hold.
func (e *SchemaVersionError) Unwrap() error { return ErrSchemaVersion }
