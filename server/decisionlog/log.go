package decisionlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/podbook"
	"github.com/berthsched/berth/store"
)

// Metrics receives the log's measurements (berth_decisions_total{type},
// berth_store_commit_duration_seconds). Implementations must be cheap and
// safe for concurrent use.
type Metrics interface {
	// ObserveDecision counts one durable decision of the given type.
	ObserveDecision(typ string)
	// ObserveCommit records how long one Commit took, queueing included.
	ObserveCommit(d time.Duration)
}

// Options configure a Log. The zero value is usable.
type Options struct {
	// Logger receives background failures; nil discards them.
	Logger *slog.Logger
	// Metrics, if set, receives measurements.
	Metrics Metrics
	// Clock times commits; nil means time.Now.
	Clock func() time.Time
	// MaxNodeReasons bounds the node_reasons of one Unschedulable
	// decision; 0 means DefaultMaxNodeReasons.
	MaxNodeReasons int
	// Book is told of the per-pod facts the log makes durable (Binds and
	// Evicts awaiting their outcome, nominations, messages, claims); nil
	// makes one of its own, which Close closes.
	Book *podbook.Book
}

// DefaultMaxNodeReasons is the MaxNodeReasons of the zero Options.
const DefaultMaxNodeReasons = 100

// ErrBindAbandoned: a Bind was refused because the scheduler no longer
// wants it (framework.Bind.Awaiter).
var ErrBindAbandoned = errors.New("the bind was abandoned (pod deleted or its binding undone)")

// Log is the durable decision log over a store.Store. It implements
// framework.Planner (plan.go).
//
// Lock order: mu is a leaf; the book's locks are taken with it released.
// None is held across a Commit, so concurrent decisions share
// transactions.
type Log struct {
	store  store.Store
	opts   Options
	logger *slog.Logger
	// book holds the per-pod facts the log's decisions make; ownBook is
	// set when the log made it (and closes it).
	book    *podbook.Book
	ownBook bool

	mu sync.Mutex
	id string // the log's identity; set by Recover
}

// New returns a Log appending to st. Call Close before closing st.
func New(st store.Store, opts Options) *Log {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.MaxNodeReasons <= 0 {
		opts.MaxNodeReasons = DefaultMaxNodeReasons
	}
	l := &Log{store: st, opts: opts, logger: opts.Logger, book: opts.Book}
	if l.book == nil {
		l.book = podbook.New(st, podbook.Options{Logger: opts.Logger, ObserveCommit: l.observeCommit})
		l.ownBook = true
	}
	return l
}

// Close closes the book the log made (writing the removals it queued).
// The store stays open.
func (l *Log) Close() error {
	if l.ownBook {
		return l.book.Close()
	}
	return nil
}

// Book is the book of per-pod facts the log tells.
func (l *Log) Book() *podbook.Book { return l.book }

// pendingBind is a Bind between startBind and finishBind: its batch, with
// room for its record and operations, and the book's hold on the pod's
// bind record. One allocation holds it all.
type pendingBind struct {
	podbook.Pending
	batch   store.Batch
	records [1][]byte
	ops     [3]store.Op
}

// startBind encodes the Bind (with the claims' allocations, which go to
// store.Claims too), records it in the book as being committed and
// returns its batch.
func (l *Log) startBind(ctx context.Context, b *framework.Bind) (*pendingBind, error) {
	pod, node, claims, volumes := b.Pod, b.Node, b.Claims, b.Volumes
	rec, ok := bindRecord{}, false
	if len(claims) == 0 && len(volumes) == 0 {
		rec, ok = newBindRecord(pod, node, 0)
	}
	if !ok {
		payload, err := encode(bindWithClaimsDecision(pod, node, claims, volumes))
		if err != nil {
			return nil, err
		}
		rec = bindRecord{assumed: podbook.BindValue(0, payload), payload: payload, key: []byte(pod.UID)}
	}
	if err := l.book.PrepareWrite(ctx, pod.UID, podbook.KindBind.Space(), store.Nominations); err != nil {
		return nil, err
	}
	pb := new(pendingBind)
	wanted, err := l.book.BeginBind(ctx, pod, node, b.Awaiter, &pb.Pending)
	if err != nil {
		return nil, err
	}
	if !wanted {
		return nil, fmt.Errorf("decisionlog: bind %s to %s: %w", pod.Key(), node, ErrBindAbandoned)
	}
	_, unsched := l.book.LastMessage(pod.UID)

	// The bind's revision is above the newest one now: the book's
	// Restore searches the log from there.
	_, last := l.store.Revisions()
	podbook.SetBindHint(rec.assumed, last+1)
	batch := &pb.batch
	batch.Records, batch.Ops = pb.records[:0], pb.ops[:0]
	batch.Append(rec.payload)
	batch.Put(podbook.KindBind.Space(), rec.key, rec.assumed)
	batch.Delete(store.Nominations, rec.key)
	if unsched {
		batch.Delete(store.Unschedulable, rec.key)
	}
	if err := claimOps(batch, claims); err != nil {
		l.book.FinishBind(pod.UID, &pb.Pending, 0, true)
		return nil, err
	}
	return pb, nil
}

// finishBind ends the book's record of the commit: it gets its revision,
// or is undone on failure (a durable Bind ends the pod's nomination and
// Unschedulable message there).
func (l *Log) finishBind(pod *model.Pod, pb *pendingBind, res store.CommitResult, err error) error {
	l.book.FinishBind(pod.UID, &pb.Pending, res.First, err != nil)
	return err
}

// EvictionMetrics, if the Options' Metrics implement it, counts the Evict
// decisions made durable by cause (berth_evictions_total{cause}).
type EvictionMetrics interface {
	ObserveEviction(cause string)
}

// CauseLabel names an eviction's cause in metrics and messages:
// "preemption", "taint", "api", "node_pressure", "deschedule",
// "defragment", "quota".
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
	case berthv1.EvictCause_EVICT_CAUSE_DEFRAGMENT:
		return "defragment"
	case berthv1.EvictCause_EVICT_CAUSE_QUOTA:
		return "quota"
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

// ErrAlreadyAdmitted: the Kueue workload is admitted already (an Admit of
// it is durable, or being committed).
var ErrAlreadyAdmitted = errors.New("the workload is admitted already")

// ErrNotAdmitted: a WorkloadEviction of a workload that holds no durable
// admission (never admitted, or evicted already).
var ErrNotAdmitted = errors.New("the workload is not admitted")

// WorkloadRefusal refuses a decision about a Kueue workload; it wraps
// ErrAlreadyAdmitted or ErrNotAdmitted.
type WorkloadRefusal struct {
	Workload string // namespace/name
	Err      error
}

func (e *WorkloadRefusal) Error() string { return fmt.Sprintf("workload %s: %v", e.Workload, e.Err) }

func (e *WorkloadRefusal) Unwrap() error { return e.Err }

// ErrorReason names the refusal for clients (server/errmap).
func (e *WorkloadRefusal) ErrorReason() string {
	if errors.Is(e.Err, ErrAlreadyAdmitted) {
		return "WORKLOAD_ALREADY_ADMITTED"
	}
	return "WORKLOAD_NOT_ADMITTED"
}

// ErrorMetadata names the workload.
func (e *WorkloadRefusal) ErrorMetadata() map[string]string {
	return map[string]string{"workload": e.Workload}
}

func (l *Log) observeCommit(d time.Duration) {
	if l.opts.Metrics != nil {
		l.opts.Metrics.ObserveCommit(d)
	}
}
