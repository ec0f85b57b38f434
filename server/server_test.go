package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// testTimeout bounds each RPC of a test; it is a deadline, never a wait.
const testTimeout = 10 * time.Second

type running struct {
	conn       *grpc.ClientConn
	metricsURL string
	cancel     context.CancelFunc
	done       chan error
}

// start serves a new Server on 127.0.0.1:0 until the test ends.
func start(t *testing.T, cfg Config) *running {
	t.Helper()
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	grpcLis, err := Listen(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen gRPC: %v", err)
	}
	metricsLis, err := Listen(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen metrics: %v", err)
	}
	r := &running{metricsURL: "http://" + metricsLis.Addr().String(), cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- srv.Serve(ctx, grpcLis, metricsLis) }()
	r.conn, err = grpc.NewClient(grpcLis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() {
		_ = r.conn.Close()
		if err := r.stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return r
}

// stop ends Serve and returns its result; it may be called more than once.
func (r *running) stop() error {
	r.cancel()
	err, ok := <-r.done
	if ok {
		close(r.done)
	}
	return err
}

func rpcContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestHealthServing(t *testing.T) {
	r := start(t, Config{})
	client := healthpb.NewHealthClient(r.conn)
	for _, service := range append([]string{""}, berthServiceNames()...) {
		t.Run("service="+service, func(t *testing.T) {
			resp, err := client.Check(rpcContext(t), &healthpb.HealthCheckRequest{Service: service})
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if got := resp.GetStatus(); got != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("status = %v, want SERVING", got)
			}
		})
	}
}

func TestReflectionListsServices(t *testing.T) {
	r := start(t, Config{})
	stream, err := reflectionpb.NewServerReflectionClient(r.conn).ServerReflectionInfo(rpcContext(t))
	if err != nil {
		t.Fatalf("ServerReflectionInfo: %v", err)
	}
	req := &reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
	}
	if err := stream.Send(req); err != nil {
		t.Fatalf("Send: %v", err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatalf("Recv: %v", err)
	}
	var got []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		got = append(got, s.GetName())
	}
	slices.Sort(got)
	want := []string{
		"berth.v1.AdminService",
		"berth.v1.DecisionService",
		"berth.v1.EvictionService",
		"berth.v1.StateService",
		"berth.v1.StatsService",
		"grpc.health.v1.Health",
		"grpc.reflection.v1.ServerReflection",
		"grpc.reflection.v1alpha.ServerReflection",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("services (-want +got):\n%s", diff)
	}
}

func TestBerthRPCsAreUnimplemented(t *testing.T) {
	r := start(t, Config{})
	state := berthv1.NewStateServiceClient(r.conn)
	decision := berthv1.NewDecisionServiceClient(r.conn)
	admin := berthv1.NewAdminServiceClient(r.conn)
	tests := []struct {
		name string
		call func(context.Context) error
	}{
		{"StateService.Sync", func(ctx context.Context) error {
			stream, err := state.Sync(ctx)
			if err != nil {
				return err
			}
			if err := stream.Send(&berthv1.SyncRequest{BatchId: 1}); err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			_, err = stream.Recv()
			return err
		}},
		{"StateService.Apply", func(ctx context.Context) error {
			_, err := state.Apply(ctx, &berthv1.ApplyRequest{})
			return err
		}},
		{"StateService.Delete", func(ctx context.Context) error {
			_, err := state.Delete(ctx, &berthv1.DeleteRequest{})
			return err
		}},
		{"StateService.ReportBindResult", func(ctx context.Context) error {
			_, err := state.ReportBindResult(ctx, &berthv1.ReportBindResultRequest{})
			return err
		}},
		{"DecisionService.Watch", func(ctx context.Context) error {
			stream, err := decision.Watch(ctx, &berthv1.WatchRequest{})
			if err != nil {
				return err
			}
			_, err = stream.Recv()
			return err
		}},
		{"AdminService.Explain", func(ctx context.Context) error {
			_, err := admin.Explain(ctx, &berthv1.ExplainRequest{})
			return err
		}},
		{"AdminService.Simulate", func(ctx context.Context) error {
			_, err := admin.Simulate(ctx, &berthv1.SimulateRequest{})
			return err
		}},
		{"AdminService.ListPending", func(ctx context.Context) error {
			_, err := admin.ListPending(ctx, &berthv1.ListPendingRequest{})
			return err
		}},
		{"AdminService.ListNominations", func(ctx context.Context) error {
			_, err := admin.ListNominations(ctx, &berthv1.ListNominationsRequest{})
			return err
		}},
		{"AdminService.QueueStats", func(ctx context.Context) error {
			_, err := admin.QueueStats(ctx, &berthv1.QueueStatsRequest{})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(rpcContext(t))
			if got := status.Code(err); got != codes.Unimplemented {
				t.Errorf("code = %v (%v), want Unimplemented", got, err)
			}
		})
	}
}

func TestMetricsAndHealthz(t *testing.T) {
	r := start(t, Config{})
	_, err := berthv1.NewStateServiceClient(r.conn).Apply(rpcContext(t), &berthv1.ApplyRequest{})
	if status.Code(err) != codes.Unimplemented {
		t.Fatalf("Apply: %v, want Unimplemented", err)
	}
	tests := []struct {
		path       string
		wantStatus int
		wantLines  []string
	}{
		{
			path:       "/metrics",
			wantStatus: http.StatusOK,
			wantLines: []string{
				`grpc_server_handled_total{grpc_code="Unimplemented",grpc_method="Apply",grpc_service="berth.v1.StateService",grpc_type="unary"} 1`,
				// Methods never called are exported with zero counts.
				`grpc_server_started_total{grpc_method="Watch",grpc_service="berth.v1.DecisionService",grpc_type="server_stream"} 0`,
				`grpc_server_started_total{grpc_method="Sync",grpc_service="berth.v1.StateService",grpc_type="bidi_stream"} 0`,
			},
		},
		{path: "/healthz", wantStatus: http.StatusOK, wantLines: []string{"ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, body := get(t, r.metricsURL+tt.path)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d", status, tt.wantStatus)
			}
			lines := strings.Split(body, "\n")
			for _, want := range tt.wantLines {
				if !slices.Contains(lines, want) {
					t.Errorf("body lacks the line %s", want)
				}
			}
		})
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(rpcContext(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

func TestHealthzNotServingAfterShutdown(t *testing.T) {
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv.health.Shutdown()
	rec := httptest.NewRecorder()
	srv.httpHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("status = %d, want %d", rec.Code, http.StatusServiceUnavailable)
	}
}

// A stream that outlives the shutdown timeout is cut, and Serve still
// returns nil.
func TestServeCutsStreamsAfterShutdownTimeout(t *testing.T) {
	r := start(t, Config{ShutdownTimeout: time.Nanosecond})
	watch, err := healthpb.NewHealthClient(r.conn).Watch(rpcContext(t), &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	if _, err := watch.Recv(); err != nil {
		t.Fatalf("first Recv: %v", err)
	}
	if err := r.stop(); err != nil {
		t.Fatalf("Serve = %v, want nil", err)
	}
	for {
		resp, err := watch.Recv()
		if err != nil {
			if got := status.Code(err); got != codes.Unavailable {
				t.Errorf("stream ended with %v, want Unavailable", err)
			}
			return
		}
		if resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("status during shutdown = %v, want NOT_SERVING", resp.GetStatus())
		}
	}
}

func TestServeReturnsNilWhenCanceledBeforeStart(t *testing.T) {
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := Listen(t.Context(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := srv.Serve(ctx, lis, nil); err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
}

func TestNewFailsOnRegistryInUse(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := New(Config{Registry: reg}); err != nil {
		t.Fatalf("first New: %v", err)
	}
	if _, err := New(Config{Registry: reg}); err == nil {
		t.Error("second New on the same registry succeeded, want an error")
	}
}

// A request over MaxRecvMsgSize is refused by gRPC with RESOURCE_EXHAUSTED
// before any service sees it; one just under the limit reaches the service
// (here, none is registered: UNIMPLEMENTED).
func TestRequestSizeLimit(t *testing.T) {
	r := start(t, Config{})
	state := berthv1.NewStateServiceClient(r.conn)
	applyOfSize := func(size int) *berthv1.ApplyRequest {
		const overhead = 64 // tags and lengths around the label value
		return &berthv1.ApplyRequest{Objects: []*berthv1.Object{{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
			Name: "big", Labels: map[string]string{"k": strings.Repeat("x", size-overhead)},
		}}}}}
	}
	tests := []struct {
		name string
		size int
		want codes.Code
	}{
		{"over the limit", MaxRecvMsgSize + 1024, codes.ResourceExhausted},
		{"under the limit", MaxRecvMsgSize - 1024, codes.Unimplemented},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := applyOfSize(tc.size)
			if got := proto.Size(req); (got > MaxRecvMsgSize) != (tc.want == codes.ResourceExhausted) {
				t.Fatalf("request of %d bytes does not test %q", got, tc.name)
			}
			_, err := state.Apply(rpcContext(t), req, grpc.MaxCallSendMsgSize(2*MaxRecvMsgSize))
			if got := status.Code(err); got != tc.want {
				t.Errorf("Apply of %d bytes: %v, want %v", proto.Size(req), err, tc.want)
			}
		})
	}
}

// A follower (SetLeader(false)) serves reads: /healthz and the overall
// status stay SERVING, and /healthz?service=berth.v1.StateService, the
// check for writes, answers 503 until it leads.
func TestHealthzForWrites(t *testing.T) {
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	code := func(path string) int {
		rec := httptest.NewRecorder()
		srv.httpHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code
	}
	tests := []struct {
		leader bool
		path   string
		want   int
	}{
		{false, "/healthz", http.StatusOK},
		{false, "/healthz?service=berth.v1.DecisionService", http.StatusOK},
		{false, "/healthz?service=berth.v1.StateService", http.StatusServiceUnavailable},
		{false, "/healthz?service=berth.v1.StatsService", http.StatusServiceUnavailable},
		{false, "/healthz?service=no.such.Service", http.StatusServiceUnavailable},
		{true, "/healthz?service=berth.v1.StateService", http.StatusOK},
		{true, "/healthz", http.StatusOK},
	}
	for _, tc := range tests {
		srv.SetLeader(tc.leader)
		if got := code(tc.path); got != tc.want {
			t.Errorf("leader %v: GET %s = %d, want %d", tc.leader, tc.path, got, tc.want)
		}
	}
}
