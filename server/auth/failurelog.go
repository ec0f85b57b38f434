package auth

import (
	"log/slog"
	"sync"
	"time"
)

// DefaultFailureLogInterval is how often FailureLog writes at most.
const DefaultFailureLogInterval = time.Second

// FailureLog logs authentication failures at warn, at most one line per
// interval: a flood of bad calls must not flood the log. The failures
// between two lines are counted, and the next line says how many were not
// logged. Callers pass what identifies a failure (method, peer, reason),
// never a token.
type FailureLog struct {
	logger *slog.Logger
	every  time.Duration
	now    func() time.Time

	mu      sync.Mutex
	next    time.Time // no line before
	dropped int       // failures not logged since the last line
}

// NewFailureLog logs to logger (nil discards) at most once per every; now
// is the clock (nil: time.Now).
func NewFailureLog(logger *slog.Logger, every time.Duration, now func() time.Time) *FailureLog {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &FailureLog{logger: logger, every: every, now: now}
}

// Warn logs one failure, or counts it when a line was written less than
// the interval ago.
func (f *FailureLog) Warn(msg string, args ...any) {
	f.mu.Lock()
	t := f.now()
	if t.Before(f.next) {
		f.dropped++
		f.mu.Unlock()
		return
	}
	dropped := f.dropped
	f.dropped, f.next = 0, t.Add(f.every)
	f.mu.Unlock()
	if dropped > 0 {
		args = append(args, "not_logged_since_last", dropped)
	}
	f.logger.Warn(msg, args...)
}
