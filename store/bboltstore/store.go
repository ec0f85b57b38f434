package bboltstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/logstore"
)

// Defaults for the zero Options fields.
const (
	DefaultLockTimeout     = 500 * time.Millisecond
	DefaultMaxBatch        = 256
	DefaultMaxDelay        = 2 * time.Millisecond
	DefaultTailSize        = 4096
	DefaultCompactInterval = time.Minute
)

// reqQueue is how many groups of MaxBatch requests may queue for the
// committer before Commit blocks.
const reqQueue = 8

// Options configure a Store. The zero value is usable.
type Options struct {
	// LockTimeout bounds the wait for the data file's lock;
	// 0 means DefaultLockTimeout.
	LockTimeout time.Duration
	// MaxBatch is the most Commit batches written in one transaction;
	// 0 means DefaultMaxBatch.
	MaxBatch int
	// MaxDelay is how long, under load, the committer may hold a group
	// open for more batches; 0 means DefaultMaxDelay and a negative value
	// never waits. An idle committer never waits.
	MaxDelay time.Duration
	// TailSize is how many recent records are kept in memory for
	// followers; 0 means DefaultTailSize and a negative value keeps none.
	TailSize int
	// Retention is the compaction policy; the zero value keeps everything.
	Retention store.Retention
	// CompactInterval is how often the policy is applied in the background;
	// 0 means DefaultCompactInterval and a negative value never (Compact
	// still works). Nothing runs when Retention is zero.
	CompactInterval time.Duration
	// Clock stamps records and judges their age; nil means time.Now.
	Clock func() time.Time
	// Logger receives background compaction failures and damaged
	// keyspace values skipped; nil discards them.
	Logger *slog.Logger
	// WALSize is the write-ahead file's preallocated size in bytes; 0
	// means DefaultWALSize.
	WALSize int64
	// ApplyInterval is how long the applier lets groups gather before it
	// copies them into bbolt in one transaction; 0 means
	// DefaultApplyInterval and a negative value never waits.
	ApplyInterval time.Duration
	// FS is the file layer; nil means OSFS.
	FS FS
	// AcceptTruncatedLog opens a store whose write-ahead file ends before
	// its high-water mark (the filesystem lost acknowledged groups), with
	// the shortened history and an error logged, instead of failing with a
	// *store.LogTruncatedError. The lost revisions are handed out again.
	AcceptTruncatedLog bool
	// RetryMin and RetryMax bound the exponential backoff between
	// attempts to write again after a write failed (store.ErrUnavailable);
	// 0 means DefaultRetryMin and DefaultRetryMax.
	RetryMin, RetryMax time.Duration

	// applyFault, when set, runs in every transaction that copies groups
	// into bbolt, and an error from it fails the transaction (tests).
	applyFault func() error
}

func (o Options) withDefaults() (Options, error) {
	if err := o.Retention.Validate(); err != nil {
		return o, err
	}
	if o.MaxBatch < 0 || o.LockTimeout < 0 || o.WALSize < 0 || o.RetryMin < 0 || o.RetryMax < 0 {
		return o, fmt.Errorf("bboltstore: negative MaxBatch %d, LockTimeout %v, WALSize %d, RetryMin %v or RetryMax %v",
			o.MaxBatch, o.LockTimeout, o.WALSize, o.RetryMin, o.RetryMax)
	}
	o.RetryMin = cmp.Or(o.RetryMin, DefaultRetryMin)
	o.RetryMax = max(cmp.Or(o.RetryMax, DefaultRetryMax), o.RetryMin)
	if o.FS == nil {
		o.FS = OSFS{}
	}
	o.LockTimeout = cmp.Or(o.LockTimeout, DefaultLockTimeout)
	o.MaxBatch = cmp.Or(o.MaxBatch, DefaultMaxBatch)
	o.WALSize = cmp.Or(o.WALSize, DefaultWALSize)
	o.CompactInterval = cmp.Or(o.CompactInterval, DefaultCompactInterval)
	o.MaxDelay = defaultOrNone(o.MaxDelay, DefaultMaxDelay)
	o.ApplyInterval = defaultOrNone(o.ApplyInterval, DefaultApplyInterval)
	o.TailSize = defaultOrNone(o.TailSize, DefaultTailSize)
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// defaultOrNone reads an option where 0 means the default and a negative
// value means none (0).
func defaultOrNone[T int | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Store is the bbolt implementation of store.Store, with a write-ahead
// file in front (wal.go): Commit returns once its group's frame is synced
// there, and the applier copies groups into bbolt in the background. Reads
// from bbolt first wait for the groups written before them. The log layer
// (store/logstore) keeps the revisions, the tail, the intake and close
// protocol and the keyspace values' checks.
//
// Lock order: the intake's compactMu, then its closeMu, then writeMu, then
// the revisions' lock; applyMu is a leaf. Only compactMu is held across a
// bbolt transaction; writeMu is held across a write-ahead frame's write
// and sync.
type Store struct {
	db   *bolt.DB
	wal  *wal // written by the committer only
	path string
	opts Options

	in     *logstore.Intake[*request] // commits to the committer; Close
	revs   *logstore.Revisions        // set by Open (load)
	values *logstore.Values

	// bg ends background compaction; cancelled by Close.
	bg       context.Context
	cancelBG context.CancelFunc

	// checksumFrom is the first revision whose record carries a checksum
	// (checksumFromKey); set by Open.
	checksumFrom uint64

	health *health

	// writeMu is held by whoever writes a group: the committer, or a
	// caller writing its own (writeInline). It guards what follows.
	writeMu sync.Mutex
	inline  [1]*request // writeInline's group
	// groupedUntil: after a group of several commits, until when (Unix
	// nanoseconds by Options.Clock) the next commits go to the committer
	// (writeInline); 0 after a single one.
	groupedUntil atomic.Int64
	lastSync     time.Duration  // how long the last group's write and sync took
	next         uint64         // revision of the next record
	clock        logstore.Clock // record times never go back
	// failed is set when a write of the write-ahead file failed: commits
	// are refused until a retry (wal.clear, at retryAt) succeeds.
	failed     error
	retry      backoff
	retryAt    time.Time
	retryTimer *time.Timer // fires at retryAt, so that an idle store recovers; the committer waits on it

	// written is the sequence number of the last group in the write-ahead
	// file; set by the committer before it answers the group's callers.
	written atomic.Uint64

	applyMu   sync.Mutex
	apply     applier
	applyWake chan struct{} // cap 1: groups are queued
	applyNow  chan struct{} // cap 1: someone waits for them
	applyStop chan struct{} // closed by Close once the committer is done
	applyDone chan struct{} // closed when the applier has returned

	stats struct{ txs, batches, records, applies, inline atomic.Uint64 }
}

var _ store.Store = (*Store)(nil)

// Open opens, creating if needed, the store in dir (its data file is
// dir/berth.db). If another process holds the file it fails, after
// LockTimeout, with an error wrapping store.ErrLocked; if the file has a schema
// version this build does not support, with a *store.SchemaVersionError.
// ctx is checked before the file is opened; LockTimeout bounds the wait.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("bboltstore: create data dir: %w", err)
	}
	path := filepath.Join(dir, fileName)
	db, err := openBolt(path, opts)
	if err != nil {
		return nil, err
	}
	s := &Store{
		db:   db,
		path: path,
		opts: opts,
		// Room for several groups: under load, committers queue here
		// without blocking (a blocked sender costs a second wakeup).
		in:        logstore.NewIntake[*request]("bboltstore", reqQueue*opts.MaxBatch),
		values:    logstore.NewValues(opts.Logger),
		applyWake: make(chan struct{}, 1),
		applyNow:  make(chan struct{}, 1),
		applyStop: make(chan struct{}),
		applyDone: make(chan struct{}),
		apply:     applier{done: make(chan struct{})},
		health:    newHealth(opts.Logger),
		retry:     backoff{min: opts.RetryMin, max: opts.RetryMax},
	}
	// The data file's lock is held: no other process uses the write-ahead
	// file either.
	if s.wal, err = openWAL(opts.FS, dir, opts.WALSize); err != nil {
		return nil, errors.Join(fmt.Errorf("bboltstore: %w", err), db.Close())
	}
	if err := guard(path, s.load); err != nil {
		return nil, errors.Join(err, s.wal.close(), db.Close())
	}
	s.bg, s.cancelBG = context.WithCancel(context.Background())
	// Made before any commit can fail a write and arm it.
	s.retryTimer = time.NewTimer(time.Hour)
	s.retryTimer.Stop()
	go s.applyLoop()
	s.in.Go(s.commitLoop)
	if opts.Retention != (store.Retention{}) && opts.CompactInterval > 0 {
		s.in.Every(opts.CompactInterval, s.compactInBackground)
	}
	return s, nil
}

// Close waits for the batches already handed to the committer to be
// written, stops the background work and closes the file.
func (s *Store) Close() error {
	s.cancelBG() // a compaction in progress ends early
	if !s.in.Close() {
		return store.ErrClosed
	}
	// The committer is done: the applier copies what is left into bbolt.
	close(s.applyStop)
	<-s.applyDone
	s.revs.Shut()
	return s.in.AfterCompaction(func() error {
		err := s.applyFailure()
		if cerr := s.db.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("bboltstore: close %s: %w", s.path, cerr))
		}
		if cerr := s.wal.close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("bboltstore: close %s: %w", s.wal.path, cerr))
		}
		return err
	})
}

// Path returns the data file's path.
func (s *Store) Path() string { return s.path }

// Stats count the committer's and the applier's work since Open.
type Stats struct {
	Transactions uint64 // groups written to the write-ahead file (one sync each)
	Batches      uint64 // Commit batches they carried
	Records      uint64 // records they appended
	Applies      uint64 // bbolt transactions that copied groups in
	// Inline counts the transactions a caller wrote itself, finding the
	// committer idle (writeInline).
	Inline uint64
}

// Stats returns the counters; Batches/Transactions is the mean group.
func (s *Store) Stats() Stats {
	return Stats{
		Transactions: s.stats.txs.Load(),
		Batches:      s.stats.batches.Load(),
		Records:      s.stats.records.Load(),
		Applies:      s.stats.applies.Load(),
		Inline:       s.stats.inline.Load(),
	}
}

// mapClosed turns bbolt's "not open" into store.ErrClosed.
func mapClosed(err error) error {
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return store.ErrClosed
	}
	return err
}

// Health returns nil while the store can write, or why it cannot (an error
// wrapping store.ErrUnavailable: a full disk, an I/O error), and a channel
// closed at the next change. The store retries with backoff by itself;
// meanwhile it refuses the commits that need the failed write.
func (s *Store) Health() (changed <-chan struct{}, err error) { return s.health.get() }
