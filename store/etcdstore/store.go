package etcdstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/logstore"
)

// Defaults for the zero Options fields. The transaction limits are etcd's
// own defaults (--max-request-bytes, --max-txn-ops).
const (
	DefaultPrefix          = "/berth/"
	DefaultMaxTxnBytes     = 1536 * 1024
	DefaultMaxTxnOps       = 128
	DefaultMaxBatch        = 256
	DefaultRequestTimeout  = 10 * time.Second
	DefaultCompactInterval = time.Minute
)

// Fence is what a leader's commits are conditioned on: its election key
// (concurrency.Election's Key) still exists with the create revision it had
// when the campaign was won (Election's Rev). The key goes when the
// leader's lease ends, so a deposed leader's transactions fail.
type Fence struct {
	Key            string
	CreateRevision int64
}

// Options configure a Store.
type Options struct {
	// Prefix is put before every key; "" means DefaultPrefix.
	Prefix string
	// Fence conditions every commit and compaction; nil writes without
	// one (a single writer, tests). berthd always sets it on its leader.
	Fence *Fence
	// MaxTxnBytes and MaxTxnOps bound one transaction (etcd's
	// --max-request-bytes and --max-txn-ops); 0 means the defaults.
	MaxTxnBytes, MaxTxnOps int
	// MaxBatch is the most Commit batches in one transaction; 0 means
	// DefaultMaxBatch.
	MaxBatch int
	// RequestTimeout bounds each etcd request the store makes on its own;
	// 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Retention is the compaction policy; the zero value keeps everything.
	Retention store.Retention
	// CompactInterval is how often the policy is applied in the background;
	// 0 means DefaultCompactInterval, negative never (Compact still works).
	CompactInterval time.Duration
	// Clock stamps records and judges their age; nil means time.Now.
	Clock func() time.Time
	// Logger receives background failures; nil discards them.
	Logger *slog.Logger
	// Observe, if set, is told how long each etcd request took, by kind
	// ("txn", "range", "compact").
	Observe func(kind string, d time.Duration)
}

func (o Options) withDefaults() (Options, error) {
	if err := o.Retention.Validate(); err != nil {
		return o, err
	}
	if o.MaxTxnBytes < 0 || o.MaxTxnOps < 0 || o.MaxBatch < 0 || o.RequestTimeout < 0 {
		return o, fmt.Errorf("etcdstore: negative MaxTxnBytes %d, MaxTxnOps %d, MaxBatch %d or RequestTimeout %v",
			o.MaxTxnBytes, o.MaxTxnOps, o.MaxBatch, o.RequestTimeout)
	}
	if o.MaxTxnOps == 1 {
		return o, errors.New("etcdstore: MaxTxnOps 1 leaves no room for a record beside the next revision")
	}
	o.Prefix = cmp.Or(o.Prefix, DefaultPrefix)
	o.MaxTxnBytes = cmp.Or(o.MaxTxnBytes, DefaultMaxTxnBytes)
	o.MaxTxnOps = cmp.Or(o.MaxTxnOps, DefaultMaxTxnOps)
	o.MaxBatch = cmp.Or(o.MaxBatch, DefaultMaxBatch)
	o.RequestTimeout = cmp.Or(o.RequestTimeout, DefaultRequestTimeout)
	o.CompactInterval = cmp.Or(o.CompactInterval, DefaultCompactInterval)
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Observe == nil {
		o.Observe = func(string, time.Duration) {}
	}
	return o, nil
}

// Store is store.Store on etcd. Several Stores (replicas) may share a
// prefix; only one, the leader, should commit, and its Fence makes sure a
// deposed one cannot. The log layer (store/logstore) keeps the revisions,
// the intake and close protocol and the keyspace values' checks.
//
// Lock order: the intake's compactMu, then its closeMu, then the
// revisions' lock.
type Store struct {
	cli  *clientv3.Client
	keys keys
	opts Options

	in     *logstore.Intake[*request] // the committer and the compaction loop
	revs   *logstore.Revisions        // set by Open (load); advanced by commits and the watch
	values *logstore.Values

	followDone chan struct{} // closed when the watch has stopped
	fenced     chan struct{} // closed when a commit found the fence broken
	fenceOnce  sync.Once

	bg       context.Context // ends background work; cancelled by Close
	cancelBG context.CancelFunc

	// Owned by the committer goroutine.
	next   uint64         // the revision the next record gets
	clock  logstore.Clock // record times never go back
	failed error          // set when fenced: every later commit fails with it
	unsure bool           // a transaction's outcome is unknown: re-read next first
}

var _ store.Store = (*Store)(nil)

// Open opens the store under opts.Prefix of cli's etcd, creating its meta
// keys the first time. A prefix written with another schema version fails
// with a *store.SchemaVersionError. cli stays the caller's: Close does not
// close it.
func Open(ctx context.Context, cli *clientv3.Client, opts Options) (*Store, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Store{
		cli:    cli,
		keys:   keys{prefix: opts.Prefix},
		opts:   opts,
		in:     logstore.NewIntake[*request]("etcdstore", 4*opts.MaxBatch),
		values: logstore.NewValues(opts.Logger),
		fenced: make(chan struct{}),
		clock:  logstore.NewClock(opts.Clock, time.Time{}),
	}
	rev, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	s.bg, s.cancelBG = context.WithCancel(context.Background())
	s.followDone = make(chan struct{})
	go s.follow(rev)
	s.in.Go(s.commitLoop)
	if opts.Retention != (store.Retention{}) && opts.CompactInterval > 0 {
		s.in.Every(opts.CompactInterval, s.compactInBackground)
	}
	return s, nil
}

// load creates the meta keys of a new prefix, or checks the schema of an
// existing one, and reads the revisions. It returns the etcd revision its
// reads were made at: the watch starts after it.
func (s *Store) load(ctx context.Context) (int64, error) {
	k := s.keys
	start := time.Now()
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k.schema()), "=", 0)).
		Then(clientv3.OpPut(k.schema(), formatMetaInt(schemaVersion)), clientv3.OpPut(k.next(), "1")).
		Else(clientv3.OpGet(k.schema()), clientv3.OpGet(k.next()),
			clientv3.OpGet(k.logFrom(), clientv3.WithRange(k.logEnd()), clientv3.WithLimit(1), clientv3.WithKeysOnly())).
		Commit()
	s.opts.Observe("txn", time.Since(start))
	if err != nil {
		return 0, fmt.Errorf("etcdstore: open prefix %q: %w", s.opts.Prefix, err)
	}
	s.next, s.revs = 1, logstore.NewRevisions(1, 0, nil, 0)
	if resp.Succeeded {
		return resp.Header.Revision, nil
	}
	got := func(i int) []byte {
		if kvs := resp.Responses[i].GetResponseRange().Kvs; len(kvs) > 0 {
			return kvs[0].Value
		}
		return nil
	}
	version, err := parseMetaInt(k.schema(), got(0))
	if err != nil {
		return 0, err
	}
	if version != schemaVersion {
		return 0, &store.SchemaVersionError{Path: fmt.Sprintf("etcd key prefix %q", s.opts.Prefix), Found: version, Supported: schemaVersion}
	}
	if s.next, err = parseMetaInt(k.next(), got(1)); err != nil {
		return 0, err
	}
	if s.next == 0 {
		return 0, fmt.Errorf("%w: %s is 0", store.ErrCorrupt, k.next())
	}
	first := s.next
	if kvs := resp.Responses[2].GetResponseRange().Kvs; len(kvs) > 0 {
		if first, err = k.revision(kvs[0].Key); err != nil {
			return 0, err
		}
	}
	s.revs = logstore.NewRevisions(first, s.next-1, nil, 0)
	return resp.Header.Revision, nil
}

// Close waits for the batches already handed over to be written, stops the
// watch and background work. The client stays open.
func (s *Store) Close() error {
	// The committer drains before the background context ends: its
	// transactions use it.
	if !s.in.Close() {
		return store.ErrClosed
	}
	s.cancelBG()
	<-s.followDone
	s.revs.Shut()
	return s.in.AfterCompaction(func() error { return nil })
}

// Fenced is closed once a commit found that this store lost the right to
// write (store.ErrFenced): its leader's term is over.
func (s *Store) Fenced() <-chan struct{} { return s.fenced }

// Prefix is the store's key prefix.
func (s *Store) Prefix() string { return s.opts.Prefix }

// Revisions implements store.Store.
func (s *Store) Revisions() (first, last uint64) { return s.revs.Get() }

// Wait implements store.Store.
func (s *Store) Wait(ctx context.Context, after uint64) error { return s.revs.Wait(ctx, after) }

// DamagedValues counts the damaged keyspace values skipped since Open, by
// keyspace.
func (s *Store) DamagedValues() map[store.Space]uint64 { return s.values.Damaged() }

// request runs fn with a context bounded by RequestTimeout and records its
// duration under kind.
func (s *Store) request(ctx context.Context, kind string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	start := time.Now()
	err := fn(ctx)
	s.opts.Observe(kind, time.Since(start))
	return err
}
