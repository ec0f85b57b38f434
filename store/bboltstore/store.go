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
}

func (o Options) withDefaults() (Options, error) {
	if err := o.Retention.Validate(); err != nil {
		return o, err
	}
	if o.MaxBatch < 0 || o.LockTimeout < 0 || o.WALSize < 0 {
		return o, fmt.Errorf("bboltstore: negative MaxBatch %d, LockTimeout %v or WALSize %d", o.MaxBatch, o.LockTimeout, o.WALSize)
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

	// Owned by the committer goroutine.
	next     uint64    // revision of the next record
	lastTime time.Time // newest record time; record times never go back
	failed   error     // set when a write failed; later commits refuse

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
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:         opts.LockTimeout,
		FreelistType:    bolt.FreelistMapType,
		NoFreelistSync:  true,
		InitialMmapSize: 256 << 20,
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: another berthd is using the data dir %s (no lock on %s within %v)",
			store.ErrLocked, dir, path, opts.LockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("bboltstore: open %s: %w", path, err)
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
	}
	// The data file's lock is held: no other process uses the write-ahead
	// file either.
	if s.wal, err = openWAL(dir, opts.WALSize); err != nil {
		return nil, errors.Join(fmt.Errorf("bboltstore: %w", err), db.Close())
	}
	if err := s.load(); err != nil {
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

// load checks or writes the schema version, creates missing buckets,
// replays the write-ahead groups bbolt lacks and reads the revisions and
// the tail.
func (s *Store) load() error {
	var applied uint64
	err := s.db.Update(func(tx *bolt.Tx) error {
		walStale, err := s.checkSchema(tx)
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
		meta, err := bucket(tx, metaBucket)
		if err != nil {
			return err
		}
		if applied, err = getUint64(meta.Get([]byte(walSeqKey))); err != nil {
			return fmt.Errorf("%s: %w", walSeqKey, err)
		}
		return nil
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
	if len(groups) > 0 {
		if err := s.db.Update(func(tx *bolt.Tx) error { return applyGroups(tx, groups) }); err != nil {
			return fmt.Errorf("bboltstore: replay %d groups of %s into %s: %w", len(groups), s.wal.path, s.path, err)
		}
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
	return nil
}

// checkSchema stamps a new file with schemaVersion, upgrades a version 1
// file and refuses any other version. walStale reports a file that was new
// or upgraded: no write-ahead file belongs to it yet.
func (s *Store) checkSchema(tx *bolt.Tx) (walStale bool, err error) {
	meta := tx.Bucket([]byte(metaBucket))
	if meta == nil {
		empty := true
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
		if !empty {
			return false, fmt.Errorf("%w: not a Berth data file (no %q bucket)", store.ErrCorrupt, metaBucket)
		}
		meta, err := tx.CreateBucket([]byte(metaBucket))
		if err != nil {
			return false, fmt.Errorf("create bucket %q: %w", metaBucket, err)
		}
		if err := meta.Put([]byte(schemaKey), putUint64(schemaVersion)); err != nil {
			return false, err
		}
		if err := meta.Put([]byte(walSeqKey), putUint64(0)); err != nil {
			return false, err
		}
		return true, meta.Put([]byte(nextKey), putUint64(1))
	}
	v, err := getUint64(meta.Get([]byte(schemaKey)))
	if err != nil {
		return false, fmt.Errorf("%s: %w", schemaKey, err)
	}
	if v == 1 {
		// Version 1 wrote bbolt directly: no group to replay.
		if err := meta.Put([]byte(walSeqKey), putUint64(0)); err != nil {
			return false, err
		}
		return true, meta.Put([]byte(schemaKey), putUint64(schemaVersion))
	}
	if v != schemaVersion {
		return false, &store.SchemaVersionError{Path: s.path, Found: v, Supported: schemaVersion}
	}
	return false, nil
}

// loadLog sets first, last, lastTime and the tail from the log bucket.
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
	newest, err := decodeRecord(k, v, false)
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
	tail := []store.Record{newest}
	for k, v := c.Prev(); k != nil && len(tail) < s.opts.TailSize; k, v = c.Prev() {
		r, err := decodeRecord(k, v, false)
		if err != nil {
			return err
		}
		if r.Revision != tail[len(tail)-1].Revision-1 {
			return fmt.Errorf("%w: log jumps from revision %d to %d", store.ErrCorrupt, r.Revision, tail[len(tail)-1].Revision)
		}
		tail = append(tail, r)
	}
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	s.tail = tail
	return nil
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
