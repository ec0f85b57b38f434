package decisionlog

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/store"
)

// Metrics receives the log's measurements (berth_decisions_total{type},
// berth_store_commit_duration_seconds, berth_watchers). Implementations
// must be cheap and safe for concurrent use.
type Metrics interface {
	// ObserveDecision counts one durable decision of the given type.
	ObserveDecision(typ string)
	// ObserveCommit records how long one Commit took, queueing included.
	ObserveCommit(d time.Duration)
	// AddWatchers moves the count of open watches by delta.
	AddWatchers(delta int)
}

// DefaultReadChunk is how many records a watcher reads at once.
const DefaultReadChunk = 512

// Options configure a Log. The zero value is usable.
type Options struct {
	// Logger receives background failures; nil discards them.
	Logger *slog.Logger
	// Metrics, if set, receives measurements.
	Metrics Metrics
	// Clock times commits; nil means time.Now.
	Clock func() time.Time
	// ReadChunk bounds the records a watcher reads, and so the decisions
	// one WatchResponse carries; 0 means DefaultReadChunk.
	ReadChunk int
}

// Log is the durable decision log over a store.Store. It implements
// framework.DecisionSink and scheduler.Reporter.
//
// Lock order: settler.mu, then mu. Neither is held across a Commit by the
// callers of the sink, so concurrent decisions share transactions.
type Log struct {
	store  store.Store
	opts   Options
	logger *slog.Logger
	settle *settler

	mu     sync.Mutex
	binds  map[string]bindEntry // by pod uid: the pod's last Bind
	noms   map[string]nomEntry  // by pod uid: the pod's nomination
	evicts map[string]bool      // by pod uid: pods evicted, until deleted
}

// nomEntry is a pod's nomination.
type nomEntry struct {
	node     string
	revision uint64 // 0 when restored after a restart
}

// bindEntry is the last Bind decision made for a pod.
type bindEntry struct {
	node        string
	revision    uint64 // 0 when unknown (restored, its record compacted)
	outstanding bool   // no outcome yet
	restored    bool   // made before the last restart
}

var (
	_ framework.DecisionSink = (*Log)(nil)
	_ scheduler.Reporter     = (*Log)(nil)
)

// New returns a Log appending to st. Call Close before closing st.
func New(st store.Store, opts Options) *Log {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.ReadChunk <= 0 {
		opts.ReadChunk = DefaultReadChunk
	}
	l := &Log{
		store:  st,
		opts:   opts,
		logger: opts.Logger,
		binds:  make(map[string]bindEntry),
		noms:   make(map[string]nomEntry),
		evicts: make(map[string]bool),
	}
	l.settle = newSettler(st, l.observeCommit, opts.Logger)
	return l
}

// Close writes the outcomes still queued and stops the background writer.
// The store stays open.
func (l *Log) Close() error { return l.settle.close() }

// Bind appends the Bind decision, records the pod as assumed on node and
// ends its nomination, in one durable batch.
func (l *Log) Bind(ctx context.Context, pod *model.Pod, node string) error {
	payload, err := encode(bindDecision(pod, node))
	if err != nil {
		return err
	}
	key := []byte(pod.UID)
	if err := l.settle.claim(ctx, key, store.Assumed, store.Nominations); err != nil {
		return err
	}
	// The bind's revision is above the newest one now: Recover searches
	// the log from there.
	_, last := l.store.Revisions()
	var b store.Batch
	b.Append(payload)
	b.Put(store.Assumed, key, assumedValue(last+1, payload))
	b.Delete(store.Nominations, key)
	res, err := l.commit(ctx, &b, TypeBind)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.binds[pod.UID] = bindEntry{node: node, revision: res.First, outstanding: true}
	delete(l.noms, pod.UID)
	l.mu.Unlock()
	return nil
}

// Evict appends the Evict decision and records the eviction
// (store.Evictions) in the same batch, so that after a restart the victim
// is held as terminating by preemption until it is deleted (Forget).
func (l *Log) Evict(ctx context.Context, victim *model.Pod, node string, preemptor *model.Pod, reason string) error {
	payload, err := encode(evictDecision(victim, node, preemptor, reason))
	if err != nil {
		return err
	}
	key := []byte(victim.UID)
	if err := l.settle.claim(ctx, key, store.Evictions); err != nil {
		return err
	}
	// Recorded before the commit, so that a deletion of the pod racing
	// with it removes the entry.
	l.mu.Lock()
	l.evicts[victim.UID] = true
	l.mu.Unlock()
	var b store.Batch
	b.Append(payload)
	b.Put(store.Evictions, key, payload)
	_, err = l.commit(ctx, &b, TypeEvict)
	return err
}

// Nominate appends the Nominate decision and records the nomination.
func (l *Log) Nominate(ctx context.Context, pod *model.Pod, node string) error {
	d := nominateDecision(pod, node)
	payload, err := encode(d)
	if err != nil {
		return err
	}
	key := []byte(pod.UID)
	if err := l.settle.claim(ctx, key, store.Assumed, store.Nominations); err != nil {
		return err
	}
	var b store.Batch
	b.Append(payload)
	b.Put(store.Nominations, key, payload)
	res, err := l.commit(ctx, &b, TypeNominate)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.noms[pod.UID] = nomEntry{node: node, revision: res.First}
	l.mu.Unlock()
	return nil
}

// ClearNomination appends the ClearNomination decision and removes the
// nomination.
func (l *Log) ClearNomination(ctx context.Context, pod *model.Pod, reason string) error {
	d := clearNominationDecision(pod, reason)
	if d.GetClearNomination().GetPreviousNode() == "" {
		l.mu.Lock()
		d.GetClearNomination().PreviousNode = l.noms[pod.UID].node
		l.mu.Unlock()
	}
	payload, err := encode(d)
	if err != nil {
		return err
	}
	key := []byte(pod.UID)
	if err := l.settle.claim(ctx, key, store.Assumed, store.Nominations); err != nil {
		return err
	}
	var b store.Batch
	b.Append(payload)
	b.Delete(store.Nominations, key)
	if _, err := l.commit(ctx, &b, TypeClearNomination); err != nil {
		return err
	}
	l.mu.Lock()
	delete(l.noms, pod.UID)
	l.mu.Unlock()
	return nil
}

// Unschedulable appends the Unschedulable decision.
func (l *Log) Unschedulable(ctx context.Context, pod *model.Pod, message string, fitErr *framework.FitError) error {
	payload, err := encode(unschedulableDecision(pod, message, fitErr))
	if err != nil {
		return err
	}
	var b store.Batch
	b.Append(payload)
	_, err = l.commit(ctx, &b, TypeUnschedulable)
	return err
}

// commit commits b and counts it as a decision of type typ.
func (l *Log) commit(ctx context.Context, b *store.Batch, typ string) (store.CommitResult, error) {
	start := l.opts.Clock()
	res, err := l.store.Commit(ctx, b)
	l.observeCommit(l.opts.Clock().Sub(start))
	if err != nil {
		return res, fmt.Errorf("decisionlog: append %s decision: %w", typ, err)
	}
	if l.opts.Metrics != nil {
		l.opts.Metrics.ObserveDecision(typ)
	}
	return res, nil
}

func (l *Log) observeCommit(d time.Duration) {
	if l.opts.Metrics != nil {
		l.opts.Metrics.ObserveCommit(d)
	}
}

// Revisions returns the oldest retained and the newest revision of the log.
func (l *Log) Revisions() (first, last uint64) { return l.store.Revisions() }
