package bboltstore

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/berthsched/berth/store"
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
	// Logger receives background compaction failures; nil discards them.
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
// from bbolt first wait for the groups written before them.
//
// Lock order: compactMu, then closeMu, then mu; applyMu is a leaf. Only
// compactMu is held across a bbolt transaction.
type Store struct {
	db   *bolt.DB
	wal  *wal // written by the committer only
	path string
	opts Options

	// closeMu is held shared by Commit while it hands a batch over, and
	// exclusively by Close to stop intake.
	closeMu sync.RWMutex
	closed  atomic.Bool // set under closeMu; read freely

	reqs chan *request // to the committer
	stop chan struct{} // closed by Close: the committer drains and exits
	wg   sync.WaitGroup

	// bg ends background compaction; cancelled by Close.
	bg       context.Context
	cancelBG context.CancelFunc

	// checksumFrom is the first revision whose record carries a checksum
	// (checksumFromKey); set by Open.
	checksumFrom uint64

	health *health

	// Owned by the committer goroutine.
	next     uint64    // revision of the next record
	lastTime time.Time // newest record time; record times never go back
	// failed is set when a write of the write-ahead file failed: commits
	// are refused until a retry (wal.clear, at retryAt) succeeds.
	failed     error
	retry      backoff
	retryAt    time.Time
	retryTimer *time.Timer // fires at retryAt, so that an idle store recovers

	// written is the sequence number of the last group in the write-ahead
	// file; set by the committer before it answers the group's callers.
	written atomic.Uint64

	applyMu   sync.Mutex
	apply     applier
	applyWake chan struct{} // cap 1: groups are queued
	applyNow  chan struct{} // cap 1: someone waits for them
	applyStop chan struct{} // closed by Close once the committer is done
	applyDone chan struct{} // closed when the applier has returned

	compactMu sync.Mutex // one compaction at a time

	mu     sync.RWMutex
	first  uint64         // oldest retained revision; last+1 when the log is empty
	last   uint64         // newest revision, 0 before the first record
	tail   []store.Record // newest records, consecutive revisions, at most 2*TailSize
	notify chan struct{}  // closed and replaced when last advances or the store closes
	shut   bool           // Close has run

	stats struct{ txs, batches, records, applies atomic.Uint64 }
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
		reqs:      make(chan *request, reqQueue*opts.MaxBatch),
		stop:      make(chan struct{}),
		notify:    make(chan struct{}),
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
	go s.applyLoop()
	s.wg.Add(1)
	go s.commitLoop()
	if opts.Retention != (store.Retention{}) && opts.CompactInterval > 0 {
		s.wg.Add(1)
		go s.compactLoop()
	}
	return s, nil
}

// openBolt checks the data file's header and opens it with bbolt.
func openBolt(path string, opts Options) (*bolt.DB, error) {
	if err := checkDataFile(opts.FS, path, filepath.Join(filepath.Dir(path), walFileName)); err != nil {
		return nil, fmt.Errorf("bboltstore: %w", err)
	}
	var db *bolt.DB
	err := guard(path, func() (err error) {
		db, err = bolt.Open(path, 0o600, &bolt.Options{
			Timeout:         opts.LockTimeout,
			FreelistType:    bolt.FreelistMapType,
			NoFreelistSync:  true,
			InitialMmapSize: 256 << 20,
			OpenFile:        opts.FS.OpenDataFile,
		})
		return err
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: another berthd is using the data dir %s (no lock on %s within %v)",
			store.ErrLocked, filepath.Dir(path), path, opts.LockTimeout)
	}
	if errors.Is(err, bolterrors.ErrInvalid) || errors.Is(err, bolterrors.ErrChecksum) || errors.Is(err, bolterrors.ErrVersionMismatch) {
		return nil, fmt.Errorf("bboltstore: corrupt data file %s: %w: %w", path, store.ErrCorrupt, err)
	}
	if err != nil {
		return nil, fmt.Errorf("bboltstore: open %s: %w", path, err)
	}
	return db, nil
}

// guard runs fn, turning a fault on the data file's memory map (bbolt
// reading past the end of a damaged file) or a panic of bbolt's over
// damaged pages into an error wrapping store.ErrCorrupt, instead of a crash.
func guard(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bboltstore: corrupt data file %s: %w: %v", path, store.ErrCorrupt, r)
		}
	}()
	return fn()
}

// load checks or writes the schema version, creates missing buckets,
// replays the write-ahead groups bbolt lacks, checks the high-water mark and
// reads the revisions and the tail.
func (s *Store) load() error {
	var applied uint64
	var mark highWater
	err := s.db.Update(func(tx *bolt.Tx) error {
		walStale, found, err := s.checkSchema(tx)
		if err != nil {
			return err
		}
		if walStale {
			// A new data file (or one from before the write-ahead file):
			// a write-ahead file found belongs to another data file, and
			// its frames must never be replayed into this one. Emptied
			// before the new file is committed, so a crash in between
			// cannot pair the two.
			if err := s.wal.reset(); err != nil {
				return err
			}
		}
		for _, name := range bucketNames() {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return fmt.Errorf("create bucket %q: %w", name, err)
			}
		}
		if found != 0 && found < 3 {
			if err := sealSpaces(tx); err != nil {
				return err
			}
		}
		meta, err := bucket(tx, metaBucket)
		if err != nil {
			return err
		}
		if applied, err = getUint64(meta.Get([]byte(walSeqKey))); err != nil {
			return fmt.Errorf("%s: %w", walSeqKey, err)
		}
		if s.checksumFrom, err = getUint64(meta.Get([]byte(checksumFromKey))); err != nil {
			return fmt.Errorf("%s: %w", checksumFromKey, err)
		}
		if s.next, err = getUint64(meta.Get([]byte(nextKey))); err != nil {
			return fmt.Errorf("%s: %w", nextKey, err)
		}
		mark, err = getHighWater(meta)
		return err
	})
	if err != nil {
		return fmt.Errorf("bboltstore: load %s: %w", s.path, err)
	}
	if err := s.wal.preallocate(); err != nil {
		return fmt.Errorf("bboltstore: %w", err)
	}
	groups, last, err := s.wal.scan(applied)
	if err != nil {
		return fmt.Errorf("bboltstore: replay: %w", err)
	}
	if err := s.replay(groups, last, mark); err != nil {
		return err
	}
	// Everything is in bbolt now: the next frame goes to the file's start.
	s.wal.seq, s.wal.off = last, 0
	s.written.Store(last)
	s.apply.seq = last
	err = s.db.View(func(tx *bolt.Tx) error {
		meta, err := bucket(tx, metaBucket)
		if err != nil {
			return err
		}
		if s.next, err = getUint64(meta.Get([]byte(nextKey))); err != nil {
			return fmt.Errorf("%s: %w", nextKey, err)
		}
		return s.loadLog(tx)
	})
	if err != nil {
		return fmt.Errorf("bboltstore: load %s: %w", s.path, err)
	}
	s.apply.mark = highWater{seq: last, next: s.next}
	return nil
}

// replay copies the groups the scan found into bbolt, after checking that
// the write-ahead file reaches its high-water mark: a file that ends before
// it lost groups that were acknowledged, and opening fails with a
// *store.LogTruncatedError unless Options.AcceptTruncatedLog. The mark then
// moves to where the file ends.
func (s *Store) replay(groups []*walGroup, last uint64, mark highWater) error {
	next := s.next
	if len(groups) > 0 {
		g := groups[len(groups)-1]
		next = g.first + uint64(len(g.values))
	}
	truncated := last < mark.seq
	if truncated {
		lost := &store.LogTruncatedError{Path: s.wal.path, Last: next - 1, Acked: max(mark.next, next) - 1, Groups: mark.seq - last}
		if !s.opts.AcceptTruncatedLog {
			return fmt.Errorf("bboltstore: %w (start with the shortened history only by accepting the loss explicitly)", lost)
		}
		s.opts.Logger.Error("store: the write-ahead file lost acknowledged decisions; serving the shortened history as asked", "err", lost)
	}
	if len(groups) == 0 && !truncated {
		return nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		if len(groups) > 0 {
			if err := applyGroups(tx, groups); err != nil {
				return err
			}
		}
		meta, err := bucket(tx, metaBucket)
		if err != nil {
			return err
		}
		return putHighWater(meta, highWater{seq: last, next: next})
	})
	if err != nil {
		return fmt.Errorf("bboltstore: replay %d groups of %s into %s: %w", len(groups), s.wal.path, s.path, err)
	}
	return nil
}

// checkSchema stamps a new file with schemaVersion, upgrades a version 1
// or 2 file and refuses any other version. walStale reports a file that
// was new or from version 1: no write-ahead file belongs to it yet. found
// is the version the file had, 0 for a new one.
func (s *Store) checkSchema(tx *bolt.Tx) (walStale bool, found uint64, err error) {
	meta := tx.Bucket([]byte(metaBucket))
	if meta == nil {
		empty := true
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
		if !empty {
			return false, 0, fmt.Errorf("%w: not a Berth data file (no %q bucket)", store.ErrCorrupt, metaBucket)
		}
		meta, err := tx.CreateBucket([]byte(metaBucket))
		if err != nil {
			return false, 0, fmt.Errorf("create bucket %q: %w", metaBucket, err)
		}
		return true, 0, putMeta(meta, metaInt{schemaKey, schemaVersion}, metaInt{walSeqKey, 0}, metaInt{nextKey, 1}, metaInt{checksumFromKey, 1})
	}
	v, err := getUint64(meta.Get([]byte(schemaKey)))
	if err != nil {
		return false, 0, fmt.Errorf("%s: %w", schemaKey, err)
	}
	switch v {
	case schemaVersion:
		return false, v, nil
	case 1, 2:
		// Records from the next revision on carry a checksum.
		next, err := getUint64(meta.Get([]byte(nextKey)))
		if err != nil {
			return false, v, fmt.Errorf("%s: %w", nextKey, err)
		}
		if err := putMeta(meta, metaInt{schemaKey, schemaVersion}, metaInt{checksumFromKey, next}); err != nil {
			return false, v, err
		}
		if v == 1 {
			// Version 1 wrote bbolt directly: no group to replay, and
			// the write-ahead file is emptied, so no high-water mark.
			for _, k := range []string{ackedKey, ackedNextKey} {
				if err := meta.Delete([]byte(k)); err != nil {
					return false, v, err
				}
			}
			return true, v, meta.Put([]byte(walSeqKey), putUint64(0))
		}
		return false, v, nil
	}
	return false, v, &store.SchemaVersionError{Path: s.path, Found: v, Supported: schemaVersion}
}

// sealSpaces rewrites every keyspace value of a file from before version 3
// with its checksum.
func sealSpaces(tx *bolt.Tx) error {
	for _, sp := range store.Spaces() {
		b, err := bucket(tx, spaceBucket(sp))
		if err != nil {
			return err
		}
		var kvs []store.KV
		if err := b.ForEach(func(k, v []byte) error {
			kvs = append(kvs, store.KV{Key: clone(k), Value: sealValue(sp, k, v)})
			return nil
		}); err != nil {
			return err
		}
		for _, kv := range kvs {
			if err := b.Put(kv.Key, kv.Value); err != nil {
				return fmt.Errorf("seal %s %q: %w", sp, kv.Key, err)
			}
		}
	}
	return nil
}

// loadLog sets first, last, lastTime and the tail from the log bucket. A
// damaged record does not fail it: the tail starts after the newest one,
// and reading it fails with its revision.
func (s *Store) loadLog(tx *bolt.Tx) error {
	log, err := bucket(tx, logBucket)
	if err != nil {
		return err
	}
	s.last = s.next - 1
	s.first = s.next
	c := log.Cursor()
	k, v := c.Last()
	if k == nil {
		return nil
	}
	// Unchecked: the time of a damaged newest record is the best there is.
	newest, err := decodeRecord(k, v, false, true)
	if err != nil {
		return err
	}
	if newest.Revision >= s.next {
		return fmt.Errorf("%w: log reaches revision %d but %s is %d", store.ErrCorrupt, newest.Revision, nextKey, s.next)
	}
	s.lastTime = newest.Time
	fk, _ := c.First()
	if s.first, err = getUint64(fk); err != nil {
		return fmt.Errorf("log key: %w", err)
	}
	// The tail must end at last with consecutive revisions; if the newest
	// record is not last (it cannot be, short of damage), start it empty.
	if newest.Revision != s.last || s.opts.TailSize == 0 {
		return nil
	}
	var tail []store.Record
	for ; k != nil && len(tail) < s.opts.TailSize; k, v = c.Prev() {
		r, err := decodeRecord(k, v, s.checked(k), false)
		var damaged *store.CorruptRecordError
		if errors.As(err, &damaged) {
			s.opts.Logger.Error("store: damaged record in the log; reading it fails", "err", err)
			break
		}
		if err != nil {
			return err
		}
		if len(tail) > 0 && r.Revision != tail[len(tail)-1].Revision-1 {
			return fmt.Errorf("%w: log jumps from revision %d to %d", store.ErrCorrupt, r.Revision, tail[len(tail)-1].Revision)
		}
		tail = append(tail, r)
	}
	slices.Reverse(tail)
	s.tail = tail
	return nil
}

// checked reports whether the record under log key k carries a checksum.
func (s *Store) checked(k []byte) bool {
	return len(k) == 8 && binary.BigEndian.Uint64(k) >= s.checksumFrom
}

// Close waits for the batches already handed to the committer to be
// written, stops the background work and closes the file.
func (s *Store) Close() error {
	s.closeMu.Lock()
	if s.closed.Load() {
		s.closeMu.Unlock()
		return store.ErrClosed
	}
	s.closed.Store(true)
	s.closeMu.Unlock()

	s.cancelBG()
	close(s.stop)
	s.wg.Wait()
	// The committer is done: the applier copies what is left into bbolt.
	close(s.applyStop)
	<-s.applyDone
	applyErr := s.applyFailure()

	s.mu.Lock()
	s.shut = true
	close(s.notify)
	s.mu.Unlock()

	// Wait for a Compact call in progress outside the background loop.
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	err := applyErr
	if cerr := s.db.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("bboltstore: close %s: %w", s.path, cerr))
	}
	if cerr := s.wal.close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("bboltstore: close %s: %w", s.wal.path, cerr))
	}
	return err
}

// Path returns the data file's path.
func (s *Store) Path() string { return s.path }

// Stats count the committer's and the applier's work since Open.
type Stats struct {
	Transactions uint64 // groups written to the write-ahead file (one sync each)
	Batches      uint64 // Commit batches they carried
	Records      uint64 // records they appended
	Applies      uint64 // bbolt transactions that copied groups in
}

// Stats returns the counters; Batches/Transactions is the mean group.
func (s *Store) Stats() Stats {
	return Stats{
		Transactions: s.stats.txs.Load(),
		Batches:      s.stats.batches.Load(),
		Records:      s.stats.records.Load(),
		Applies:      s.stats.applies.Load(),
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
