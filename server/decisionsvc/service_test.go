package decisionsvc

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/watch"
	"github.com/berthsched/berth/store"
)

// fakeLog answers Watch with fixed responses, then err (or waits for the
// context when err is nil).
type fakeLog struct {
	responses []*berthv1.WatchResponse
	err       error
	got       chan watch.Filter
}

func (f *fakeLog) ID() string { return "log-1" }

func (f *fakeLog) Watch(ctx context.Context, from uint64, logID string, flt watch.Filter, send watch.Send) error {
	f.got <- flt
	for _, r := range f.responses {
		if err := send(r); err != nil {
			return err
		}
	}
	if f.err != nil {
		return f.err
	}
	<-ctx.Done()
	return ctx.Err()
}

func serve(t *testing.T, svc *Service) berthv1.DecisionServiceClient {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	berthv1.RegisterDecisionServiceServer(srv, svc)
	go func() { _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); srv.Stop() })
	return berthv1.NewDecisionServiceClient(conn)
}

// recvAll reads the stream to its end and returns the responses and the
// final error.
func recvAll(t *testing.T, c berthv1.DecisionServiceClient, req *berthv1.WatchRequest) ([]*berthv1.WatchResponse, error) {
	t.Helper()
	stream, err := c.Watch(t.Context(), req)
	if err != nil {
		return nil, err
	}
	var out []*berthv1.WatchResponse
	for {
		r, err := stream.Recv()
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

func TestWatchStatus(t *testing.T) {
	tests := []struct {
		name     string
		req      *berthv1.WatchRequest
		err      error
		wantCode codes.Code
		wantInfo *errdetails.ErrorInfo
	}{
		{
			name:     "compacted",
			req:      &berthv1.WatchRequest{FromRevision: 3},
			err:      &watch.ReadError{LogID: "log-1", Revision: 3, Err: &store.CompactedError{Requested: 3, Oldest: 42}},
			wantCode: codes.OutOfRange,
			wantInfo: &errdetails.ErrorInfo{Reason: "REVISION_COMPACTED", Domain: "berth.v1", Metadata: map[string]string{"oldest_revision": "42", "log_id": "log-1"}},
		},
		{
			name:     "beyond the end",
			req:      &berthv1.WatchRequest{FromRevision: 100},
			err:      &watch.AheadError{Requested: 100, Next: 8, LogID: "log-1"},
			wantCode: codes.OutOfRange,
			wantInfo: &errdetails.ErrorInfo{Reason: "REVISION_NOT_WRITTEN", Domain: "berth.v1", Metadata: map[string]string{"next_revision": "8", "log_id": "log-1"}},
		},
		{
			name:     "another log",
			req:      &berthv1.WatchRequest{FromRevision: 3, LogId: "log-0"},
			err:      &watch.LogMismatchError{Requested: "log-0", Actual: "log-1"},
			wantCode: codes.FailedPrecondition,
			wantInfo: &errdetails.ErrorInfo{Reason: "LOG_ID_MISMATCH", Domain: "berth.v1", Metadata: map[string]string{"log_id": "log-1"}},
		},
		{name: "store closed", err: store.ErrClosed, wantCode: codes.Unavailable},
		{name: "other", err: errors.New("disk on fire"), wantCode: codes.Internal},
		{name: "unspecified type", req: &berthv1.WatchRequest{Types: []berthv1.DecisionType{0}}, wantCode: codes.InvalidArgument},
		{name: "unknown type", req: &berthv1.WatchRequest{Types: []berthv1.DecisionType{1, 99}}, wantCode: codes.InvalidArgument},
		{name: "scheduler name not a name", req: &berthv1.WatchRequest{SchedulerName: "Not A Name"}, wantCode: codes.InvalidArgument},
		{name: "log id too long", req: &berthv1.WatchRequest{LogId: strings.Repeat("x", 2<<20)}, wantCode: codes.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serve(t, New(&fakeLog{err: tt.err, got: make(chan watch.Filter, 1)}, Options{}))
			_, err := recvAll(t, c, tt.req)
			st := status.Convert(err)
			if st.Code() != tt.wantCode {
				t.Fatalf("code %v (%v), want %v", st.Code(), err, tt.wantCode)
			}
			var info *errdetails.ErrorInfo
			for _, d := range st.Details() {
				if i, ok := d.(*errdetails.ErrorInfo); ok {
					info = i
				}
			}
			if diff := cmp.Diff(tt.wantInfo, info, protocmp.Transform()); diff != "" {
				t.Errorf("ErrorInfo (-want +got):\n%s", diff)
			}
		})
	}
}

// The request's filters reach the log and its responses the client.
func TestWatchPassesThrough(t *testing.T) {
	resp := []*berthv1.WatchResponse{{NextRevision: 7}, {NextRevision: 9, Decisions: []*berthv1.Decision{{Revision: 8}}}}
	fl := &fakeLog{responses: resp, err: store.ErrClosed, got: make(chan watch.Filter, 1)}
	c := serve(t, New(fl, Options{}))
	types := []berthv1.DecisionType{berthv1.DecisionType_DECISION_TYPE_EVICT}
	got, err := recvAll(t, c, &berthv1.WatchRequest{FromRevision: 7, SchedulerName: "gpu", Types: types})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("end: %v, want UNAVAILABLE", err)
	}
	if diff := cmp.Diff(resp, got, protocmp.Transform()); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(watch.Filter{SchedulerName: "gpu", Types: types}, <-fl.got); diff != "" {
		t.Errorf("filter (-want +got):\n%s", diff)
	}
}

// Ending Options.Stopping ends open watches with UNAVAILABLE.
func TestWatchStopping(t *testing.T) {
	stopping, stop := context.WithCancel(t.Context())
	fl := &fakeLog{responses: []*berthv1.WatchResponse{{NextRevision: 1}}, got: make(chan watch.Filter, 1)}
	c := serve(t, New(fl, Options{Stopping: stopping}))
	stream, err := c.Watch(t.Context(), &berthv1.WatchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := stream.Recv(); status.Code(err) != codes.Unavailable {
		t.Errorf("after stopping: %v, want UNAVAILABLE", err)
	}
}
