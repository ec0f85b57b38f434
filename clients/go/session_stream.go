package berth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// segment is some of one call's mutations, sent together in one request or
// superseded together by a re-list.
type segment struct {
	c   *call
	idx []int // indexes into c.muts, in request order
}

// batch is one request sent and not yet acknowledged.
type batch struct {
	id   uint64
	size int       // mutations in the request
	segs []segment // for call batches: the calls' mutations, in request order
	// For re-list batches: the offset of the first object in the Lister's
	// slice, and whether this request carries RESYNC_END.
	relist    bool
	offset    int
	resyncEnd bool
}

// conn is the state of one Sync stream. Lock order: conn.mu, then Session.mu.
type conn struct {
	s      *Session
	stream berthv1.StateService_SyncClient

	// Set before the stream opens, read by the receiver.
	superseded []segment
	listed     []*berthv1.Object

	mu         sync.Mutex // guards the fields below
	inflight   []*batch
	resync     ResyncResult
	relistErrs map[identity]*berthv1.ObjectError
	resynced   bool
}

// connect runs one stream: supersede what is queued, re-list, then send the
// queue, until the stream breaks. It reports whether the re-list completed.
// What was neither acknowledged nor superseded goes back to the head of the
// queue.
func (s *Session) connect(ctx context.Context) (bool, error) {
	cn := &conn{s: s, relistErrs: map[identity]*berthv1.ObjectError{}}
	cn.superseded = s.supersede()
	resynced, err := cn.run(ctx)
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if !cn.resynced {
		s.requeue(cn.superseded)
	}
	if status.Code(err) == codes.ResourceExhausted && len(cn.inflight) > 0 {
		err = cn.tooLargeLocked(err)
	}
	var segs []segment
	for _, b := range cn.inflight {
		segs = append(segs, b.segs...)
	}
	cn.inflight = nil
	s.requeue(segs)
	return resynced, err
}

// tooLargeLocked deals with a stream berthd ended with RESOURCE_EXHAUSTED:
// the request refused is the first not acknowledged (berthd answers in
// order). A re-list request ends the session, as it would be refused again;
// the calls of another request fail with ErrRequestTooLarge and the session
// reconnects.
func (cn *conn) tooLargeLocked(err error) error {
	b := cn.inflight[0]
	if b.relist {
		return fmt.Errorf("%w: a re-list request of %d objects was refused (lower MaxBatch): %w", ErrRequestTooLarge, b.size, err)
	}
	cn.inflight = cn.inflight[1:]
	callErr := fmt.Errorf("%w: a request of %d mutations carrying this call was refused (lower MaxBatch): %w", ErrRequestTooLarge, b.size, err)
	cn.s.mu.Lock()
	for _, sg := range b.segs {
		sg.c.finishLocked(callErr)
	}
	cn.s.mu.Unlock()
	return reconnectError{err}
}

func (cn *conn) run(ctx context.Context) (bool, error) {
	objs, err := cn.s.list(ctx)
	if err != nil {
		return false, listError{err}
	}
	cn.listed = objs
	cn.resync = ResyncResult{Sent: len(objs)}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := cn.s.c.State.Sync(sctx, grpc.WaitForReady(true))
	if err != nil {
		return false, err
	}
	cn.stream = stream
	recvDone := make(chan error, 1)
	go func() { recvDone <- cn.receive(); cancel() }()

	sendErr := cn.send(sctx)
	// A Send that fails with io.EOF found the stream ended by berthd: Recv
	// returns its status, which cancelling first would hide behind CANCELED
	// (and a dead replica would then cost a backoff wait).
	if !errors.Is(sendErr, io.EOF) {
		cancel()
	}
	recvErr := <-recvDone
	cn.mu.Lock()
	resynced := cn.resynced
	cn.mu.Unlock()
	if sendErr != nil && !errors.Is(sendErr, context.Canceled) && !errors.Is(sendErr, io.EOF) {
		return resynced, sendErr
	}
	return resynced, recvErr
}

// send re-lists and then sends queued calls until sctx ends or a send fails.
func (cn *conn) send(sctx context.Context) error {
	s, objs := cn.s, cn.listed
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
		if segs := s.take(); len(segs) > 0 {
			req := &berthv1.SyncRequest{}
			for _, sg := range segs {
				for _, i := range sg.idx {
					req.Mutations = append(req.Mutations, sg.c.muts[i])
				}
			}
			if err := cn.sendBatch(req, &batch{segs: segs}); err != nil {
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

func (cn *conn) sendBatch(req *berthv1.SyncRequest, b *batch) error {
	cn.s.mu.Lock()
	cn.s.batchID++
	b.id = cn.s.batchID
	cn.s.mu.Unlock()
	req.BatchId = b.id
	b.size = len(req.GetMutations())
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
		var done *ResyncResult
		if b.relist {
			done = cn.ackRelistLocked(b, resp)
		} else {
			cn.s.mu.Lock()
			ackCalls(b, resp)
			cn.s.mu.Unlock()
		}
		cn.mu.Unlock()
		if done != nil && cn.s.onResync != nil {
			cn.s.onResync(*done)
		}
	}
}

// ackRelistLocked records the acknowledgement of a re-list request. With
// RESYNC_END it answers the superseded calls and returns the result.
func (cn *conn) ackRelistLocked(b *batch, resp *berthv1.SyncResponse) *ResyncResult {
	for _, e := range resp.GetErrors() {
		i := b.offset + int(e.GetIndex())
		if i >= 0 && i < len(cn.listed) {
			cn.relistErrs[identityOf(cn.listed[i])] = e
		}
		cn.resync.Errors = append(cn.resync.Errors, objectError(i, e))
	}
	if !b.resyncEnd {
		return nil
	}
	cn.resync.Deleted = int(resp.GetResyncDeleted())
	cn.resynced = true
	cn.s.mu.Lock()
	for _, sg := range cn.superseded {
		var errs []*ObjectError
		for _, i := range sg.idx {
			up := sg.c.muts[i].GetUpsert()
			if up == nil {
				continue // a delete: the re-list holds what is left
			}
			if e := cn.relistErrs[identityOf(up)]; e != nil {
				errs = append(errs, objectError(i, e))
			}
		}
		sg.c.answerLocked(len(sg.idx), len(sg.idx)-len(errs), errs)
	}
	cn.s.mu.Unlock()
	r := cn.resync
	return &r
}

// ackCalls answers the calls of an acknowledged request. The caller holds
// Session.mu.
func ackCalls(b *batch, resp *berthv1.SyncResponse) {
	byIndex := make(map[int]*berthv1.ObjectError, len(resp.GetErrors()))
	for _, e := range resp.GetErrors() {
		byIndex[int(e.GetIndex())] = e
	}
	pos := 0
	for _, sg := range b.segs {
		var errs []*ObjectError
		applied := 0
		for j, i := range sg.idx {
			e := byIndex[pos+j]
			switch {
			case e == nil:
				applied++
			case codes.Code(e.GetCode()) == codes.NotFound && sg.c.muts[i].GetDelete() != nil:
				applied++ // deleting what Berth does not hold is success
			default:
				errs = append(errs, objectError(i, e))
			}
		}
		sg.c.answerLocked(len(sg.idx), applied, errs)
		pos += len(sg.idx)
	}
}
