package bboltstore

import (
	"context"
	"fmt"
	"time"

	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/logstore"
)

// request is one Commit handed to the committer. It owns copies of the
// batch's bytes, so the caller's slices are free once Commit returns.
type request struct {
	logstore.Call
	values [][]byte // record values, time header and checksum unset
	ops    []store.Op

	// Room for the values and ops of a small batch (a decision is one
	// record and a few ops), so that they cost no allocation of their own.
	valuesArr [1][]byte
	opsArr    [3]store.Op
}

// newRequest copies b's bytes into one buffer: a decision's commit costs a
// handful of allocations, not one per key, value and record.
func newRequest(ctx context.Context, b *store.Batch) *request {
	r := &request{}
	r.Init(ctx, len(b.Records))
	size := 0
	for _, p := range b.Records {
		size += timeSize + len(p) + crcSize
	}
	for _, op := range b.Ops {
		size += len(op.Key)
		if !op.Delete {
			size += len(op.Value)
		}
	}
	// The tail keeps a record's payload, and so the whole buffer, for a
	// while: a few hundred bytes more per decision, for fewer allocations.
	buf := make([]byte, size)
	r.values = r.valuesArr[:0]
	if len(b.Records) > len(r.valuesArr) {
		r.values = make([][]byte, 0, len(b.Records))
	}
	for _, p := range b.Records {
		// The time header and the checksum are left for sealRecordValue.
		v := carve(&buf, timeSize+len(p)+crcSize)
		copy(v[timeSize:], p)
		r.values = append(r.values, v)
	}
	r.ops = r.opsArr[:0]
	if len(b.Ops) > len(r.opsArr) {
		r.ops = make([]store.Op, 0, len(b.Ops))
	}
	for _, op := range b.Ops {
		c := store.Op{Space: op.Space, Key: carve(&buf, len(op.Key)), Delete: op.Delete}
		copy(c.Key, op.Key)
		if !op.Delete {
			// Non-nil even when empty: bbolt stores an empty value rather
			// than refusing a nil one.
			c.Value = carve(&buf, len(op.Value))
			copy(c.Value, op.Value)
		}
		r.ops = append(r.ops, c)
	}
	return r
}

// carve cuts the first n bytes off *buf, capped so that an append to them
// cannot run into the rest.
func carve(buf *[]byte, n int) []byte {
	b := (*buf)[:n:n]
	*buf = (*buf)[n:]
	return b
}

// Commit implements store.Store. A commit that finds no write in progress
// and nothing queued writes its group itself, on the caller's goroutine
// (writeInline); otherwise it queues for the committer, which groups what
// queued while the write ran.
func (s *Store) Commit(ctx context.Context, b *store.Batch) (store.CommitResult, error) {
	if ok, err := s.in.Admit(ctx, b); !ok {
		return store.CommitResult{}, err
	}
	r := newRequest(ctx, b)
	if s.writeInline(r) {
		return r.Outcome() // answered already
	}
	if err := s.in.HandOver(ctx, r); err != nil {
		return store.CommitResult{}, err
	}
	return s.in.Await(ctx, &r.Call)
}

// writeInline writes r as a group of its own on the caller's goroutine
// when no write is in progress and no request waits for the committer, and
// reports whether it did. At low load, most commits: handing r to the
// committer and being woken by it would cost two goroutine switches, and
// often two thread wake-ups, on the way to the same write and fdatasync.
// Under load the committer, which groups, takes over: callers released by
// a group of several often commit again at once (within about a sync), and
// the committer's gathering merges them, so for that long after such a
// group every commit goes to the committer (groupedUntil).
func (s *Store) writeInline(r *request) bool {
	if until := s.groupedUntil.Load(); until != 0 && s.opts.Clock().UnixNano() <= until {
		return false
	}
	return s.in.WhileOpen(func() bool {
		if s.in.Queued() > 0 || !s.writeMu.TryLock() {
			return false
		}
		defer s.writeMu.Unlock()
		s.inline[0] = r
		s.write(s.inline[:])
		s.inline[0] = nil
		s.stats.inline.Add(1)
		return true
	})
}

// commitLoop is the committer: it gathers queued requests into groups and
// writes each group in one transaction. On stop it writes what was queued
// (Close stopped intake first) and returns. It holds writeMu while it
// gathers and writes, so commits that arrive meanwhile queue for it.
func (s *Store) commitLoop() {
	reqs, stop := s.in.Requests(), s.in.Stopping()
	group := make([]*request, 0, s.opts.MaxBatch)
	// The timer is created stopped and reset for each wait.
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer s.retryTimer.Stop()
	expect := 1 // size of the previous group: the concurrency to wait for
	for {
		group = group[:0]
		idle := false
		select {
		case r := <-reqs:
			group = append(group, r)
		default:
			idle = true
			select {
			case r := <-reqs:
				group = append(group, r)
			case <-s.retryTimer.C:
				s.writeMu.Lock()
				if s.failed != nil {
					s.retryWrite()
				}
				s.writeMu.Unlock()
				continue
			case <-stop:
				s.writeMu.Lock()
				s.drain(group)
				s.writeMu.Unlock()
				return
			}
		}
		s.writeMu.Lock()
		group = s.gather(group, idle, expect, timer)
		s.write(group)
		s.writeMu.Unlock()
		expect = len(group)
	}
}

// gather adds queued requests to group, up to MaxBatch. When the committer
// was busy (requests queued while it wrote) and fewer than the previous
// group's size are here, it waits for them: callers released by the last
// write are usually about to commit again. It waits up to MaxDelay, and no
// longer than the last write and sync took: waiting longer costs the
// group more than the sync it would save the latecomers (at a low, steady
// rate the callers released do not come back, and the wait was pure loss).
func (s *Store) gather(group []*request, idle bool, expect int, timer *time.Timer) []*request {
	group = s.take(group)
	want := min(expect, s.opts.MaxBatch)
	delay := s.opts.MaxDelay
	if s.lastSync > 0 {
		delay = min(delay, s.lastSync)
	}
	if idle || delay <= 0 || len(group) >= want {
		return group
	}
	timer.Reset(delay)
	defer timer.Stop()
	reqs, stop := s.in.Requests(), s.in.Stopping()
	for len(group) < want {
		select {
		case r := <-reqs:
			group = append(group, r)
		case <-timer.C:
			return group
		case <-stop:
			return group
		}
	}
	return s.take(group)
}

// take adds requests already queued to group without waiting.
func (s *Store) take(group []*request) []*request {
	reqs := s.in.Requests()
	for len(group) < s.opts.MaxBatch {
		select {
		case r := <-reqs:
			group = append(group, r)
		default:
			return group
		}
	}
	return group
}

// drain writes everything still queued, in groups.
func (s *Store) drain(group []*request) {
	for {
		group = s.take(group[:0])
		if len(group) == 0 {
			return
		}
		s.write(group)
	}
}

// write commits one group and answers its callers: the group is durable
// once its frame is in the write-ahead file, and the applier copies it into
// bbolt later. Callers whose context ended while queued are answered with
// that error and left out.
func (s *Store) write(group []*request) {
	live := logstore.Live("bboltstore", group)
	if len(live) == 0 {
		return
	}
	if s.failed != nil && !s.retryWrite() {
		logstore.Fail(live, s.failed)
		return
	}
	start := s.opts.Clock()
	now := s.clock.Stamp()
	g := &walGroup{first: s.next, time: now}
	rev := s.next
	for _, r := range live {
		for _, v := range r.values {
			sealRecordValue(v, rev, now)
			rev++
		}
		g.values = append(g.values, r.values...)
		g.ops = append(g.ops, r.ops...)
	}
	err := s.wal.append(g, s.flushForRewind)
	end := s.opts.Clock()
	s.lastSync = end.Sub(start)
	if err != nil {
		s.writeFailed(err)
		if s.failed != nil {
			err = s.failed
		}
		logstore.Fail(live, fmt.Errorf("bboltstore: commit: %w", err))
		return
	}
	g.seq = s.wal.seq
	s.written.Store(g.seq)
	if len(live) > 1 {
		s.groupedUntil.Store(end.Add(s.lastSync).UnixNano())
	} else {
		s.groupedUntil.Store(0)
	}
	s.queueApply(g)
	n := len(g.values)
	s.stats.txs.Add(1)
	s.stats.batches.Add(uint64(len(live)))
	s.stats.records.Add(uint64(n))

	first := s.next
	s.next += uint64(n)
	s.clock.Committed(now)
	if n > 0 {
		s.publish(live, first, n, now)
	}
	logstore.Committed(live, first, now)
}

// writeFailed handles a failed append. Nothing was handed out: the next
// frame goes to the same offset with the same sequence number and
// revisions. If the write reached the file (wal.dirty), the committer
// refuses commits (store.ErrUnavailable) until retryWrite has cleared what
// it may have left; if it never started (the applier could not make room
// for a rewind), the applier's own retries decide.
func (s *Store) writeFailed(err error) {
	if s.wal.dirty > 0 {
		s.refuseWrites(err)
	}
}

// refuseWrites makes commits fail with store.ErrUnavailable until a retry
// succeeds, and schedules that retry.
func (s *Store) refuseWrites(err error) {
	s.failed = fmt.Errorf("%w: writing %s failed: %w", store.ErrUnavailable, s.wal.path, err)
	delay := s.retry.next()
	s.retryAt = time.Now().Add(delay)
	s.retryTimer.Reset(delay)
	s.health.failed(walWriter, s.failed, delay)
}

// retryWrite retries writing the write-ahead file, once retryAt has
// passed, and reports whether commits may go on.
func (s *Store) retryWrite() bool {
	if time.Now().Before(s.retryAt) {
		return false
	}
	if err := s.wal.clear(); err != nil {
		s.refuseWrites(err)
		return false
	}
	s.failed = nil
	s.retry.reset()
	s.health.ok(walWriter)
	return true
}

// flushForRewind returns once bbolt holds every group written: the
// write-ahead file is full and will be overwritten from its start.
func (s *Store) flushForRewind() error {
	return s.waitAllApplied(context.Background())
}

// publish makes a written group's records visible to Read and Wait.
func (s *Store) publish(group []*request, first uint64, n int, now time.Time) {
	if s.opts.TailSize == 0 {
		s.revs.Advance(0, first+uint64(n)-1)
		return
	}
	var small [8]store.Record // a group of a few commits costs no allocation
	recs := small[:0]
	if n > len(small) {
		recs = make([]store.Record, 0, n)
	}
	rev := first
	for _, r := range group {
		for _, v := range r.values {
			recs = append(recs, store.Record{Revision: rev, Time: now, Payload: recordPayload(v)})
			rev++
		}
	}
	s.revs.Publish(recs)
}
