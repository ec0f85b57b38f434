package berth

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// fakeBerth is an in-memory berth.v1 StateService and DecisionService. Its
// decision log survives restart (as berthd's durable log does); its objects
// do not (berthd keeps them in memory).
type fakeBerth struct {
	berthv1.UnimplementedStateServiceServer
	berthv1.UnimplementedDecisionServiceServer

	mu        sync.Mutex
	objects   map[string]*berthv1.Object
	log       []*berthv1.Decision // log[i].Revision == i+1
	oldest    uint64              // revisions below are compacted away
	appended  chan struct{}       // closed and replaced on each append
	requests  []*berthv1.SyncRequest
	reports   []*berthv1.ReportBindResultRequest
	watchFrom []uint64
	// Faults, consumed one per stream: a Sync stream ends with UNAVAILABLE
	// after acknowledging this many requests (-1: never); a Watch stream
	// ends with UNAVAILABLE after sending this many decisions.
	syncBreaks  []int
	watchBreaks []int
	// maxMutations > 0: a request with more mutations ends a Sync stream, or
	// fails an Apply or Delete, with RESOURCE_EXHAUSTED (berthd's
	// --max-batch-objects).
	maxMutations int
	unaryCalls   int // Apply and Delete calls received
	// refuseAhead: a watch from beyond the end of the log ends with
	// OUT_OF_RANGE, REVISION_NOT_WRITTEN, as berthd's does.
	refuseAhead bool
	// logID, when set, is sent with every WatchResponse, and a watch
	// naming another log ends with FAILED_PRECONDITION, LOG_ID_MISMATCH.
	logID string
}

func (f *fakeBerth) tooLargeLocked(n int) error {
	if f.maxMutations > 0 && n > f.maxMutations {
		return status.Errorf(codes.ResourceExhausted, "fake: %d mutations, more than %d", n, f.maxMutations)
	}
	return nil
}

func newFakeBerth() *fakeBerth {
	return &fakeBerth{objects: map[string]*berthv1.Object{}, appended: make(chan struct{})}
}

func objectKey(o *berthv1.Object) (string, *berthv1.ObjectRef) {
	var ref *berthv1.ObjectRef
	switch k := o.GetKind().(type) {
	case *berthv1.Object_Node:
		ref = &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: k.Node.GetName()}
	case *berthv1.Object_Pod:
		ref = &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: k.Pod.GetNamespace(), Name: k.Pod.GetName()}
	case *berthv1.Object_PriorityClass:
		ref = &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS, Name: k.PriorityClass.GetName()}
	default:
		ref = &berthv1.ObjectRef{}
	}
	return refKey(ref), ref
}

func refKey(r *berthv1.ObjectRef) string {
	return fmt.Sprintf("%d/%s/%s", r.GetKind(), r.GetNamespace(), r.GetName())
}

// applyLocked applies one mutation, returning its error or nil.
func (f *fakeBerth) applyLocked(i int, m *berthv1.Mutation, seen map[string]bool) *berthv1.ObjectError {
	if r := m.GetDelete(); r != nil {
		if _, ok := f.objects[refKey(r)]; !ok {
			return &berthv1.ObjectError{Index: uint32(i), Ref: r, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND, Message: "not held"}
		}
		delete(f.objects, refKey(r))
		delete(seen, refKey(r))
		return nil
	}
	key, ref := objectKey(m.GetUpsert())
	if ref.GetName() == "" {
		return &berthv1.ObjectError{Index: uint32(i), Ref: ref, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, FieldPath: "name", Message: "must not be empty"}
	}
	if pc := m.GetUpsert().GetPod().GetPriorityClassName(); pc != "" {
		if _, ok := f.objects[fmt.Sprintf("%d//%s", berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS, pc)]; !ok {
			return &berthv1.ObjectError{Index: uint32(i), Ref: ref, Code: berthv1.ErrorCode_ERROR_CODE_FAILED_PRECONDITION,
				FieldPath: "pod.priority_class_name", Message: "unknown priority class " + pc}
		}
	}
	f.objects[key] = m.GetUpsert()
	if seen != nil {
		seen[key] = true
	}
	return nil
}

func (f *fakeBerth) Sync(st berthv1.StateService_SyncServer) error {
	f.mu.Lock()
	breakAfter := -1
	if len(f.syncBreaks) > 0 {
		breakAfter, f.syncBreaks = f.syncBreaks[0], f.syncBreaks[1:]
	}
	f.mu.Unlock()
	var seen map[string]bool // nil outside a resync
	for acked := 0; ; acked++ {
		req, err := st.Recv()
		if err != nil {
			return nil
		}
		if acked == breakAfter {
			return status.Error(codes.Unavailable, "fake: sync broken")
		}
		f.mu.Lock()
		if err := f.tooLargeLocked(len(req.GetMutations())); err != nil {
			f.mu.Unlock()
			return err
		}
		f.requests = append(f.requests, req)
		resp := &berthv1.SyncResponse{BatchId: req.GetBatchId()}
		if req.GetResync() == berthv1.Resync_RESYNC_BEGIN {
			seen = map[string]bool{}
		}
		for i, m := range req.GetMutations() {
			if oe := f.applyLocked(i, m, seen); oe != nil {
				resp.Errors = append(resp.Errors, oe)
			} else {
				resp.Applied++
			}
		}
		if req.GetResync() == berthv1.Resync_RESYNC_END {
			for k := range f.objects {
				if !seen[k] {
					delete(f.objects, k)
					resp.ResyncDeleted++
				}
			}
			seen = nil
		}
		f.mu.Unlock()
		if err := st.Send(resp); err != nil {
			return err
		}
	}
}

func (f *fakeBerth) Apply(_ context.Context, req *berthv1.ApplyRequest) (*berthv1.ApplyResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unaryCalls++
	if err := f.tooLargeLocked(len(req.GetObjects())); err != nil {
		return nil, err
	}
	resp := &berthv1.ApplyResponse{}
	for i, o := range req.GetObjects() {
		if oe := f.applyLocked(i, &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}}, nil); oe != nil {
			resp.Errors = append(resp.Errors, oe)
		} else {
			resp.Applied++
		}
	}
	return resp, nil
}

func (f *fakeBerth) Delete(_ context.Context, req *berthv1.DeleteRequest) (*berthv1.DeleteResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unaryCalls++
	if err := f.tooLargeLocked(len(req.GetRefs())); err != nil {
		return nil, err
	}
	resp := &berthv1.DeleteResponse{}
	for i, r := range req.GetRefs() {
		if oe := f.applyLocked(i, &berthv1.Mutation{Op: &berthv1.Mutation_Delete{Delete: r}}, nil); oe != nil {
			resp.Errors = append(resp.Errors, oe)
		} else {
			resp.Deleted++
		}
	}
	return resp, nil
}

func (f *fakeBerth) ReportBindResult(_ context.Context, req *berthv1.ReportBindResultRequest) (*berthv1.ReportBindResultResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if req.GetRevision() == 0 || req.GetNode() == "" {
		return nil, status.Error(codes.InvalidArgument, "fake: revision and node required")
	}
	f.reports = append(f.reports, req)
	return &berthv1.ReportBindResultResponse{}, nil
}

// decide appends decisions for the named pods (namespace "ns") to the log.
func (f *fakeBerth) decide(pods ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range pods {
		f.log = append(f.log, &berthv1.Decision{
			Revision: uint64(len(f.log) + 1),
			Pod:      &berthv1.PodRef{Namespace: "ns", Name: p, Uid: "uid-" + p},
			Action:   &berthv1.Decision_Bind{Bind: &berthv1.Bind{Node: "n1"}},
		})
	}
	close(f.appended)
	f.appended = make(chan struct{})
}

func (f *fakeBerth) Watch(req *berthv1.WatchRequest, st berthv1.DecisionService_WatchServer) error {
	f.mu.Lock()
	from := req.GetFromRevision()
	f.watchFrom = append(f.watchFrom, from)
	if from == 0 {
		from = uint64(len(f.log)) + 1
	}
	if next := uint64(len(f.log)) + 1; f.refuseAhead && from > next {
		f.mu.Unlock()
		st, _ := status.New(codes.OutOfRange, "fake: beyond the end").WithDetails(&errdetails.ErrorInfo{
			Reason: ReasonRevisionNotWritten, Domain: "berth.v1", Metadata: map[string]string{"next_revision": strconv.FormatUint(next, 10)},
		})
		return st.Err()
	}
	if id := req.GetLogId(); id != "" && f.logID != "" && id != f.logID {
		f.mu.Unlock()
		st, _ := status.New(codes.FailedPrecondition, "fake: another log").WithDetails(&errdetails.ErrorInfo{
			Reason: ReasonLogIDMismatch, Domain: "berth.v1", Metadata: map[string]string{"log_id": f.logID},
		})
		return st.Err()
	}
	if from < f.oldest {
		f.mu.Unlock()
		st, _ := status.New(codes.OutOfRange, "fake: compacted").WithDetails(&errdetails.ErrorInfo{
			Reason: "REVISION_COMPACTED", Domain: "berth.v1",
			Metadata: map[string]string{"oldest_revision": strconv.FormatUint(f.oldest, 10)},
		})
		return st.Err()
	}
	breakAfter := -1
	if len(f.watchBreaks) > 0 {
		breakAfter, f.watchBreaks = f.watchBreaks[0], f.watchBreaks[1:]
	}
	logID := f.logID
	f.mu.Unlock()
	for sent := 0; ; {
		f.mu.Lock()
		var batch []*berthv1.Decision
		if from <= uint64(len(f.log)) {
			batch = f.log[from-1:]
		}
		appended := f.appended
		f.mu.Unlock()
		for _, d := range batch {
			if sent == breakAfter {
				return status.Error(codes.Unavailable, "fake: watch broken")
			}
			if err := st.Send(&berthv1.WatchResponse{Decisions: []*berthv1.Decision{d}, NextRevision: d.GetRevision() + 1, LogId: logID}); err != nil {
				return err
			}
			sent++
			from = d.GetRevision() + 1
		}
		select {
		case <-st.Context().Done():
			return st.Context().Err()
		case <-appended:
		}
	}
}

// harness runs a fakeBerth behind a gRPC server on bufconn, which it can
// restart (a new server and listener, the same fakeBerth).
type harness struct {
	t    *testing.T
	fake *fakeBerth

	mu  sync.Mutex
	lis *bufconn.Listener
	srv *grpc.Server
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, fake: newFakeBerth()}
	h.start()
	t.Cleanup(h.stop)
	return h
}

func (h *harness) start() {
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	berthv1.RegisterStateServiceServer(srv, h.fake)
	berthv1.RegisterDecisionServiceServer(srv, h.fake)
	go srv.Serve(lis) //nolint:errcheck // ends with Stop
	h.mu.Lock()
	h.lis, h.srv = lis, srv
	h.mu.Unlock()
}

func (h *harness) stop() {
	h.mu.Lock()
	srv := h.srv
	h.mu.Unlock()
	srv.Stop()
}

// restart stops the server (breaking every stream) and starts a new one that
// lost the objects but kept the decision log.
func (h *harness) restart() {
	h.stop()
	h.fake.mu.Lock()
	h.fake.objects = map[string]*berthv1.Object{}
	h.fake.mu.Unlock()
	h.start()
}

// client dials the current server; reconnections reach the restarted one.
// Backoff waits go through a clock that fires at once and records them.
func (h *harness) client(clock *fakeClock, opts ...Option) *Client {
	dialer := func(ctx context.Context, _ string) (net.Conn, error) {
		h.mu.Lock()
		lis := h.lis
		h.mu.Unlock()
		return lis.DialContext(ctx)
	}
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(dialer), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: time.Millisecond, Multiplier: 1, MaxDelay: time.Millisecond},
			MinConnectTimeout: time.Second,
		}))
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { conn.Close() })
	return New(conn, append([]Option{WithClock(clock)}, opts...)...)
}

// fakeClock fires every After at once and records the durations asked.
type fakeClock struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- time.Time{}
	return ch
}
