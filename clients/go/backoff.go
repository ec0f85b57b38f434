package berth

import (
	"context"
	"time"
)

// Backoff is the exponential delay between reconnection attempts: Initial
// after the first failure, multiplied by Factor after each further one, at
// most Max. A connection that worked resets it.
type Backoff struct {
	Initial time.Duration
	Max     time.Duration
	Factor  float64
}

// DefaultBackoff waits 100ms, then 200ms, ... up to 10s.
func DefaultBackoff() Backoff {
	return Backoff{Initial: 100 * time.Millisecond, Max: 10 * time.Second, Factor: 2}
}

// Delay returns the wait before attempt n (0 for the first attempt, which
// does not wait).
func (b Backoff) Delay(n int) time.Duration {
	if n <= 0 || b.Initial <= 0 {
		return 0
	}
	d := float64(b.Initial)
	for i := 1; i < n && d < float64(b.Max); i++ {
		d *= max(b.Factor, 1)
	}
	if b.Max > 0 && d > float64(b.Max) {
		return b.Max
	}
	return time.Duration(d)
}

// Clock is what the backoff waits on.
type Clock interface {
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// wait blocks for the backoff of attempt n, or until ctx ends.
func wait(ctx context.Context, c Clock, b Backoff, n int) error {
	d := b.Delay(n)
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.After(d):
		return nil
	}
}
