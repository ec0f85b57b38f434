package decisionlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	resourceapi "k8s.io/api/resource/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/ledger"
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
	// MaxResponseBytes bounds the encoded size of one WatchResponse: a
	// response carries fewer decisions rather than grow past it (a single
	// decision larger than it goes out alone). 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int
	// MaxNodeReasons bounds the node_reasons of one Unschedulable
	// decision; 0 means DefaultMaxNodeReasons.
	MaxNodeReasons int
	// BindWanted, if set, is asked, while a Bind is being recorded, whether
	// the scheduler still wants it: pod is the version its Bind plugins
	// were given. A Bind it no longer wants (the pod was deleted, or its
	// binding abandoned, since) is refused with ErrBindAbandoned and
	// nothing is written. The ledger asks it under its lock (see
	// ledger.Ledger.BeginBind). *scheduler.Scheduler's Binding fits.
	BindWanted func(pod *model.Pod) bool
	// Ledger records the Binds and Evicts the log writes as awaiting their
	// outcome; nil makes one of its own.
	Ledger *ledger.Ledger
}

// Defaults of the zero Options fields.
const (
	DefaultMaxResponseBytes = 1 << 20
	DefaultMaxNodeReasons   = 100
)

// ErrBindAbandoned: a Bind was refused because the scheduler no longer
// wants it (Options.BindWanted).
var ErrBindAbandoned = errors.New("the bind was abandoned (pod deleted or its binding undone)")

// Log is the durable decision log over a store.Store. It implements
// framework.Planner (plan.go).
//
// Lock order: settler.mu, then mu; the ledger's lock is taken with
// neither held. None is held across a Commit by the callers of the sink,
// so concurrent decisions share transactions.
type Log struct {
	store  store.Store
	opts   Options
	logger *slog.Logger
	settle *settler

	ledger *ledger.Ledger
	// claims is what the log wrote to store.Claims (claims.go).
	claims *claimBook

	mu   sync.Mutex
	id   string              // the log's identity; set by Recover
	noms map[string]nomEntry // by pod uid: the pod's nomination
	// reported holds, by pod uid, the message of the pod's last
	// Unschedulable decision (also in store.Unschedulable), so that a
	// restarted scheduler does not report the same again.
	reported map[string]string

	// watching holds the open watches' positions (watchers.go).
	watching watchers
}

// nomEntry is a pod's nomination.
type nomEntry struct {
	node     string
	revision uint64 // 0 when restored after a restart
}

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
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.MaxNodeReasons <= 0 {
		opts.MaxNodeReasons = DefaultMaxNodeReasons
	}
	if opts.Ledger == nil {
		opts.Ledger = ledger.New(opts.Logger)
	}
	l := &Log{
		store:    st,
		opts:     opts,
		logger:   opts.Logger,
		ledger:   opts.Ledger,
		claims:   newClaimBook(),
		noms:     make(map[string]nomEntry),
		reported: make(map[string]string),
	}
	l.settle = newSettler(st, l.observeCommit, opts.Logger)
	return l
}

// Close writes the outcomes still queued and stops the background writer.
// The store stays open.
func (l *Log) Close() error { return l.settle.close() }

// pendingBind is a Bind between startBind and finishBind: its batch, with
// room for its record and operations, and the ledger's hold on the pod's
// bind record. One allocation holds it all.
type pendingBind struct {
	ledger.Pending
	batch   store.Batch
	records [1][]byte
	ops     [3]store.Op
}

// startBind encodes the Bind (with the claims' allocations, which go to
// store.Claims too), records it in the ledger as being committed and
// returns its batch.
func (l *Log) startBind(ctx context.Context, pod *model.Pod, node string, claims []*resourceapi.ResourceClaim, volumes []framework.VolumeBinding) (*pendingBind, error) {
	rec, ok := bindRecord{}, false
	if len(claims) == 0 && len(volumes) == 0 {
		rec, ok = newBindRecord(pod, node, 0)
	}
	if !ok {
		payload, err := encode(bindWithClaimsDecision(pod, node, claims, volumes))
		if err != nil {
			return nil, err
		}
		rec = bindRecord{assumed: ledger.BindValue(0, payload), payload: payload, key: []byte(pod.UID)}
	}
	if err := l.settle.claim(ctx, pod.UID, ledger.KindBind.Space(), store.Nominations); err != nil {
		return nil, err
	}
	pb := new(pendingBind)
	wanted, err := l.ledger.BeginBind(ctx, pod, node, l.opts.BindWanted, &pb.Pending)
	if err != nil {
		return nil, err
	}
	if !wanted {
		return nil, fmt.Errorf("decisionlog: bind %s to %s: %w", pod.Key(), node, ErrBindAbandoned)
	}
	l.mu.Lock()
	_, unsched := l.reported[pod.UID]
	l.mu.Unlock()

	// The bind's revision is above the newest one now: the ledger's
	// Restore searches the log from there.
	_, last := l.store.Revisions()
	ledger.SetBindHint(rec.assumed, last+1)
	b := &pb.batch
	b.Records, b.Ops = pb.records[:0], pb.ops[:0]
	b.Append(rec.payload)
	b.Put(ledger.KindBind.Space(), rec.key, rec.assumed)
	b.Delete(store.Nominations, rec.key)
	if unsched {
		b.Delete(store.Unschedulable, rec.key)
	}
	if err := claimOps(b, claims); err != nil {
		l.ledger.FinishBind(pod.UID, &pb.Pending, 0, true)
		return nil, err
	}
	return pb, nil
}

// finishBind ends the ledger's record of the commit: it gets its
// revision, or is undone on failure; a durable Bind ends the pod's
// nomination and Unschedulable message.
func (l *Log) finishBind(pod *model.Pod, pb *pendingBind, res store.CommitResult, err error) error {
	l.ledger.FinishBind(pod.UID, &pb.Pending, res.First, err != nil)
	if err != nil {
		return err
	}
	l.mu.Lock()
	delete(l.noms, pod.UID)
	delete(l.reported, pod.UID)
	l.mu.Unlock()
	return nil
}

// EvictionMetrics, if the Options' Metrics implement it, counts the Evict
// decisions made durable by cause (berth_evictions_total{cause}).
type EvictionMetrics interface {
	ObserveEviction(cause string)
}

// CauseLabel names an eviction's cause in metrics and messages:
// "preemption", "taint", "api", "node_pressure", "deschedule".
func CauseLabel(c berthv1.EvictCause) string {
	switch c {
	case berthv1.EvictCause_EVICT_CAUSE_PREEMPTION:
		return "preemption"
	case berthv1.EvictCause_EVICT_CAUSE_TAINT:
		return "taint"
	case berthv1.EvictCause_EVICT_CAUSE_API:
		return "api"
	case berthv1.EvictCause_EVICT_CAUSE_NODE_PRESSURE:
		return "node_pressure"
	case berthv1.EvictCause_EVICT_CAUSE_DESCHEDULE:
		return "deschedule"
	}
	return "unspecified"
}

// ErrAlreadyEvicted: the pod has an Evict decision already (it is
// terminating until the orchestrator deletes it).
var ErrAlreadyEvicted = errors.New("the pod is being evicted already")

// AlreadyEvictedError refuses a second Evict of a pod; it wraps
// ErrAlreadyEvicted.
type AlreadyEvictedError struct{ Pod string }

func (e *AlreadyEvictedError) Error() string {
	return fmt.Sprintf("pod %s: %v", e.Pod, ErrAlreadyEvicted)
}

func (e *AlreadyEvictedError) Unwrap() error { return ErrAlreadyEvicted }

// ErrorReason names the refusal for clients (server/errmap).
func (e *AlreadyEvictedError) ErrorReason() string { return "POD_ALREADY_EVICTED" }

// ErrorMetadata names the pod.
func (e *AlreadyEvictedError) ErrorMetadata() map[string]string {
	return map[string]string{"pod": e.Pod}
}

func (l *Log) observeCommit(d time.Duration) {
	if l.opts.Metrics != nil {
		l.opts.Metrics.ObserveCommit(d)
	}
}

// Revisions returns the oldest retained and the newest revision of the log.
func (l *Log) Revisions() (first, last uint64) { return l.store.Revisions() }
