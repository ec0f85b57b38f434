package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/auth"
	"github.com/berthsched/berth/server/intake"
)

// payloadCounter counts the request messages the server received and
// decoded (stats.InPayload).
type payloadCounter struct{ n atomic.Int64 }

func (c *payloadCounter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (c *payloadCounter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (c *payloadCounter) HandleConn(context.Context, stats.ConnStats) {}
func (c *payloadCounter) HandleRPC(_ context.Context, s stats.RPCStats) {
	if _, ok := s.(*stats.InPayload); ok {
		c.n.Add(1)
	}
}

// A call without a valid token is refused before its request is read: the
// server never receives, let alone decodes, its body.
func TestUnauthenticatedRequestIsNeverRead(t *testing.T) {
	tokens, err := auth.ParseTokens(strings.NewReader("rw\n"))
	if err != nil {
		t.Fatal(err)
	}
	var payloads payloadCounter
	r := start(t, Config{Edge: Edge{Authorizer: tokens}, GRPCOptions: []grpc.ServerOption{grpc.StatsHandler(&payloads)}})
	state := berthv1.NewStateServiceClient(r.conn)
	req := &berthv1.ApplyRequest{Objects: []*berthv1.Object{{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: "n", Labels: map[string]string{"k": strings.Repeat("x", 1<<20)},
	}}}}}
	for _, header := range []string{"", "Bearer nope", "Basic cnc="} {
		ctx := rpcContext(t)
		if header != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", header)
		}
		if _, err := state.Apply(ctx, req); status.Code(err) != codes.Unauthenticated {
			t.Errorf("Apply with authorization %q: %v, want UNAUTHENTICATED", header, err)
		}
	}
	if n := payloads.n.Load(); n != 0 {
		t.Errorf("the server read %d request messages of unauthenticated calls, want none", n)
	}
	// The counter works: an authenticated call's request is read.
	ctx := metadata.AppendToOutgoingContext(rpcContext(t), "authorization", "Bearer rw")
	if _, err := state.Apply(ctx, req); status.Code(err) != codes.Unimplemented {
		t.Errorf("Apply with a token: %v, want UNIMPLEMENTED", err)
	}
	if n := payloads.n.Load(); n != 1 {
		t.Errorf("the server read %d request messages of an authenticated call, want 1", n)
	}
}

// rawCodec sends bytes as they are, so that a test can send what no proto
// encoder would.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.CodecV2 = rawCodec{}

// A request that is not valid protobuf, or whose string is not UTF-8, is
// the caller's fault: INVALID_ARGUMENT, not INTERNAL.
func TestMalformedRequestIsInvalidArgument(t *testing.T) {
	r := start(t, Config{})
	tests := []struct {
		name   string
		method string
		body   []byte
	}{
		{"truncated field", "/berth.v1.StateService/Apply", []byte{0x0a, 0x10, 0x01}},
		{"invalid wire type", "/berth.v1.AdminService/QueueStats", []byte{0x0f}},
		{"string not UTF-8, unary", "/berth.v1.AdminService/QueueStats", []byte{0x0a, 0x01, 0xff}},
		{"string not UTF-8, stream", "/berth.v1.DecisionService/Watch", []byte{0x12, 0x01, 0xff}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if strings.HasSuffix(tt.method, "/Watch") {
				var stream grpc.ClientStream
				desc := &grpc.StreamDesc{ServerStreams: true}
				stream, err = r.conn.NewStream(rpcContext(t), desc, tt.method, grpc.ForceCodecV2(rawCodec{}))
				if err == nil {
					if err = stream.SendMsg(&tt.body); err == nil {
						_ = stream.CloseSend()
						var out []byte
						err = stream.RecvMsg(&out)
					}
				}
			} else {
				var out []byte
				err = r.conn.Invoke(rpcContext(t), tt.method, &tt.body, &out, grpc.ForceCodecV2(rawCodec{}))
			}
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("%s with %x: %v, want INVALID_ARGUMENT", tt.method, tt.body, err)
			}
		})
	}
}

// blockingState holds every Apply until release is closed, after telling
// entered that it holds one.
type blockingState struct {
	berthv1.UnimplementedStateServiceServer
	entered chan struct{}
	release chan struct{}
}

func (s *blockingState) Apply(ctx context.Context, _ *berthv1.ApplyRequest) (*berthv1.ApplyResponse, error) {
	s.entered <- struct{}{}
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	return &berthv1.ApplyResponse{}, nil
}

// applyOfSize is an Apply request of about size bytes.
func applyOfSize(size int) *berthv1.ApplyRequest {
	return &berthv1.ApplyRequest{Objects: []*berthv1.Object{{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: "big", Labels: map[string]string{"k": strings.Repeat("x", size)},
	}}}}}
}

// dial is a new connection to r's server.
func (r *running) dial(t *testing.T) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(r.conn.Target(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Requests held in flight are bounded in bytes, per connection and in
// total: a call beyond either bound is refused RESOURCE_EXHAUSTED, the
// calls within it succeed.
func TestRequestBytesInFlight(t *testing.T) {
	const size = 1 << 20
	svc := &blockingState{entered: make(chan struct{}), release: make(chan struct{})}
	r := start(t, Config{Services: Services{State: svc}, Edge: Edge{Limits: &intake.Limits{
		ConnStreams: 100, Streams: 100, ConnRequestBytes: 2*size + size/2, RequestBytes: 3*size + size/2,
	}}})
	conns := []*grpc.ClientConn{r.conn, r.conn, r.dial(t)}
	results := make(chan error, len(conns))
	for _, c := range conns {
		go func() {
			_, err := berthv1.NewStateServiceClient(c).Apply(rpcContext(t), applyOfSize(size))
			results <- err
		}()
		<-svc.entered
	}
	// Two held on the first connection: a third there is beyond its bound.
	if _, err := berthv1.NewStateServiceClient(r.conn).Apply(rpcContext(t), applyOfSize(size)); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("third call on a connection holding two: %v, want RESOURCE_EXHAUSTED", err)
	}
	// Three held in all: a fourth on a new connection is beyond the total.
	if _, err := berthv1.NewStateServiceClient(r.dial(t)).Apply(rpcContext(t), applyOfSize(size)); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("fourth call in all: %v, want RESOURCE_EXHAUSTED", err)
	}
	// A small request still fits.
	small := make(chan error, 1)
	go func() {
		_, err := berthv1.NewStateServiceClient(r.dial(t)).Apply(rpcContext(t), applyOfSize(1000))
		small <- err
	}()
	<-svc.entered
	close(svc.release)
	for range conns {
		if err := <-results; err != nil {
			t.Errorf("call within the bounds: %v", err)
		}
	}
	if err := <-small; err != nil {
		t.Errorf("small call: %v", err)
	}
	// Once they are done, their bytes are free again.
	go func() { <-svc.entered }()
	if _, err := berthv1.NewStateServiceClient(r.conn).Apply(rpcContext(t), applyOfSize(size)); err != nil {
		t.Errorf("call after the others ended: %v", err)
	}
}

// Streams in flight are bounded in total: one beyond is refused
// RESOURCE_EXHAUSTED before its request is read.
func TestStreamsInFlight(t *testing.T) {
	svc := &blockingState{entered: make(chan struct{}), release: make(chan struct{})}
	var payloads payloadCounter
	r := start(t, Config{Services: Services{State: svc}, Edge: Edge{Limits: &intake.Limits{ConnStreams: 100, Streams: 2}},
		GRPCOptions: []grpc.ServerOption{grpc.StatsHandler(&payloads)}})
	results := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := berthv1.NewStateServiceClient(r.dial(t)).Apply(rpcContext(t), applyOfSize(10))
			results <- err
		}()
		<-svc.entered
	}
	if _, err := berthv1.NewStateServiceClient(r.conn).Apply(rpcContext(t), applyOfSize(10)); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("third stream: %v, want RESOURCE_EXHAUSTED", err)
	}
	if n := payloads.n.Load(); n != 2 {
		t.Errorf("the server read %d requests, want the 2 admitted", n)
	}
	close(svc.release)
	for range 2 {
		if err := <-results; err != nil {
			t.Errorf("stream within the bound: %v", err)
		}
	}
}

// countingSync reads a Sync stream to its end and answers with how many
// batches it read.
type countingSync struct {
	berthv1.UnimplementedStateServiceServer
}

func (countingSync) Sync(stream berthv1.StateService_SyncServer) error {
	var n uint64
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return stream.Send(&berthv1.SyncResponse{BatchId: n})
			}
			return err
		}
		n++
	}
}

// A stream holds the bytes of the last message it received only: batches
// one after the other, each within the bound, all get through even when
// together they are over it.
func TestStreamReleasesEachMessage(t *testing.T) {
	const size = 1 << 20
	r := start(t, Config{Services: Services{State: countingSync{}}, Edge: Edge{Limits: &intake.Limits{
		ConnStreams: 10, Streams: 10, ConnRequestBytes: size + size/2, RequestBytes: size + size/2,
	}}})
	stream, err := berthv1.NewStateServiceClient(r.conn).Sync(rpcContext(t))
	if err != nil {
		t.Fatal(err)
	}
	big := applyOfSize(size).GetObjects()[0]
	for i := range 3 {
		req := &berthv1.SyncRequest{BatchId: uint64(i + 1), Mutations: []*berthv1.Mutation{{Op: &berthv1.Mutation_Upsert{Upsert: big}}}}
		if err := stream.Send(req); err != nil {
			t.Fatalf("send batch %d: %v", i+1, err)
		}
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil || resp.GetBatchId() != 3 {
		t.Errorf("Sync = %v, %v; want the 3 batches read", resp, err)
	}
}

// A refused call is logged at warn with its method and reason, never with
// the token it sent.
func TestRefusalLoggedWithoutToken(t *testing.T) {
	tokens, err := auth.ParseTokens(strings.NewReader("rw\n"))
	if err != nil {
		t.Fatal(err)
	}
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	r := start(t, Config{Logger: logger, Edge: Edge{Authorizer: tokens}})
	ctx := metadata.AppendToOutgoingContext(rpcContext(t), "authorization", "Bearer guessed-s3cret")
	if _, err := berthv1.NewStateServiceClient(r.conn).Apply(ctx, &berthv1.ApplyRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("Apply: %v, want UNAUTHENTICATED", err)
	}
	got := buf.String()
	for _, want := range []string{"level=WARN", `msg="call refused"`, "method=/berth.v1.StateService/Apply", "code=Unauthenticated", `reason="invalid bearer token"`, "peer=127.0.0.1:"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "s3cret") {
		t.Errorf("log holds the token:\n%s", got)
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
