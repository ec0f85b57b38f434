package client

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

func nodeObj(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{Name: name}}}
}

func podObj(name, priorityClass string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{Namespace: "ns", Name: name, Uid: "uid-" + name, PriorityClassName: priorityClass}}}
}

func podRef(name string) *berthv1.ObjectRef {
	return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "ns", Name: name}
}

func (f *fakeBerth) keys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, o := range f.objects {
		_, ref := objectKey(o)
		out = append(out, ref.GetName())
	}
	slices.Sort(out)
	return out
}

// runSession starts a session whose lister returns objs() and returns a
// channel of its resync results.
func runSession(t *testing.T, c *Client, objs func() []*berthv1.Object) (*Session, <-chan ResyncResult, <-chan error) {
	t.Helper()
	resyncs := make(chan ResyncResult, 10)
	s := c.NewSession(func(context.Context) ([]*berthv1.Object, error) { return objs(), nil },
		OnResync(func(r ResyncResult) { resyncs <- r }), MaxBatch(2))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return s, resyncs, done
}

var ignoreProto = protocmp.Transform()

func TestSessionUpsertAndDeleteErrors(t *testing.T) {
	h := newHarness(t)
	c := h.client(&fakeClock{})
	s, resyncs, _ := runSession(t, c, func() []*berthv1.Object { return []*berthv1.Object{nodeObj("n1")} })
	if r := <-resyncs; r.Sent != 1 || len(r.Errors) != 0 {
		t.Fatalf("first resync = %+v, want 1 object sent, no error", r)
	}

	tests := []struct {
		name string
		call func() error
		want *BatchError // nil: success
	}{
		{name: "upserts accepted", call: func() error { return s.Upsert(t.Context(), podObj("a", ""), podObj("b", "")) }},
		{
			name: "invalid and failed precondition mapped to the caller's indexes",
			call: func() error {
				return s.Upsert(t.Context(), podObj("c", ""), podObj("", ""), podObj("d", "gold"))
			},
			want: &BatchError{Applied: 1, Errors: []*ObjectError{
				{Index: 1, Ref: podRef(""), Code: codes.InvalidArgument, FieldPath: "name", Message: "must not be empty"},
				{Index: 2, Ref: podRef("d"), Code: codes.FailedPrecondition, FieldPath: "pod.priority_class_name", Message: "unknown priority class gold"},
			}},
		},
		{name: "deleting what is not held is success", call: func() error { return s.Delete(t.Context(), podRef("a"), podRef("zzz")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var got *BatchError
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("err = %v, want a *BatchError or nil", err)
			}
			if diff := cmp.Diff(tt.want, got, ignoreProto); diff != "" {
				t.Errorf("BatchError (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]string{"b", "c", "n1"}, h.fake.keys()); diff != "" {
		t.Errorf("objects held (-want +got):\n%s", diff)
	}
}

func TestSessionRelistsAndResendsAfterStreamBreak(t *testing.T) {
	h := newHarness(t)
	// First stream: acks BEGIN+n1,n2 / n3 / END / the first upsert, then breaks.
	h.fake.syncBreaks = []int{4}
	c := h.client(&fakeClock{})
	listed := []*berthv1.Object{nodeObj("n1"), nodeObj("n2"), nodeObj("n3")}
	s, resyncs, _ := runSession(t, c, func() []*berthv1.Object { return listed })
	if r := <-resyncs; r.Sent != 3 {
		t.Fatalf("first resync sent %d, want 3", r.Sent)
	}

	if err := s.Upsert(t.Context(), podObj("a", "")); err != nil {
		t.Fatalf("Upsert(a) = %v", err)
	}
	// Unacknowledged on the first stream, sent again after the re-list.
	if err := s.Upsert(t.Context(), podObj("b", "")); err != nil {
		t.Fatalf("Upsert(b) = %v", err)
	}
	r := <-resyncs
	if diff := cmp.Diff(ResyncResult{Sent: 3, Deleted: 1}, r); diff != "" {
		t.Errorf("second resync (-want +got):\n%s (pod a was not re-listed, so it is deleted)", diff)
	}
	if diff := cmp.Diff([]string{"b", "n1", "n2", "n3"}, h.fake.keys()); diff != "" {
		t.Errorf("objects held (-want +got):\n%s", diff)
	}
	var markers []berthv1.Resync
	for _, req := range h.fake.requests {
		markers = append(markers, req.GetResync())
	}
	B, E, U := berthv1.Resync_RESYNC_BEGIN, berthv1.Resync_RESYNC_END, berthv1.Resync_RESYNC_UNSPECIFIED
	if diff := cmp.Diff([]berthv1.Resync{B, U, E, U, B, U, E, U}, markers); diff != "" {
		t.Errorf("markers of the requests received (-want +got):\n%s", diff)
	}
}

func TestSessionRelistsAfterServerRestart(t *testing.T) {
	h := newHarness(t)
	c := h.client(&fakeClock{})
	s, resyncs, _ := runSession(t, c, func() []*berthv1.Object { return []*berthv1.Object{nodeObj("n1"), podObj("p", "")} })
	<-resyncs
	h.restart()
	<-resyncs
	if err := s.Upsert(t.Context(), nodeObj("n2")); err != nil {
		t.Fatalf("Upsert after restart = %v", err)
	}
	if diff := cmp.Diff([]string{"n1", "n2", "p"}, h.fake.keys()); diff != "" {
		t.Errorf("objects held after restart (-want +got):\n%s", diff)
	}
}

func TestSessionBatchesQueuedCalls(t *testing.T) {
	s := (&Client{}).NewSession(nil, MaxBatch(3))
	calls := []*call{
		{muts: make([]*berthv1.Mutation, 2), done: make(chan error, 1)},
		{muts: []*berthv1.Mutation{{Op: &berthv1.Mutation_Delete{Delete: podRef("x")}}}, done: make(chan error, 1)},
		{muts: make([]*berthv1.Mutation, 2), done: make(chan error, 1)},
	}
	s.queue = calls

	first := s.take()
	if len(first) != 2 || len(s.queue) != 1 {
		t.Fatalf("take() took %d calls leaving %d, want 2 leaving 1", len(first), len(s.queue))
	}
	cn := &conn{s: s}
	cn.ack(&batch{calls: first}, &berthv1.SyncResponse{Errors: []*berthv1.ObjectError{
		{Index: 1, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, Message: "bad"},
		{Index: 2, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND},
	}})

	want := &BatchError{Applied: 1, Errors: []*ObjectError{{Index: 1, Code: codes.InvalidArgument, Message: "bad"}}}
	var got *BatchError
	if err := <-calls[0].done; !errors.As(err, &got) {
		t.Fatalf("first call: %v, want a *BatchError", err)
	}
	if diff := cmp.Diff(want, got, ignoreProto); diff != "" {
		t.Errorf("first call (-want +got):\n%s", diff)
	}
	if err := <-calls[1].done; err != nil {
		t.Errorf("second call (a delete of what is gone) = %v, want nil", err)
	}
}

func TestSessionRunEndsPendingCalls(t *testing.T) {
	s := (&Client{clock: &fakeClock{}}).NewSession(nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	pending := make(chan error, 1)
	s.queue = []*call{{muts: make([]*berthv1.Mutation, 1), done: pending}}

	if err := s.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Run() = %v, want context.Canceled", err)
	}
	if err := <-pending; !errors.Is(err, ErrSessionClosed) {
		t.Errorf("pending call = %v, want ErrSessionClosed", err)
	}
	if err := s.Upsert(t.Context(), nodeObj("n")); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("Upsert after Run = %v, want ErrSessionClosed", err)
	}
}
