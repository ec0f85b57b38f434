package objstore

import (
	"context"
	"sync"
)

// Handler handles one event. It runs on its Subscription's goroutine, one
// event at a time, in the order they were published.
type Handler func(ctx context.Context, ev Event)

// Subscription is one subscriber's queue of events and the goroutine that
// handles them.
type Subscription struct {
	name    string
	handler Handler

	mu sync.Mutex
	// queue holds the events not handled yet; published counts every
	// event queued, handled those whose handler returned.
	queue              []Event
	published, handled uint64
	wake               chan struct{} // signalled when an event is queued
	progress           *sync.Cond    // broadcast when one is handled
	done               bool
}

// Subscribe adds a subscriber: handler gets every change applied from now
// on, on a goroutine of its own that ends with ctx.
func (s *Store) Subscribe(ctx context.Context, name string, handler Handler) *Subscription {
	sub := &Subscription{name: name, handler: handler, wake: make(chan struct{}, 1)}
	sub.progress = sync.NewCond(&sub.mu)
	s.mu.Lock()
	s.subs = append(s.subs, sub)
	s.mu.Unlock()
	go sub.run(ctx)
	return sub
}

func (s *Store) publishLocked(ev Event) {
	for _, sub := range s.subs {
		sub.push(ev)
	}
}

func (sub *Subscription) push(ev Event) {
	sub.mu.Lock()
	if sub.done {
		sub.mu.Unlock()
		return
	}
	sub.queue = append(sub.queue, ev)
	sub.published++
	sub.mu.Unlock()
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

func (sub *Subscription) run(ctx context.Context) {
	defer func() {
		sub.mu.Lock()
		sub.done, sub.queue = true, nil
		sub.handled = sub.published
		sub.progress.Broadcast()
		sub.mu.Unlock()
	}()
	for {
		sub.mu.Lock()
		batch := sub.queue
		sub.queue = nil
		sub.mu.Unlock()
		for _, ev := range batch {
			if ctx.Err() != nil {
				return
			}
			sub.handler(ctx, ev)
			sub.mu.Lock()
			sub.handled++
			sub.progress.Broadcast()
			sub.mu.Unlock()
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-sub.wake:
		}
	}
}

// Wait returns once every event published before it was called is
// handled, or the subscription ended, or ctx ended (its error).
func (sub *Subscription) Wait(ctx context.Context) error {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	target := sub.published
	stop := context.AfterFunc(ctx, func() {
		sub.mu.Lock()
		sub.progress.Broadcast()
		sub.mu.Unlock()
	})
	defer stop()
	for sub.handled < target && !sub.done {
		if err := ctx.Err(); err != nil {
			return err
		}
		sub.progress.Wait()
	}
	return nil
}

// Wait waits for every subscription (Subscription.Wait).
func (s *Store) Wait(ctx context.Context) error {
	s.mu.Lock()
	subs := append([]*Subscription(nil), s.subs...)
	s.mu.Unlock()
	for _, sub := range subs {
		if err := sub.Wait(ctx); err != nil {
			return err
		}
	}
	return nil
}
