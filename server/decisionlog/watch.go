package decisionlog

import (
	"context"
	"fmt"
	"slices"

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

// Watch streams the decisions matching f from revision from on (0: those
// made after the call), in revision order, until ctx ends or send fails. It
// first sends a response with no decision whose NextRevision is where the
// watch starts, so the caller knows it is established; each later response
// carries at most Options.ReadChunk decisions and the revision to resume
// from. A response with no decision is sent only when the watcher is caught
// up and filtered decisions moved its position.
//
// The watcher reads the log on the caller's goroutine and keeps nothing
// but its position: a slow send only makes it fall behind. If its position
// is compacted away, Watch returns an error wrapping *store.CompactedError;
// store.ErrClosed when the store closes; ctx's error when ctx ends.
func (l *Log) Watch(ctx context.Context, from uint64, f Filter, send Send) error {
	if l.opts.Metrics != nil {
		l.opts.Metrics.AddWatchers(1)
		defer l.opts.Metrics.AddWatchers(-1)
	}
	next := from
	if next == 0 {
		_, last := l.store.Revisions()
		next = last + 1
	}
	if err := send(&berthv1.WatchResponse{NextRevision: next}); err != nil {
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
		resp := &berthv1.WatchResponse{}
		for _, r := range recs {
			d, err := decode(r)
			if err != nil {
				return err
			}
			if f.match(d) {
				resp.Decisions = append(resp.Decisions, d)
			}
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
