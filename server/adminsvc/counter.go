package adminsvc

import (
	"sync"
	"time"
)

// Counter counts scheduling attempts per profile and result since it was
// made. Feed it from the scheduler's Metrics.ObserveAttempt; it is safe for
// concurrent use.
type Counter struct {
	mu     sync.Mutex
	counts map[string]*AttemptCounts
}

// AttemptCounts are the attempts of one profile (or all) by result.
type AttemptCounts struct {
	Scheduled, Unschedulable, Error uint64
}

// NewCounter returns a Counter at zero.
func NewCounter() *Counter { return &Counter{counts: map[string]*AttemptCounts{}} }

// ObserveAttempt records one attempt; result is "scheduled",
// "unschedulable" or "error", as core/scheduler's Metrics reports it.
func (c *Counter) ObserveAttempt(profile, result string, _ time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.counts[profile]
	if n == nil {
		n = &AttemptCounts{}
		c.counts[profile] = n
	}
	switch result {
	case "scheduled":
		n.Scheduled++
	case "unschedulable":
		n.Unschedulable++
	default:
		n.Error++
	}
}

// Attempts returns the counts of profile, or of every profile when it is
// empty.
func (c *Counter) Attempts(profile string) AttemptCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out AttemptCounts
	for p, n := range c.counts {
		if profile == "" || p == profile {
			out.Scheduled += n.Scheduled
			out.Unschedulable += n.Unschedulable
			out.Error += n.Error
		}
	}
	return out
}
