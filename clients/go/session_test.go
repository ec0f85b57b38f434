package berth

import (
	"context"
	"errors"
	"slices"
	"sync"
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

// received describes the Sync requests received: per request, its marker
// ("B", "E" or "-") followed by the names its mutations carry.
func (f *fakeBerth) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.requests))
	for i, req := range f.requests {
		s := map[berthv1.Resync]string{berthv1.Resync_RESYNC_BEGIN: "B", berthv1.Resync_RESYNC_END: "E"}[req.GetResync()]
		if s == "" {
			s = "-"
		}
		for _, m := range req.GetMutations() {
			if d := m.GetDelete(); d != nil {
				s += " del:" + d.GetName()
			} else {
				_, ref := objectKey(m.GetUpsert())
				s += " " + ref.GetName()
			}
		}
		out[i] = s
	}
	return out
}

// store is an orchestrator's record, re-listed by its session.
type store struct {
	mu   sync.Mutex
	objs []*berthv1.Object
}

func (s *store) add(objs ...*berthv1.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objs = append(s.objs, objs...)
}

func (s *store) list() []*berthv1.Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.objs)
}

// runSession starts a session (MaxBatch 2 unless opts say otherwise) whose
// lister returns objs() and returns a channel of its resync results and one
// of Run's result.
func runSession(t *testing.T, c *Client, objs func() []*berthv1.Object, opts ...SessionOption) (*Session, <-chan ResyncResult, <-chan error) {
	t.Helper()
	resyncs := make(chan ResyncResult, 10)
	opts = append([]SessionOption{OnResync(func(r ResyncResult) { resyncs <- r }), MaxBatch(2)}, opts...)
	s := c.NewSession(func(context.Context) ([]*berthv1.Object, error) { return objs(), nil }, opts...)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	result := make(chan error, 1)
	go func() { err := s.Run(ctx); done <- err; result <- err }()
	t.Cleanup(func() { cancel(); <-done })
	return s, resyncs, result
}

var ignoreProto = protocmp.Transform()

// asBatchError returns err's *BatchError (nil for nil), failing the test for
// any other error.
func asBatchError(t *testing.T, err error) *BatchError {
	t.Helper()
	var be *BatchError
	if err != nil && !errors.As(err, &be) {
		t.Fatalf("err = %v, want a *BatchError or nil", err)
	}
	return be
}

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
			got := asBatchError(t, tt.call())
			if diff := cmp.Diff(tt.want, got, ignoreProto); diff != "" {
				t.Errorf("BatchError (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]string{"b", "c", "n1"}, h.fake.keys()); diff != "" {
		t.Errorf("objects held (-want +got):\n%s", diff)
	}
}

// A call made while the session starts, of an object the record already
// holds, travels once: in the first re-list.
func TestSessionCallBeforeFirstRelistIsSentOnce(t *testing.T) {
	h := newHarness(t)
	c := h.client(&fakeClock{})
	st := &store{}
	st.add(nodeObj("n1"), podObj("a", ""))
	s := c.NewSession(func(context.Context) ([]*berthv1.Object, error) { return st.list(), nil })
	done := make(chan error, 1)
	go func() { done <- s.Upsert(t.Context(), podObj("a", "")) }()
	for queued := 0; queued == 0; {
		s.mu.Lock()
		queued = len(s.queue)
		s.mu.Unlock()
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go s.Run(ctx) //nolint:errcheck // ends with ctx

	if err := <-done; err != nil {
		t.Fatalf("Upsert = %v", err)
	}
	if diff := cmp.Diff([]string{"B n1 a", "E"}, h.fake.received()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestSessionSplitsLargeCalls(t *testing.T) {
	h := newHarness(t)
	c := h.client(&fakeClock{})
	s, resyncs, _ := runSession(t, c, func() []*berthv1.Object { return nil })
	<-resyncs

	err := s.Upsert(t.Context(), podObj("a", ""), podObj("b", ""), podObj("", ""), podObj("d", ""), podObj("e", "gold"))

	want := &BatchError{Applied: 3, Errors: []*ObjectError{
		{Index: 2, Ref: podRef(""), Code: codes.InvalidArgument, FieldPath: "name", Message: "must not be empty"},
		{Index: 4, Ref: podRef("e"), Code: codes.FailedPrecondition, FieldPath: "pod.priority_class_name", Message: "unknown priority class gold"},
	}}
	if diff := cmp.Diff(want, asBatchError(t, err), ignoreProto); diff != "" {
		t.Errorf("BatchError (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"B", "E", "- a b", "-  d", "- e"}, h.fake.received()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestSessionBatchesQueuedCalls(t *testing.T) {
	s := (&Client{}).NewSession(nil, MaxBatch(3))
	calls := []*call{
		newCall([]*berthv1.Mutation{{Op: &berthv1.Mutation_Upsert{Upsert: podObj("a", "")}}, {Op: &berthv1.Mutation_Upsert{Upsert: podObj("b", "")}}}),
		newCall([]*berthv1.Mutation{{Op: &berthv1.Mutation_Delete{Delete: podRef("x")}}}),
		newCall([]*berthv1.Mutation{{Op: &berthv1.Mutation_Upsert{Upsert: podObj("c", "")}}, {Op: &berthv1.Mutation_Upsert{Upsert: podObj("d", "")}}}),
	}
	s.queue = slices.Clone(calls)

	first := s.take()
	if len(first) != 2 || len(s.queue) != 1 {
		t.Fatalf("take() took %d calls leaving %d, want 2 leaving 1", len(first), len(s.queue))
	}
	ackCalls(&batch{segs: first}, &berthv1.SyncResponse{Errors: []*berthv1.ObjectError{
		{Index: 1, Code: berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT, Message: "bad"},
		{Index: 2, Code: berthv1.ErrorCode_ERROR_CODE_NOT_FOUND},
	}})

	want := &BatchError{Applied: 1, Errors: []*ObjectError{{Index: 1, Code: codes.InvalidArgument, Message: "bad"}}}
	if diff := cmp.Diff(want, asBatchError(t, <-calls[0].done), ignoreProto); diff != "" {
		t.Errorf("first call (-want +got):\n%s", diff)
	}
	if err := <-calls[1].done; err != nil {
		t.Errorf("second call (a delete of what is gone) = %v, want nil", err)
	}
}

// A call sent on a stream that broke before its acknowledgement, of an object
// the orchestrator's record (the re-list) already holds, is superseded by the
// re-list: it is not sent again, so it cannot undo what the re-list carries.
func TestSessionRelistSupersedesUnacknowledgedCalls(t *testing.T) {
	h := newHarness(t)
	// First stream: acks BEGIN+n1 / END / the upsert of a, then breaks on
	// the upsert of b.
	h.fake.syncBreaks = []int{3}
	c := h.client(&fakeClock{})
	st := &store{}
	st.add(nodeObj("n1"))
	s, resyncs, _ := runSession(t, c, st.list)
	if r := <-resyncs; r.Sent != 1 {
		t.Fatalf("first resync sent %d, want 1", r.Sent)
	}

	a := podObj("a", "")
	st.add(a)
	if err := s.Upsert(t.Context(), a); err != nil {
		t.Fatalf("Upsert(a) = %v", err)
	}
	b := podObj("b", "")
	st.add(b) // the record first, then Berth
	if err := s.Upsert(t.Context(), b); err != nil {
		t.Fatalf("Upsert(b), superseded by the re-list = %v, want nil", err)
	}

	if diff := cmp.Diff(ResyncResult{Sent: 3}, <-resyncs); diff != "" {
		t.Errorf("second resync (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b", "n1"}, h.fake.keys()); diff != "" {
		t.Errorf("objects held (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"B n1", "E", "- a", "B n1 a", "- b", "E"}, h.fake.received()); diff != "" {
		t.Errorf("requests (-want +got):\n%s (b travels in the re-list only)", diff)
	}
}

// A newer state in the record wins over an older call: the stale pending
// copy of pod b is not sent after the re-list that carries b bound.
func TestSessionStaleCallDoesNotUndoRelist(t *testing.T) {
	h := newHarness(t)
	h.fake.syncBreaks = []int{2} // acks BEGIN / END, breaks on the first call
	c := h.client(&fakeClock{})
	st := &store{}
	s, resyncs, _ := runSession(t, c, st.list)
	<-resyncs

	pending := podObj("b", "")
	bound := podObj("b", "")
	bound.GetPod().NodeName = "n1"
	st.add(bound) // the record moved on before the call was answered
	if err := s.Upsert(t.Context(), pending); err != nil {
		t.Fatalf("Upsert = %v", err)
	}
	<-resyncs
	h.fake.mu.Lock()
	got := h.fake.objects[refKey(podRef("b"))].GetPod().GetNodeName()
	h.fake.mu.Unlock()
	if got != "n1" {
		t.Errorf("pod b held on node %q, want n1 (the re-list's state)", got)
	}
}

func TestSessionSupersededCallGetsRelistRefusal(t *testing.T) {
	h := newHarness(t)
	h.fake.syncBreaks = []int{2}
	c := h.client(&fakeClock{})
	st := &store{}
	s, resyncs, _ := runSession(t, c, st.list)
	<-resyncs

	bad := podObj("p", "gold") // the priority class is unknown
	st.add(nodeObj("n1"), bad)
	err := s.Upsert(t.Context(), nodeObj("n1"), bad)

	want := &BatchError{Applied: 1, Errors: []*ObjectError{
		{Index: 1, Ref: podRef("p"), Code: codes.FailedPrecondition, FieldPath: "pod.priority_class_name", Message: "unknown priority class gold"},
	}}
	if diff := cmp.Diff(want, asBatchError(t, err), ignoreProto); diff != "" {
		t.Errorf("BatchError (-want +got):\n%s", diff)
	}
	if r := <-resyncs; len(r.Errors) != 1 || r.Errors[0].Index != 1 {
		t.Errorf("second resync = %+v, want the refusal of object 1", r)
	}
}

// Mutations of kinds the session does not re-list are not superseded: they
// are sent again after the re-list.
func TestSessionResendsKindsNotRelisted(t *testing.T) {
	h := newHarness(t)
	h.fake.syncBreaks = []int{2}
	c := h.client(&fakeClock{})
	st := &store{}
	st.add(podObj("a", ""))
	s, resyncs, _ := runSession(t, c, st.list, ResyncKinds(berthv1.ObjectKind_OBJECT_KIND_POD))
	<-resyncs

	b := podObj("b", "")
	st.add(b)
	if err := s.Upsert(t.Context(), b, nodeObj("n9")); err != nil {
		t.Fatalf("Upsert = %v", err)
	}
	<-resyncs
	if diff := cmp.Diff([]string{"B a", "E", "B a b", "E", "- n9"}, h.fake.received()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	h.fake.mu.Lock()
	kinds := h.fake.requests[2].GetResyncKinds()
	h.fake.mu.Unlock()
	if diff := cmp.Diff([]berthv1.ObjectKind{berthv1.ObjectKind_OBJECT_KIND_POD}, kinds); diff != "" {
		t.Errorf("resync_kinds (-want +got):\n%s", diff)
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

func TestSessionRequestTooLarge(t *testing.T) {
	t.Run("a call's request fails the call, not the session", func(t *testing.T) {
		h := newHarness(t)
		h.fake.maxMutations = 3
		c := h.client(&fakeClock{})
		s, resyncs, _ := runSession(t, c, func() []*berthv1.Object { return nil }, MaxBatch(4))
		<-resyncs

		err := s.Upsert(t.Context(), podObj("a", ""), podObj("b", ""), podObj("c", ""), podObj("d", ""))
		if !errors.Is(err, ErrRequestTooLarge) {
			t.Fatalf("Upsert of 4 = %v, want ErrRequestTooLarge", err)
		}
		if err := s.Upsert(t.Context(), podObj("e", "")); err != nil {
			t.Errorf("Upsert after = %v, want nil (the session reconnected)", err)
		}
	})
	t.Run("a re-list request ends the session", func(t *testing.T) {
		h := newHarness(t)
		h.fake.maxMutations = 1
		clock := &fakeClock{}
		c := h.client(clock)
		_, _, result := runSession(t, c, func() []*berthv1.Object { return []*berthv1.Object{nodeObj("a"), nodeObj("b")} })
		if err := <-result; !errors.Is(err, ErrRequestTooLarge) {
			t.Errorf("Run() = %v, want ErrRequestTooLarge", err)
		}
		if len(clock.waits) != 0 {
			t.Errorf("backoff waits = %v, want none (not retried)", clock.waits)
		}
	})
}

func TestSessionRunEndsPendingCalls(t *testing.T) {
	s := (&Client{clock: &fakeClock{}}).NewSession(nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c := newCall(make([]*berthv1.Mutation, 1))
	s.queue = []*call{c}

	if err := s.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Run() = %v, want context.Canceled", err)
	}
	if err := <-c.done; !errors.Is(err, ErrSessionClosed) {
		t.Errorf("pending call = %v, want ErrSessionClosed", err)
	}
	if err := s.Upsert(t.Context(), nodeObj("n")); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("Upsert after Run = %v, want ErrSessionClosed", err)
	}
}
