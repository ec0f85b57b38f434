package deadlines

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/berthsched/berth/store"
)

// Clock tells the time and waits; Real is the wall clock.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// Real is the wall clock.
type Real struct{}

func (Real) Now() time.Time                         { return time.Now() }
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Fire acts on a due deadline: name is the deadline's full name, value
// what Set stored with it. It must be idempotent (see the package doc).
type Fire func(ctx context.Context, name string, value []byte) error

// Committer is the part of store.Store deadlines write and read through.
type Committer interface {
	Commit(ctx context.Context, b *store.Batch) (store.CommitResult, error)
	List(space store.Space) ([]store.KV, error)
}

// DefaultRetryDelay is how long a failed Fire waits before it is retried.
const DefaultRetryDelay = time.Second

// Deadline is one timer.
type Deadline struct {
	Name  string
	At    time.Time
	Value []byte
}

// Timers is the set of durable deadlines. It is safe for concurrent use.
type Timers struct {
	st     Committer
	clock  Clock
	logger *slog.Logger
	retry  time.Duration

	mu      sync.Mutex
	owners  map[string]Fire // by name prefix, "taint/"
	pending map[string]Deadline
	// retryAt holds, by name, when a deadline whose Fire failed is tried
	// again.
	retryAt map[string]time.Time
	started bool
	wake    chan struct{} // a token when the earliest deadline may have moved
}

// Options configure Timers; the zero value is usable.
type Options struct {
	Clock      Clock // nil: Real
	Logger     *slog.Logger
	RetryDelay time.Duration // 0: DefaultRetryDelay
}

// New returns empty timers over st.
func New(st Committer, opts Options) *Timers {
	if opts.Clock == nil {
		opts.Clock = Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = DefaultRetryDelay
	}
	return &Timers{
		st: st, clock: opts.Clock, logger: opts.Logger, retry: opts.RetryDelay,
		owners: map[string]Fire{}, pending: map[string]Deadline{}, retryAt: map[string]time.Time{}, wake: make(chan struct{}, 1),
	}
}

// Own registers fire for the deadlines whose names start with prefix.
// Call it before Start; a due deadline with no owner is logged and kept.
func (t *Timers) Own(prefix string, fire Fire) {
	t.mu.Lock()
	t.owners[prefix] = fire
	t.mu.Unlock()
}

// Restore reads the deadlines stored before a restart back into memory;
// call it before Set, Cancel and Start.
func (t *Timers) Restore() error {
	kvs, err := t.st.List(store.Deadlines)
	if err != nil {
		return fmt.Errorf("deadlines: restore: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, kv := range kvs {
		d, err := decode(kv)
		if err != nil {
			return err
		}
		t.pending[d.Name] = d
	}
	return nil
}

func encode(d Deadline) []byte {
	v := make([]byte, 8, 8+len(d.Value))
	binary.BigEndian.PutUint64(v, uint64(d.At.UnixNano()))
	return append(v, d.Value...)
}

func decode(kv store.KV) (Deadline, error) {
	if len(kv.Value) < 8 {
		return Deadline{}, fmt.Errorf("deadlines: %q holds %d bytes: %w", kv.Key, len(kv.Value), store.ErrCorrupt)
	}
	at := time.Unix(0, int64(binary.BigEndian.Uint64(kv.Value)))
	return Deadline{Name: string(kv.Key), At: at, Value: kv.Value[8:]}, nil
}

// Set stores the deadline (replacing one of the same name) durably, then
// arms it.
func (t *Timers) Set(ctx context.Context, d Deadline) error {
	if d.Name == "" {
		return errors.New("deadlines: a deadline needs a name")
	}
	var b store.Batch
	b.Put(store.Deadlines, []byte(d.Name), encode(d))
	if _, err := t.st.Commit(ctx, &b); err != nil {
		return fmt.Errorf("deadlines: set %s: %w", d.Name, err)
	}
	d.Value = slices.Clone(d.Value)
	t.mu.Lock()
	t.pending[d.Name] = d
	delete(t.retryAt, d.Name)
	t.mu.Unlock()
	t.poke()
	return nil
}

// Get returns the deadline of that name, if set.
func (t *Timers) Get(name string) (Deadline, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, ok := t.pending[name]
	return d, ok
}

// List returns the deadlines whose names start with prefix, by name.
func (t *Timers) List(prefix string) []Deadline {
	t.mu.Lock()
	var out []Deadline
	for name, d := range t.pending {
		if strings.HasPrefix(name, prefix) {
			out = append(out, d)
		}
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b Deadline) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Cancel removes the deadline durably; cancelling none is not an error.
func (t *Timers) Cancel(ctx context.Context, name string) error {
	t.mu.Lock()
	_, ok := t.pending[name]
	t.mu.Unlock()
	if !ok {
		return nil
	}
	return t.remove(ctx, name, time.Time{})
}

// remove deletes the deadline durably and from memory; with at set, only
// if it was not replaced meanwhile (a Set after its Fire began).
func (t *Timers) remove(ctx context.Context, name string, at time.Time) error {
	var b store.Batch
	b.Delete(store.Deadlines, []byte(name))
	t.mu.Lock()
	defer t.mu.Unlock()
	if d, ok := t.pending[name]; !ok || !at.IsZero() && !d.At.Equal(at) {
		return nil
	}
	// Committed under mu so a Set racing with it is ordered after it.
	if _, err := t.st.Commit(ctx, &b); err != nil {
		return fmt.Errorf("deadlines: cancel %s: %w", name, err)
	}
	delete(t.pending, name)
	delete(t.retryAt, name)
	return nil
}

// poke wakes Run: the earliest deadline may have moved.
func (t *Timers) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Start lets due deadlines fire (Run waits for it).
func (t *Timers) Start() {
	t.mu.Lock()
	t.started = true
	t.mu.Unlock()
	t.poke()
}

// Next returns when the earliest deadline (or retry of one) falls due;
// false when none is set or Start was not called.
func (t *Timers) Next() (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var next time.Time
	if !t.started {
		return next, false
	}
	for name := range t.pending {
		if at := t.dueLocked(name); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next, !next.IsZero()
}

// dueLocked is when the deadline of that name fires next: its time, or
// its retry's.
func (t *Timers) dueLocked(name string) time.Time {
	at, retry := t.pending[name].At, t.retryAt[name]
	if retry.After(at) {
		return retry
	}
	return at
}

// FireDue fires, in time order, every deadline due at now, and returns how
// many Fire calls failed (each is retried RetryDelay after now). It fires
// nothing before Start.
func (t *Timers) FireDue(ctx context.Context, now time.Time) (failed int) {
	t.mu.Lock()
	if !t.started {
		t.mu.Unlock()
		return 0
	}
	var due []Deadline
	for name, d := range t.pending {
		if !t.dueLocked(name).After(now) {
			due = append(due, d)
		}
	}
	t.mu.Unlock()
	slices.SortFunc(due, func(a, b Deadline) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Name, b.Name))
	})
	for _, d := range due {
		if err := t.fire(ctx, d); err != nil {
			t.logger.Error("deadlines: firing failed; retrying", "name", d.Name, "err", err)
			failed++
			t.mu.Lock()
			if cur, ok := t.pending[d.Name]; ok && cur.At.Equal(d.At) {
				t.retryAt[d.Name] = now.Add(t.retry)
			}
			t.mu.Unlock()
		}
	}
	return failed
}

// fire calls the deadline's owner, then removes it (unless it was set
// again meanwhile).
func (t *Timers) fire(ctx context.Context, d Deadline) error {
	t.mu.Lock()
	var fire Fire
	best := ""
	for prefix, f := range t.owners {
		if strings.HasPrefix(d.Name, prefix) && len(prefix) >= len(best) {
			fire, best = f, prefix
		}
	}
	t.mu.Unlock()
	if fire == nil {
		return fmt.Errorf("deadlines: no owner for %s", d.Name)
	}
	if err := fire(ctx, d.Name, d.Value); err != nil {
		return err
	}
	return t.remove(ctx, d.Name, d.At)
}

// Run fires deadlines as they fall due until ctx ends.
func (t *Timers) Run(ctx context.Context) {
	for {
		var wait <-chan time.Time
		if next, ok := t.Next(); ok {
			wait = t.clock.After(max(next.Sub(t.clock.Now()), 0))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.wake:
			continue
		case <-wait:
		}
		t.FireDue(ctx, t.clock.Now())
	}
}
