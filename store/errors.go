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
	// ErrCorrupt means the stored data breaks an invariant of the format.
	ErrCorrupt = errors.New("store: corrupt data")
)

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
