package berth

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Handler acts on one decision. Decisions arrive in revision order, one at a
// time. A handler error stops the watcher, which has then saved the
// revision of that decision, so a new watcher starts with it again.
//
// Delivery is at least once: the watcher saves its position after each
// response, so a caller that crashes may see again the decisions it handled
// since the last save. Handlers must be idempotent (confirming a bind twice
// is harmless; so is deleting a victim already gone).
type Handler func(ctx context.Context, d *berthv1.Decision) error

// Watcher streams decisions to a Handler and resumes where it left off after
// a disconnect or a server restart, from the revision its Checkpoint holds.
type Watcher struct {
	c           *Client
	checkpoint  Checkpoint
	handle      Handler
	req         *berthv1.WatchRequest // template; from_revision set per stream
	start       uint64
	onCompacted func(context.Context, *CompactedError) (uint64, error)
	// logID is the identity of the log the revisions came from (the last
	// WatchResponse.log_id, or WatchLogID's); sent when resuming, so that a
	// berthd that lost its log refuses the watch instead of skipping.
	logID string
}

// WatchOption configures a Watcher.
type WatchOption func(*Watcher)

// WatchSchedulerName passes only the decisions of one scheduling profile.
func WatchSchedulerName(name string) WatchOption {
	return func(w *Watcher) { w.req.SchedulerName = name }
}

// WatchLogID names the decision log the checkpoint's revision belongs to
// (a WatchResponse.log_id the caller kept): berthd refuses to resume from
// another log with FAILED_PRECONDITION (reason LOG_ID_MISMATCH) rather than
// skip decisions. Without it the watcher learns the id from the first
// response and checks it on every reconnect.
func WatchLogID(id string) WatchOption {
	return func(w *Watcher) { w.logID = id }
}

// WatchTypes passes only decisions of these types.
func WatchTypes(types ...berthv1.DecisionType) WatchOption {
	return func(w *Watcher) { w.req.Types = append(w.req.Types, types...) }
}

// StartAt sets the revision to start from when the checkpoint holds none:
// 0 (the default) for only the decisions made after the watch starts, 1 for
// the whole log Berth still keeps.
func StartAt(revision uint64) WatchOption { return func(w *Watcher) { w.start = revision } }

// OnCompacted sets what the watcher does when its position was compacted out
// of the log (OUT_OF_RANGE). f should recover what was lost, typically by
// listing the binds still waiting for an outcome (AdminService.ListPending
// with QUEUE_STATE_BINDING) and acting on them, then return the revision to
// watch from: ce.Oldest to read the rest of the log, or 0 for only new
// decisions. An error from f stops the watcher. Without OnCompacted, Run
// returns the *CompactedError.
func OnCompacted(f func(ctx context.Context, ce *CompactedError) (uint64, error)) WatchOption {
	return func(w *Watcher) { w.onCompacted = f }
}

// NewWatcher returns a watcher that passes decisions to h and keeps its
// position in cp.
func (c *Client) NewWatcher(cp Checkpoint, h Handler, opts ...WatchOption) *Watcher {
	w := &Watcher{c: c, checkpoint: cp, handle: h, req: &berthv1.WatchRequest{}}
	for _, o := range opts {
		o(w)
	}
	return w
}

// Run watches until ctx ends (returning ctx.Err()), the handler or the
// checkpoint fails, the position is compacted and OnCompacted was not set
// or failed, or the server refuses the watch (INVALID_ARGUMENT,
// UNAUTHENTICATED, ...). A broken stream or a restarting server is
// retried, with backoff, from the last revision saved.
//
// When the checkpoint holds 0 and StartAt was not set, the watch starts with
// the decisions made from then on; decisions made while the first stream is
// being opened, or before its first response, may be missed on a reconnect.
// Orchestrators that cannot miss any use StartAt(1) with OnCompacted.
func (w *Watcher) Run(ctx context.Context) error {
	from, err := w.checkpoint.Load(ctx)
	if err != nil {
		return err
	}
	if from == 0 {
		from = w.start
	}
	hops, atOnce := 0, false
	for attempt := 0; ; attempt++ {
		if !atOnce {
			if err := wait(ctx, w.c.clock, w.c.backoff, attempt); err != nil {
				return err
			}
		}
		next, progressed, err := w.stream(ctx, from)
		from = next
		if progressed {
			attempt = 0
		}
		if atOnce = w.c.reconnectAtOnce(err, &hops); atOnce {
			attempt-- // another replica, at once: not a failure of its own
		}
		var stop stopError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &stop):
			return stop.err
		case compacted(from, err) != nil:
			ce := compacted(from, err)
			if w.onCompacted == nil {
				return ce
			}
			if from, err = w.onCompacted(ctx, ce); err != nil {
				return fmt.Errorf("berth client: recover from compaction: %w", err)
			}
			if err := w.checkpoint.Save(ctx, from); err != nil {
				return err
			}
			attempt = -1 // reconnect at once
		case err == nil || retryable(ctx, err):
			w.c.logger.Warn("berth watch broken; reconnecting", "from_revision", from, "err", err, "endpoint", w.c.Target())
		default:
			return fmt.Errorf("berth client: watch from revision %d: %w", from, err)
		}
	}
}

// stopError carries a handler or checkpoint failure out of stream: it ends
// Run, unlike stream failures.
type stopError struct{ err error }

func (e stopError) Error() string { return e.err.Error() }

// stream runs one Watch stream from revision from. It returns the revision
// to resume from, whether any response arrived, and why the stream ended
// (nil when the server closed it).
func (w *Watcher) stream(ctx context.Context, from uint64) (uint64, bool, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req := &berthv1.WatchRequest{FromRevision: from, SchedulerName: w.req.GetSchedulerName(), Types: w.req.GetTypes(), LogId: w.logID}
	st, err := w.c.Decisions.Watch(sctx, req, grpc.WaitForReady(true))
	if err != nil {
		return from, false, err
	}
	// Progress is saved even when ctx ends during a response, so that what
	// was handled is not handled again.
	saveCtx := context.WithoutCancel(ctx)
	progressed := false
	for {
		resp, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return from, progressed, nil
		}
		if err != nil {
			return from, progressed, err
		}
		progressed = true
		if id := resp.GetLogId(); id != "" {
			w.logID = id
		}
		for _, d := range resp.GetDecisions() {
			if from > 0 && d.GetRevision() < from {
				continue // already handled: never deliver a revision twice
			}
			if err := w.handle(ctx, d); err != nil {
				if serr := w.checkpoint.Save(saveCtx, d.GetRevision()); serr != nil {
					err = errors.Join(err, serr)
				}
				return d.GetRevision(), progressed, stopError{fmt.Errorf("berth client: handle decision %d: %w", d.GetRevision(), err)}
			}
			from = d.GetRevision() + 1
		}
		from = max(from, resp.GetNextRevision())
		if err := w.checkpoint.Save(saveCtx, from); err != nil {
			return from, progressed, stopError{err}
		}
	}
}
