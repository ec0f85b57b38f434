package bboltstore

import (
	"log/slog"
	"sync"
	"time"
)

// Defaults of the retry options.
const (
	DefaultRetryMin = 100 * time.Millisecond
	DefaultRetryMax = 30 * time.Second
	// healthLogEvery bounds how often a failure that goes on is logged.
	healthLogEvery = time.Minute
)

// writer names the two writers whose failures make the store unwritable.
type writer int

const (
	walWriter   writer = iota // the committer, writing the write-ahead file
	applyWriter               // the applier, copying groups into bbolt
)

func (w writer) String() string {
	if w == walWriter {
		return "write-ahead file"
	}
	return "data file"
}

// health is whether the store can write: each writer's last failure, nil
// once it wrote again. Changes close ch. A failure is logged when it
// starts, at most every healthLogEvery while it goes on, and when it ends.
type health struct {
	logger *slog.Logger
	clock  func() time.Time

	mu       sync.Mutex
	errs     [2]error
	since    [2]time.Time // when the failure started
	attempts [2]int       // retries since
	logged   [2]time.Time // when it was last logged
	ch       chan struct{}
}

func newHealth(logger *slog.Logger) *health {
	return &health{logger: logger, clock: time.Now, ch: make(chan struct{})}
}

// get returns the first failure, or nil, and a channel closed at the next
// change.
func (h *health) get() (<-chan struct{}, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, err := range h.errs {
		if err != nil {
			return h.ch, err
		}
	}
	return h.ch, nil
}

// failed records a failed write (or retry) of w.
func (h *health) failed(w writer, err error, retryIn time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.clock()
	if h.errs[w] == nil {
		h.errs[w], h.since[w], h.attempts[w], h.logged[w] = err, now, 0, now
		h.logger.Error("store cannot write; commits that need it are refused, retrying with backoff", "file", w.String(), "err", err, "retry_in", retryIn)
		h.changed()
		return
	}
	h.errs[w] = err
	h.attempts[w]++
	if now.Sub(h.logged[w]) >= healthLogEvery {
		h.logged[w] = now
		h.logger.Warn("store still cannot write", "file", w.String(), "err", err, "for", now.Sub(h.since[w]).Round(time.Second),
			"retries", h.attempts[w], "retry_in", retryIn)
	}
}

// ok records a successful write of w.
func (h *health) ok(w writer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.errs[w] == nil {
		return
	}
	h.logger.Warn("store can write again", "file", w.String(), "after", h.clock().Sub(h.since[w]).Round(time.Millisecond), "retries", h.attempts[w])
	h.errs[w] = nil
	h.changed()
}

func (h *health) changed() {
	close(h.ch)
	h.ch = make(chan struct{})
}

// backoff is an exponential retry delay.
type backoff struct {
	min, max, cur time.Duration
}

// next returns the delay before the next retry and doubles it, up to max.
func (b *backoff) next() time.Duration {
	if b.cur == 0 {
		b.cur = b.min
	}
	d := b.cur
	b.cur = min(2*b.cur, b.max)
	return d
}

func (b *backoff) reset() { b.cur = 0 }
