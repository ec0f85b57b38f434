package dashboard

import (
	"context"
	"sync"
	"time"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// DefaultHistorySize is the samples History keeps by default: an hour at
// DefaultSampleEvery.
const DefaultHistorySize = 720

// DefaultSampleEvery is how often berthd samples the queue by default.
const DefaultSampleEvery = 5 * time.Second

// Sample is the queue's pod counts at one moment.
type Sample struct {
	At                                    time.Time
	Active, Backoff, Unschedulable, Gated uint32
	InFlight, Binding                     uint32
}

// History is a fixed-size ring of the latest samples; safe for
// concurrent use.
type History struct {
	mu   sync.Mutex
	ring []Sample
	next int  // where the next sample goes
	full bool // the ring has wrapped
}

// NewHistory returns an empty History keeping the last size samples (at
// least 2).
func NewHistory(size int) *History {
	return &History{ring: make([]Sample, max(size, 2))}
}

// Add records s, dropping the oldest sample when the ring is full.
func (h *History) Add(s Sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ring[h.next] = s
	h.next = (h.next + 1) % len(h.ring)
	h.full = h.full || h.next == 0
}

// Samples returns the samples held, oldest first.
func (h *History) Samples() []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.full {
		return append([]Sample(nil), h.ring[:h.next]...)
	}
	return append(append([]Sample(nil), h.ring[h.next:]...), h.ring[:h.next]...)
}

// sampleOf is a QueueStats answer as a Sample.
func sampleOf(at time.Time, st *berthv1.QueueStatsResponse) Sample {
	return Sample{
		At: at, Active: st.GetActive(), Backoff: st.GetBackoff(), Unschedulable: st.GetUnschedulable(),
		Gated: st.GetGated(), InFlight: st.GetInFlight(), Binding: st.GetBinding(),
	}
}

// Sample adds the queue's counts to the History every interval (0:
// DefaultSampleEvery), starting now, until ctx ends. berthd runs it beside
// the scheduling loop.
func (d *Dashboard) Sample(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = DefaultSampleEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		d.sampleOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (d *Dashboard) sampleOnce(ctx context.Context) {
	st, err := d.admin.QueueStats(ctx, &berthv1.QueueStatsRequest{})
	if err != nil {
		if ctx.Err() == nil {
			d.opts.Logger.Warn("dashboard: sampling the queue failed", "err", err)
		}
		return
	}
	d.opts.History.Add(sampleOf(d.opts.Now(), st))
}
