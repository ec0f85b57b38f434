package watch

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/decisionlog"
	"github.com/berthsched/berth/store"
)

// Store is the read side of the store.Store holding the decision log:
// all a watch needs, so that nothing here can write.
type Store interface {
	Read(ctx context.Context, from uint64, limit int) ([]store.Record, error)
	Revisions() (first, last uint64)
	Wait(ctx context.Context, after uint64) error
}

// Metrics receives the watches' measurement (berth_watchers). It must be
// cheap and safe for concurrent use.
type Metrics interface {
	// AddWatchers moves the count of open watches by delta.
	AddWatchers(delta int)
}

// Defaults of the zero Options fields.
const (
	// DefaultReadChunk is how many records a watcher reads at once.
	DefaultReadChunk = 512
	// DefaultMaxResponseBytes keeps a response well under gRPC's default
	// 4 MiB receive limit.
	DefaultMaxResponseBytes = 1 << 20
)

// Options configure a Feed. The zero value is usable.
type Options struct {
	// Metrics, if set, receives measurements.
	Metrics Metrics
	// ReadChunk bounds the records a watcher reads, and so the decisions
	// one WatchResponse carries; 0 means DefaultReadChunk.
	ReadChunk int
	// MaxResponseBytes bounds the encoded size of one WatchResponse: a
	// response carries fewer decisions rather than grow past it (a single
	// decision larger than it goes out alone). 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int
}

// Feed streams the decision log to its watchers. It reads the store and
// keeps only the positions of the open watches (positions.go).
type Feed struct {
	store Store
	id    func() string
	opts  Options

	// watching holds the open watches' positions.
	watching positions
}

// New returns a Feed reading the log in st; id is the log's identity
// (decisionlog.Log.ID), asked at each Watch, empty while unknown.
func New(st Store, id func() string, opts Options) *Feed {
	if opts.ReadChunk <= 0 {
		opts.ReadChunk = DefaultReadChunk
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	return &Feed{store: st, id: id, opts: opts}
}

// ID is the identity of the log the feed reads.
func (fd *Feed) ID() string { return fd.id() }

// Revisions returns the oldest retained and the newest revision of the log.
func (fd *Feed) Revisions() (first, last uint64) { return fd.store.Revisions() }

// Filter selects the decisions a watcher receives. The zero value selects
// every decision.
type Filter struct {
	// SchedulerName keeps only that profile's decisions; empty keeps all.
	SchedulerName string
	// Types keeps only these kinds; empty keeps all.
	Types []berthv1.DecisionType
}

func (f Filter) match(d *berthv1.Decision) bool {
	if f.SchedulerName != "" && d.GetSchedulerName() != f.SchedulerName {
		return false
	}
	return len(f.Types) == 0 || slices.Contains(f.Types, decisionlog.TypeOf(d))
}

// Send delivers one response to a watcher; an error ends the watch.
type Send func(*berthv1.WatchResponse) error

// The errors of Watch carry the reason and metadata of the
// google.rpc.ErrorInfo the API answers them with
// (api/berth/v1/decision_service.proto); server/errmap reads them through
// ErrorReason and ErrorMetadata. Their messages say "decisionlog:", as
// before Watch left that package: they name the log a client watches.

// AheadError is Watch's error for a revision beyond the end of the log:
// from > newest + 1, a position this log never gave (the caller watched
// another log).
type AheadError struct {
	Requested uint64 // the revision asked for
	Next      uint64 // the newest revision plus one
	LogID     string // the log's identity
}

func (e *AheadError) Error() string {
	return fmt.Sprintf("decisionlog: revision %d is beyond the end of log %s (the next revision is %d)", e.Requested, e.LogID, e.Next)
}

// ErrorReason is the ErrorInfo reason of a revision not written.
func (e *AheadError) ErrorReason() string { return "REVISION_NOT_WRITTEN" }

// ErrorMetadata names the log and the revision it would write next.
func (e *AheadError) ErrorMetadata() map[string]string {
	return map[string]string{"next_revision": strconv.FormatUint(e.Next, 10), "log_id": e.LogID}
}

// LogMismatchError is Watch's error when the caller names another log.
type LogMismatchError struct {
	Requested, Actual string
}

func (e *LogMismatchError) Error() string {
	return fmt.Sprintf("decisionlog: log id %q is not this log's (%q)", e.Requested, e.Actual)
}

// ErrorReason is the ErrorInfo reason of a watch naming another log.
func (e *LogMismatchError) ErrorReason() string { return "LOG_ID_MISMATCH" }

// ErrorMetadata names this log.
func (e *LogMismatchError) ErrorMetadata() map[string]string {
	return map[string]string{"log_id": e.Actual}
}

// ReadError is Watch's error when reading the log from Revision failed
// (a *store.CompactedError, store.ErrClosed, ...). It names the log in the
// ErrorInfo of the error it wraps.
type ReadError struct {
	LogID    string
	Revision uint64
	Err      error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("decisionlog: watch from revision %d: %v", e.Revision, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// ErrorMetadata names the log.
func (e *ReadError) ErrorMetadata() map[string]string { return map[string]string{"log_id": e.LogID} }

// Watch streams the decisions matching f from revision from on (0: those
// made after the call), in revision order, until ctx ends or send fails.
// logID, if not empty, must be the log's ID (else *LogMismatchError); from
// must be at most the newest revision plus one (else *AheadError).
//
// It first sends a response with no decision whose NextRevision is where
// the watch starts, so the caller knows it is established; each later
// response carries at most Options.ReadChunk decisions, at most about
// Options.MaxResponseBytes encoded (a larger decision goes alone), and the
// revision to resume from. Every response carries the log's ID. A response
// with no decision is sent only when the watcher is caught up and filtered
// decisions moved its position.
//
// The watcher reads the log on the caller's goroutine and keeps nothing
// but its position: a slow send only makes it fall behind. If its position
// is compacted away, Watch returns an error wrapping *store.CompactedError;
// store.ErrClosed when the store closes; ctx's error when ctx ends.
func (fd *Feed) Watch(ctx context.Context, from uint64, logID string, f Filter, send Send) error {
	if fd.opts.Metrics != nil {
		fd.opts.Metrics.AddWatchers(1)
		defer fd.opts.Metrics.AddWatchers(-1)
	}
	id := fd.id()
	if logID != "" && logID != id {
		return &LogMismatchError{Requested: logID, Actual: id}
	}
	_, last := fd.store.Revisions()
	next := from
	switch {
	case next == 0:
		next = last + 1
	case next > last+1:
		return &AheadError{Requested: from, Next: last + 1, LogID: id}
	}
	pos := fd.watching.add(next)
	defer fd.watching.remove(pos)
	if err := send(&berthv1.WatchResponse{NextRevision: next, LogId: id}); err != nil {
		return err
	}
	for {
		recs, err := fd.store.Read(ctx, next, fd.opts.ReadChunk)
		if err != nil {
			return &ReadError{LogID: id, Revision: next, Err: err}
		}
		if len(recs) == 0 {
			if err := fd.store.Wait(ctx, next-1); err != nil {
				return &ReadError{LogID: id, Revision: next, Err: err}
			}
			continue
		}
		resp := &berthv1.WatchResponse{LogId: id}
		size := proto.Size(resp)
		for _, r := range recs {
			d, err := decisionlog.Decode(r)
			if err != nil {
				return err
			}
			if !f.match(d) {
				continue
			}
			// The decision's share of the response: its bytes, its tag and
			// length (at most 1 + 10).
			ds := proto.Size(d) + 11
			if len(resp.Decisions) > 0 && size+ds > fd.opts.MaxResponseBytes {
				resp.NextRevision = r.Revision
				if err := send(resp); err != nil {
					return err
				}
				resp = &berthv1.WatchResponse{LogId: id}
				size = proto.Size(resp)
			}
			resp.Decisions = append(resp.Decisions, d)
			size += ds
		}
		next = recs[len(recs)-1].Revision + 1
		resp.NextRevision = next
		caughtUp := len(recs) < fd.opts.ReadChunk
		if len(resp.Decisions) == 0 && !caughtUp {
			pos.Store(next)
			continue
		}
		if err := send(resp); err != nil {
			return err
		}
		pos.Store(next) // sent: a slow client's lag shows until then
	}
}
