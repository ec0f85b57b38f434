package watch

import (
	"sync"
	"sync/atomic"
)

// positions are the positions of the open watches, for WatchLag. Each
// position is written by its watch alone; mu guards the set.
type positions struct {
	mu  sync.Mutex
	pos map[*atomic.Uint64]struct{}
}

func (w *positions) add(next uint64) *atomic.Uint64 {
	p := new(atomic.Uint64)
	p.Store(next)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pos == nil {
		w.pos = make(map[*atomic.Uint64]struct{})
	}
	w.pos[p] = struct{}{}
	return p
}

func (w *positions) remove(p *atomic.Uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.pos, p)
}

// WatchLag is how many revisions the furthest-behind open watch has yet to
// read (the newest revision plus one, less its position); 0 with no watch
// or all caught up. A watch whose lag nears the records the retention
// keeps is about to fail OUT_OF_RANGE.
func (fd *Feed) WatchLag() uint64 {
	_, last := fd.store.Revisions()
	fd.watching.mu.Lock()
	defer fd.watching.mu.Unlock()
	var lag uint64
	for p := range fd.watching.pos {
		if next := p.Load(); next <= last && last+1-next > lag {
			lag = last + 1 - next
		}
	}
	return lag
}
