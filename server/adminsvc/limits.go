package adminsvc

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/berthsched/berth/server/errmap"
)

// SimulationLimits bound one AdminService.Simulate: what it may ask, the
// work it may do and what it may answer, so that a what-if question
// cannot take berthd's memory or the live loop's CPU. A zero field means
// no limit. Each is a berthd flag, named in the refusal.
type SimulationLimits struct {
	// MaxObjects bounds cluster_delta plus cluster_removals
	// (--simulate-max-objects).
	MaxObjects int
	// MaxPods bounds pods (--simulate-max-pods).
	MaxPods int
	// MaxAttempts bounds the attempts made, a preemptor's retries
	// included (--simulate-max-attempts).
	MaxAttempts int
	// MaxResponseBytes bounds the encoded response
	// (--simulate-max-response-bytes); the default is what a gRPC client
	// receives by default.
	MaxResponseBytes int
	// Timeout bounds one simulation's run, whatever the caller's deadline
	// (--simulate-timeout).
	Timeout time.Duration
	// Concurrency bounds the simulations running; one more waits for a
	// free slot, as long as its caller waits (--simulate-concurrency). A
	// simulation plans on one core (its scheduler is deterministic,
	// plugins run one at a time), so N simulations take at most N cores
	// from the live loop.
	Concurrency int
}

// DefaultSimulationLimits are berthd's defaults.
func DefaultSimulationLimits() SimulationLimits {
	return SimulationLimits{
		MaxObjects:       10_000,
		MaxPods:          1_000,
		MaxAttempts:      3_000,
		MaxResponseBytes: 4 << 20,
		Timeout:          30 * time.Second,
		Concurrency:      1,
	}
}

// The flags raising each limit, as the refusals name them.
const (
	flagMaxObjects       = "simulate-max-objects"
	flagMaxPods          = "simulate-max-pods"
	flagMaxAttempts      = "simulate-max-attempts"
	flagMaxResponseBytes = "simulate-max-response-bytes"
	flagTimeout          = "simulate-timeout"
	flagConcurrency      = "simulate-concurrency"
)

// limitError is a Simulate refused for going beyond a limit:
// RESOURCE_EXHAUSTED, with an ErrorInfo naming the flag and its setting.
type limitError struct {
	flag  string
	value string
	msg   string // what went beyond it, and what to do
}

func (e *limitError) Error() string {
	return fmt.Sprintf("%s (the limit is berthd's --%s=%s)", e.msg, e.flag, e.value)
}

func (e *limitError) Unwrap() error { return errmap.ErrLimit }

// ErrorReason is the ErrorInfo's reason.
func (e *limitError) ErrorReason() string { return "SIMULATION_LIMIT" }

// ErrorMetadata names the limit and its setting.
func (e *limitError) ErrorMetadata() map[string]string {
	return map[string]string{"limit": e.flag, "value": e.value}
}

func countLimit(flag string, limit int, format string, args ...any) *limitError {
	return &limitError{flag: flag, value: strconv.Itoa(limit), msg: fmt.Sprintf(format, args...)}
}

// checkRequest refuses a request asking more than the limits, before any
// of it is converted.
func (l SimulationLimits) checkRequest(objects, pods int) error {
	switch {
	case l.MaxObjects > 0 && objects > l.MaxObjects:
		return countLimit(flagMaxObjects, l.MaxObjects, "cluster_delta and cluster_removals hold %d entries, more than a simulation takes", objects)
	case l.MaxPods > 0 && pods > l.MaxPods:
		return countLimit(flagMaxPods, l.MaxPods, "pods holds %d pods, more than a simulation takes: simulate them in several calls", pods)
	}
	return nil
}

// budget is what one simulation may still do: its attempts and the bytes
// of its response.
type budget struct {
	limits   SimulationLimits
	attempts int
	bytes    int
}

// add counts one attempt of n encoded bytes (its field's tag and length
// included), failing once beyond a limit.
func (b *budget) add(n int, summary bool) error {
	b.attempts++
	b.bytes += n
	switch {
	case b.limits.MaxAttempts > 0 && b.attempts > b.limits.MaxAttempts:
		return countLimit(flagMaxAttempts, b.limits.MaxAttempts, "the simulation went beyond %d attempts: simulate fewer pods", b.limits.MaxAttempts)
	case b.limits.MaxResponseBytes > 0 && b.bytes > b.limits.MaxResponseBytes:
		hint := "set summary to leave out each attempt's per-node detail, or simulate fewer pods"
		if summary {
			hint = "simulate fewer pods"
		}
		return countLimit(flagMaxResponseBytes, b.limits.MaxResponseBytes, "the response would be larger than %d bytes after %d attempts: %s", b.limits.MaxResponseBytes, b.attempts, hint)
	}
	return nil
}

// stoppable is ctx ending also when berthd stops (ErrShuttingDown).
func (s *Service) stoppable(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := func() bool { return false }
	if s.opts.Stopping != nil {
		stop = context.AfterFunc(s.opts.Stopping, func() {
			cancel(fmt.Errorf("simulation stopped: %w", errmap.ErrShuttingDown))
		})
	}
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

// budgeted is ctx ending also when the run's time is up, with a
// limitError as its cause.
func (s *Service) budgeted(ctx context.Context) (context.Context, context.CancelFunc) {
	t := s.limits.Timeout
	if t <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, t, &limitError{flag: flagTimeout, value: t.String(),
		msg: fmt.Sprintf("the simulation ran longer than %s: simulate fewer pods or a smaller delta", t)})
}

// acquire waits for one of the simulation slots until ctx ends.
func (s *Service) acquire(ctx context.Context) (func(), error) {
	if s.slots == nil {
		return func() {}, nil
	}
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for one of the %d simulation slots (--%s): %w", s.limits.Concurrency, flagConcurrency, context.Cause(ctx))
	}
}
