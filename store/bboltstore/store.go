package bboltstore

import (
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
}

func (o Options) withDefaults() (Options, error) {
	if err := o.Retention.Validate(); err != nil {
		return o, err
	}
	if o.MaxBatch < 0 || o.LockTimeout < 0 {
		return o, fmt.Errorf("bboltstore: negative MaxBatch %d or LockTimeout %v", o.MaxBatch, o.LockTimeout)
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	switch {
	case o.MaxDelay == 0:
		o.MaxDelay = DefaultMaxDelay
	case o.MaxDelay < 0:
		o.MaxDelay = 0
	}
	switch {
	case o.TailSize == 0:
		o.TailSize = DefaultTailSize
	case o.TailSize < 0:
		o.TailSize = 0
	}
	if o.CompactInterval == 0 {
		o.CompactInterval = DefaultCompactInterval
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// Store is the bbolt implementation of store.Store.
//
// Lock order: compactMu, then closeMu, then mu. Only compactMu is held
// across a bbolt transaction.
type Store struct {
	db   *bolt.DB
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

	compactMu sync.Mutex // one compaction at a time

	mu     sync.RWMutex
	first  uint64         // oldest retained revision; last+1 when the log is empty
	last   uint64         // newest revision, 0 before the first record
	tail   []store.Record // newest records, consecutive revisions, at most 2*TailSize
	notify chan struct{}  // closed and replaced when last advances or the store closes
	shut   bool           // Close has run

	stats struct{ txs, batches, records atomic.Uint64 }
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
		reqs:   make(chan *request, reqQueue*opts.MaxBatch),
		stop:   make(chan struct{}),
		notify: make(chan struct{}),
	}
	if err := s.load(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	s.bg, s.cancelBG = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.commitLoop()
	if opts.Retention != (store.Retention{}) && opts.CompactInterval > 0 {
		s.wg.Add(1)
		go s.compactLoop()
	}
	return s, nil
}

// load checks or writes the schema version, creates missing buckets and
// reads the revisions and the tail.
func (s *Store) load() error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := s.checkSchema(tx); err != nil {
			return err
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

// checkSchema stamps a new file with schemaVersion and refuses any other
// version in an existing one.
func (s *Store) checkSchema(tx *bolt.Tx) error {
	meta := tx.Bucket([]byte(metaBucket))
	if meta == nil {
		empty := true
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
		if !empty {
			return fmt.Errorf("%w: not a Berth data file (no %q bucket)", store.ErrCorrupt, metaBucket)
		}
		meta, err := tx.CreateBucket([]byte(metaBucket))
		if err != nil {
			return fmt.Errorf("create bucket %q: %w", metaBucket, err)
		}
		if err := meta.Put([]byte(schemaKey), putUint64(schemaVersion)); err != nil {
			return err
		}
		return meta.Put([]byte(nextKey), putUint64(1))
	}
	v, err := getUint64(meta.Get([]byte(schemaKey)))
	if err != nil {
		return fmt.Errorf("%s: %w", schemaKey, err)
	}
	if v != schemaVersion {
		return &store.SchemaVersionError{Path: s.path, Found: v, Supported: schemaVersion}
	}
	return nil
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

	s.mu.Lock()
	s.shut = true
	close(s.notify)
	s.mu.Unlock()

	// Wait for a Compact call in progress outside the background loop.
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("bboltstore: close %s: %w", s.path, err)
	}
	return nil
}

// Path returns the data file's path.
func (s *Store) Path() string { return s.path }

// Stats count the committer's work since Open.
type Stats struct {
	Transactions uint64 // bbolt transactions written by Commit
	Batches      uint64 // batches they carried
	Records      uint64 // records they appended
}

// Stats returns the commit counters; Batches/Transactions is the mean group.
func (s *Store) Stats() Stats {
	return Stats{
		Transactions: s.stats.txs.Load(),
		Batches:      s.stats.batches.Load(),
		Records:      s.stats.records.Load(),
	}
}

// mapClosed turns bbolt's "not open" into store.ErrClosed.
func mapClosed(err error) error {
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return store.ErrClosed
	}
	return err
}
