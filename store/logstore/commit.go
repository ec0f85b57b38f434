package logstore

import (
	"context"
	"fmt"
	"time"

	"github.com/berthsched/berth/store"
)

// Call is one Commit awaiting its group's outcome; a backend's request
// embeds it (Init) and the committer answers it exactly once.
type Call struct {
	ctx     context.Context
	records uint64 // records the batch appends
	done    chan result
}

type result struct {
	res store.CommitResult
	err error
}

// Init readies c for a commit of records records made under ctx.
func (c *Call) Init(ctx context.Context, records int) {
	c.ctx, c.records, c.done = ctx, uint64(records), make(chan result, 1)
}

// Context is the committing caller's.
func (c *Call) Context() context.Context { return c.ctx }

// Answer tells the caller its commit's outcome.
func (c *Call) Answer(res store.CommitResult, err error) { c.done <- result{res: res, err: err} }

// Outcome is the answer of a call its caller wrote itself (already sent).
func (c *Call) Outcome() (store.CommitResult, error) {
	res := <-c.done
	return res.res, res.err
}

func (c *Call) call() *Call { return c }

// caller is a backend's request: it embeds a Call.
type caller interface{ call() *Call }

// Live answers the calls of group whose context ended, as the backend
// name, and returns the others in place.
func Live[R caller](name string, group []R) []R {
	live := group[:0]
	for _, r := range group {
		c := r.call()
		if err := c.ctx.Err(); err != nil {
			c.Answer(store.CommitResult{}, fmt.Errorf("%s: commit: %w", name, err))
			continue
		}
		live = append(live, r)
	}
	return live
}

// Fail answers every call of group with err.
func Fail[R caller](group []R, err error) {
	for _, r := range group {
		r.call().Answer(store.CommitResult{}, err)
	}
}

// Committed answers the calls of a group committed at now whose records
// start at revision first, in order.
func Committed[R caller](group []R, first uint64, now time.Time) {
	rev := first
	for _, r := range group {
		c := r.call()
		res := store.CommitResult{Time: now}
		if c.records > 0 {
			res.First, res.Last = rev, rev+c.records-1
			rev += c.records
		}
		c.Answer(res, nil)
	}
}

// Clock stamps groups: record times never go back, and carry no monotonic
// reading or zone but what decoding the stored Unix nanoseconds gives.
type Clock struct {
	now  func() time.Time
	last time.Time // the newest record's time
}

// NewClock returns a clock reading now whose newest record time is last.
func NewClock(now func() time.Time, last time.Time) Clock { return Clock{now: now, last: last} }

// Stamp returns the time of the next group.
func (c *Clock) Stamp() time.Time {
	now := c.now()
	if now.Before(c.last) {
		now = c.last
	}
	return time.Unix(0, now.UnixNano())
}

// Committed records that a group stamped t was committed.
func (c *Clock) Committed(t time.Time) { c.last = t }
