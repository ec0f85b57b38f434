package client

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/grpc"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// Lister returns every object the orchestrator currently holds (of the kinds
// the session re-lists). A Session calls it each time it (re)connects.
type Lister func(ctx context.Context) ([]*berthv1.Object, error)

// ResyncResult is what one re-list did, passed to the OnResync callback.
type ResyncResult struct {
	// Sent is how many objects the Lister returned.
	Sent int
	// Deleted is how many objects Berth removed because they were not re-sent.
	Deleted int
	// Errors are the re-sent objects Berth refused; Index is the position in
	// the Lister's slice.
	Errors []*ObjectError
}

// ErrSessionClosed is returned by Upsert and Delete calls still waiting when
// the session's Run returns.
var ErrSessionClosed = errors.New("berth client: session closed")

// Session keeps one Sync stream open. Each time it connects, it re-lists
// everything the Lister returns between resync markers, so Berth drops what
// the orchestrator no longer holds; then it sends the mutations of Upsert and
// Delete calls, several calls per request when they queue up while a request
// is being sent.
//
// Calls made while the session is disconnected wait and are sent after the
// next re-list. Calls sent on a stream that broke before their
// acknowledgement are sent again on the next stream (upserts and deletes are
// idempotent), so every call is answered once.
type Session struct {
	c        *Client
	list     Lister
	kinds    []berthv1.ObjectKind
	maxBatch int
	onResync func(ResyncResult)

	wake chan struct{} // capacity 1: "the queue has work"

	mu      sync.Mutex // guards the fields below
	queue   []*call    // not yet sent, in call order
	batchID uint64
	closed  bool
}

// call is one Upsert or Delete waiting for its acknowledgement.
type call struct {
	muts []*berthv1.Mutation
	done chan error // capacity 1
}

// SessionOption configures a Session.
type SessionOption func(*Session)

// ResyncKinds re-lists only these kinds on reconnect (all kinds by default):
// Berth then keeps objects of the other kinds that were not re-sent.
func ResyncKinds(kinds ...berthv1.ObjectKind) SessionOption {
	return func(s *Session) { s.kinds = append(s.kinds, kinds...) }
}

// MaxBatch caps the mutations per request (500 by default). One call's
// mutations always travel in one request, however many.
func MaxBatch(n int) SessionOption { return func(s *Session) { s.maxBatch = max(n, 1) } }

// OnResync is called after each re-list Berth acknowledged.
func OnResync(f func(ResyncResult)) SessionOption { return func(s *Session) { s.onResync = f } }

// NewSession returns a session that re-lists through list. It does nothing
// until Run.
func (c *Client) NewSession(list Lister, opts ...SessionOption) *Session {
	s := &Session{c: c, list: list, maxBatch: 500, wake: make(chan struct{}, 1)}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Upsert creates or replaces objects and waits for Berth's acknowledgement.
// Refused objects are returned as a *BatchError (indexes into objs); the
// others took effect. If ctx ends first the objects may still be sent.
func (s *Session) Upsert(ctx context.Context, objs ...*berthv1.Object) error {
	muts := make([]*berthv1.Mutation, len(objs))
	for i, o := range objs {
		muts[i] = &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}}
	}
	return s.submit(ctx, muts)
}

// Delete removes objects and waits for Berth's acknowledgement. A reference
// Berth does not hold counts as deleted; other refusals are returned as a
// *BatchError (indexes into refs).
func (s *Session) Delete(ctx context.Context, refs ...*berthv1.ObjectRef) error {
	muts := make([]*berthv1.Mutation, len(refs))
	for i, r := range refs {
		muts[i] = &berthv1.Mutation{Op: &berthv1.Mutation_Delete{Delete: r}}
	}
	return s.submit(ctx, muts)
}

func (s *Session) submit(ctx context.Context, muts []*berthv1.Mutation) error {
	if len(muts) == 0 {
		return nil
	}
	c := &call{muts: muts, done: make(chan error, 1)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrSessionClosed
	}
	s.queue = append(s.queue, c)
	s.mu.Unlock()
	s.signal()
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Session) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run keeps the session connected until ctx ends, reconnecting with backoff
// and re-listing each time. It returns ctx.Err(), or the error of a stream
// that is not worth retrying (INVALID_ARGUMENT, UNAUTHENTICATED, ...).
// Calls still waiting then fail with ErrSessionClosed. Run is called once.
func (s *Session) Run(ctx context.Context) error {
	err := s.run(ctx)
	s.mu.Lock()
	s.closed = true
	queue := s.queue
	s.queue = nil
	s.mu.Unlock()
	for _, c := range queue {
		c.done <- ErrSessionClosed
	}
	return err
}

func (s *Session) run(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		if err := wait(ctx, s.c.clock, s.c.backoff, attempt); err != nil {
			return err
		}
		resynced, err := s.connect(ctx)
		if resynced {
			attempt = 0
		}
		var le listError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &le) || retryable(ctx, err):
			s.c.logger.Warn("berth sync broken; reconnecting", "err", err)
		default:
			return fmt.Errorf("berth client: sync: %w", err)
		}
	}
}

// listError is a Lister failure: retried with backoff like a broken stream.
type listError struct{ err error }

func (e listError) Error() string { return "berth client: list objects: " + e.err.Error() }
func (e listError) Unwrap() error { return e.err }

// batch is one request sent and not yet acknowledged.
type batch struct {
	id    uint64
	calls []*call // for call batches: the calls, their mutations in order
	// For re-list batches: the offset of the first object in the Lister's
	// slice, and whether this request carries RESYNC_END.
	relist    bool
	offset    int
	resyncEnd bool
}

// conn is the state of one Sync stream.
type conn struct {
	s        *Session
	stream   berthv1.StateService_SyncClient
	mu       sync.Mutex
	inflight []*batch
	resync   ResyncResult
	resynced bool
}

// connect runs one stream: re-list, then the queue, until the stream breaks.
// It reports whether the re-list completed. Calls in flight when the stream
// broke go back to the head of the queue.
func (s *Session) connect(ctx context.Context) (bool, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := s.c.State.Sync(sctx, grpc.WaitForReady(true))
	if err != nil {
		return false, err
	}
	cn := &conn{s: s, stream: stream}
	recvDone := make(chan error, 1)
	go func() { recvDone <- cn.receive(); cancel() }()

	sendErr := cn.send(ctx, sctx)
	cancel()
	recvErr := <-recvDone
	cn.requeue()
	if sendErr != nil && !errors.Is(sendErr, context.Canceled) {
		return cn.resynced, sendErr
	}
	return cn.resynced, recvErr
}

// send re-lists and then sends queued calls until sctx ends or a send fails.
func (cn *conn) send(ctx, sctx context.Context) error {
	s := cn.s
	objs, err := s.list(ctx)
	if err != nil {
		return listError{err}
	}
	cn.resync = ResyncResult{Sent: len(objs)}
	for off := 0; off == 0 || off < len(objs); off += s.maxBatch {
		chunk := objs[off:min(off+s.maxBatch, len(objs))]
		req := &berthv1.SyncRequest{Mutations: make([]*berthv1.Mutation, len(chunk))}
		for i, o := range chunk {
			req.Mutations[i] = &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}}
		}
		if off == 0 {
			req.Resync, req.ResyncKinds = berthv1.Resync_RESYNC_BEGIN, s.kinds
		}
		if err := cn.sendBatch(req, &batch{relist: true, offset: off}); err != nil {
			return err
		}
	}
	end := &berthv1.SyncRequest{Resync: berthv1.Resync_RESYNC_END}
	if err := cn.sendBatch(end, &batch{relist: true, resyncEnd: true}); err != nil {
		return err
	}
	for {
		if calls := s.take(); len(calls) > 0 {
			req := &berthv1.SyncRequest{}
			for _, c := range calls {
				req.Mutations = append(req.Mutations, c.muts...)
			}
			if err := cn.sendBatch(req, &batch{calls: calls}); err != nil {
				return err
			}
			continue
		}
		select {
		case <-sctx.Done():
			return sctx.Err()
		case <-s.wake:
		}
	}
}

// take removes from the queue the calls of the next request: at least one,
// and more while they fit in maxBatch.
func (s *Session) take() []*call {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, size := 0, 0
	for n < len(s.queue) && (n == 0 || size+len(s.queue[n].muts) <= s.maxBatch) {
		size += len(s.queue[n].muts)
		n++
	}
	calls := s.queue[:n:n]
	s.queue = s.queue[n:]
	return calls
}

func (cn *conn) sendBatch(req *berthv1.SyncRequest, b *batch) error {
	cn.s.mu.Lock()
	cn.s.batchID++
	b.id = cn.s.batchID
	cn.s.mu.Unlock()
	req.BatchId = b.id
	cn.mu.Lock()
	cn.inflight = append(cn.inflight, b)
	cn.mu.Unlock()
	return cn.stream.Send(req)
}

// receive matches acknowledgements to batches until the stream ends.
func (cn *conn) receive() error {
	for {
		resp, err := cn.stream.Recv()
		if err != nil {
			return err
		}
		cn.mu.Lock()
		if len(cn.inflight) == 0 || cn.inflight[0].id != resp.GetBatchId() {
			cn.mu.Unlock()
			return fmt.Errorf("berth client: acknowledgement of batch %d does not match a request", resp.GetBatchId())
		}
		b := cn.inflight[0]
		cn.inflight = cn.inflight[1:]
		cn.mu.Unlock()
		cn.ack(b, resp)
	}
}

func (cn *conn) ack(b *batch, resp *berthv1.SyncResponse) {
	if b.relist {
		if err := batchError(-b.offset, 0, resp.GetErrors(), nil); err != nil {
			cn.resync.Errors = append(cn.resync.Errors, err.(*BatchError).Errors...)
		}
		if b.resyncEnd {
			cn.resync.Deleted = int(resp.GetResyncDeleted())
			cn.resynced = true
			if cn.s.onResync != nil {
				cn.s.onResync(cn.resync)
			}
		}
		return
	}
	off := 0
	for _, c := range b.calls {
		var mine []*berthv1.ObjectError
		for _, e := range resp.GetErrors() {
			if i := int(e.GetIndex()); i >= off && i < off+len(c.muts) {
				mine = append(mine, e)
			}
		}
		isDelete := func(i int) bool { return i >= 0 && i < len(c.muts) && c.muts[i].GetDelete() != nil }
		c.done <- batchError(off, len(c.muts)-len(mine), mine, isDelete)
		off += len(c.muts)
	}
}

// requeue puts the calls of unacknowledged batches back at the head of the
// session's queue, in order, to be sent on the next stream.
func (cn *conn) requeue() {
	cn.mu.Lock()
	var calls []*call
	for _, b := range cn.inflight {
		calls = append(calls, b.calls...)
	}
	cn.inflight = nil
	cn.mu.Unlock()
	if len(calls) == 0 {
		return
	}
	cn.s.mu.Lock()
	cn.s.queue = append(calls, cn.s.queue...)
	cn.s.mu.Unlock()
}
