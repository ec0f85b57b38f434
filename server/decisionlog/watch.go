package decisionlog

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

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
	return len(f.Types) == 0 || slices.Contains(f.Types, TypeOf(d))
}

// Send delivers one response to a watcher; an error ends the watch.
type Send func(*berthv1.WatchResponse) error

// AheadError is Watch's error for a revision beyond the end of the log:
// from > newest + 1, a position this log never gave (the caller watched
// another log).
type AheadError struct {
	Requested uint64 // the revision asked for
	Next      uint64 // the newest revision plus one
}

func (e *AheadError) Error() string {
	return fmt.Sprintf("decisionlog: revision %d is beyond the end of the log (the next revision is %d)", e.Requested, e.Next)
}

// LogMismatchError is Watch's error when the caller names another log.
type LogMismatchError struct {
	Requested, Actual string
}

func (e *LogMismatchError) Error() string {
	return fmt.Sprintf("decisionlog: log id %q is not this log's (%q)", e.Requested, e.Actual)
}

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
func (l *Log) Watch(ctx context.Context, from uint64, logID string, f Filter, send Send) error {
	if l.opts.Metrics != nil {
		l.opts.Metrics.AddWatchers(1)
		defer l.opts.Metrics.AddWatchers(-1)
	}
	id := l.ID()
	if logID != "" && logID != id {
		return &LogMismatchError{Requested: logID, Actual: id}
	}
	_, last := l.store.Revisions()
	next := from
	switch {
	case next == 0:
		next = last + 1
	case next > last+1:
		return &AheadError{Requested: from, Next: last + 1}
	}
	if err := send(&berthv1.WatchResponse{NextRevision: next, LogId: id}); err != nil {
		return err
	}
	for {
		recs, err := l.store.Read(ctx, next, l.opts.ReadChunk)
		if err != nil {
			return fmt.Errorf("decisionlog: watch from revision %d: %w", next, err)
		}
		if len(recs) == 0 {
			if err := l.store.Wait(ctx, next-1); err != nil {
				return fmt.Errorf("decisionlog: watch at revision %d: %w", next, err)
			}
			continue
		}
		resp := &berthv1.WatchResponse{LogId: id}
		size := proto.Size(resp)
		for _, r := range recs {
			d, err := decode(r)
			if err != nil {
				return err
			}
			if !f.match(d) {
				continue
			}
			// The decision's share of the response: its bytes, its tag and
			// length (at most 1 + 10).
			ds := proto.Size(d) + 11
			if len(resp.Decisions) > 0 && size+ds > l.opts.MaxResponseBytes {
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
		caughtUp := len(recs) < l.opts.ReadChunk
		if len(resp.Decisions) == 0 && !caughtUp {
			continue
		}
		if err := send(resp); err != nil {
			return err
		}
	}
}
