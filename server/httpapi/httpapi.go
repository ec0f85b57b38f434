package httpapi

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/errmap"
	gw "github.com/berthsched/berth/server/httpapi/gw/berth/v1"
	"github.com/berthsched/berth/server/httpapi/openapi"
)

// Defaults of Config's bounds. A JSON body is a few times the size of the
// protobuf message it becomes, which the gRPC server bounds to 16 MiB.
const (
	DefaultMaxBodyBytes = 64 << 20
	DefaultMaxLineBytes = 64 << 20
)

// SyncPath is where StateService.Sync is served (api/http.yaml).
const SyncPath = "/v1/state:sync"

// Config configures an API.
type Config struct {
	// Dial opens a connection to the gRPC server; the API dials once per
	// HTTP connection, on its first call.
	Dial func(ctx context.Context) (net.Conn, error)
	// MaxBodyBytes bounds a request body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxLineBytes bounds one line of Sync's body; 0 means
	// DefaultMaxLineBytes.
	MaxLineBytes int64
	// Preflight, if set, refuses a request from its metadata (the
	// Authorization header) before anything of its body is read: without
	// it, a caller with no token could make berthd hold MaxBodyBytes per
	// connection before the gRPC server's own check refused the call.
	Preflight func(ctx context.Context, md metadata.MD) error
}

// API serves berth.v1 as HTTP/JSON over gRPC connections Config.Dial
// opens. Build it with New; serve it through Server, which opens and closes
// a gRPC connection per HTTP connection.
type API struct {
	dial      func(ctx context.Context) (net.Conn, error)
	maxBody   int64
	maxLine   int64
	preflight func(ctx context.Context, md metadata.MD) error
	mux       *runtime.ServeMux
	json      *runtime.JSONPb
	state     berthv1.StateServiceClient
	decisions berthv1.DecisionServiceClient
	conns     sync.Map // net.Conn -> *lazyConn
	openAPI   []byte
	handlers  http.Handler
}

// New builds the API: the gateway's routes for every service, Sync's own
// handler, and /openapi.json.
func New(cfg Config) (*API, error) {
	if cfg.Dial == nil {
		return nil, fmt.Errorf("httpapi: Config.Dial is nil")
	}
	a := &API{
		dial:      cfg.Dial,
		maxBody:   cfg.MaxBodyBytes,
		maxLine:   cfg.MaxLineBytes,
		preflight: cfg.Preflight,
		// Unknown fields are refused rather than dropped (the gateway's
		// default drops them), so that a misspelt field is a 400 naming it.
		json: &runtime.JSONPb{
			UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
		},
		openAPI: openapi.JSON(),
	}
	if a.maxBody <= 0 {
		a.maxBody = DefaultMaxBodyBytes
	}
	if a.maxLine <= 0 {
		a.maxLine = DefaultMaxLineBytes
	}
	a.mux = runtime.NewServeMux(runtime.WithMarshalerOption(runtime.MIMEWildcard, a.json))
	cc := perHTTPConn{api: a}
	a.state = berthv1.NewStateServiceClient(cc)
	a.decisions = berthv1.NewDecisionServiceClient(cc)
	// The contexts of the gateway's handlers are the requests'; the one
	// Register takes is only used to log.
	ctx := context.Background()
	for _, err := range []error{
		gw.RegisterStateServiceHandlerClient(ctx, a.mux, a.state),
		gw.RegisterDecisionServiceHandlerClient(ctx, a.mux, a.decisions),
		gw.RegisterAdminServiceHandlerClient(ctx, a.mux, berthv1.NewAdminServiceClient(cc)),
		gw.RegisterStatsServiceHandlerClient(ctx, a.mux, berthv1.NewStatsServiceClient(cc)),
		gw.RegisterEvictionServiceHandlerClient(ctx, a.mux, berthv1.NewEvictionServiceClient(cc)),
		// Registered last, so that it takes the place of the generated
		// Sync handler, which drops a bad line's error (sync.go).
		a.mux.HandlePath(http.MethodPost, SyncPath, a.sync),
	} {
		if err != nil {
			return nil, fmt.Errorf("httpapi: %w", err)
		}
	}
	a.handlers = a.routes()
	return a, nil
}

// Handler serves the API. Its calls need the connection Server's
// ConnContext sets up: served otherwise, each call fails INTERNAL.
func (a *API) Handler() http.Handler { return a.handlers }

func (a *API) routes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/openapi.json" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(a.openAPI)
			return
		case a.preflight != nil:
			md := metadata.MD{}
			if v := r.Header.Get("Authorization"); v != "" {
				md.Set("authorization", v)
			}
			if err := a.preflight(r.Context(), md); err != nil {
				a.refuse(w, r, err)
				return
			}
		}
		switch {
		case wantsEvents(r):
			a.watchEvents(w, r)
			return
		case r.URL.Path == SyncPath:
			// Sync's body is read while its acks are written.
			_ = http.NewResponseController(w).EnableFullDuplex()
		default:
			if r.ContentLength > a.maxBody {
				a.refuse(w, r, errmap.Status(errmap.Refuse(errmap.ErrOverLimit,
					"request body of %d bytes exceeds the HTTP API's limit of %d bytes", r.ContentLength, a.maxBody)))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, a.maxBody)
		}
		a.mux.ServeHTTP(w, r)
	})
}

// refuse answers err as the gateway answers a failed call.
func (a *API) refuse(w http.ResponseWriter, r *http.Request, err error) {
	runtime.HTTPError(r.Context(), a.mux, a.json, w, r, err)
}

// Server returns an HTTP server of the API (TLS when tlsConfig is set,
// for ServeTLS with empty file names) that gives each HTTP connection its
// own gRPC connection and closes it with the HTTP connection.
func (a *API) Server(tlsConfig *tls.Config) *http.Server {
	return &http.Server{
		Handler:           a.Handler(),
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: 10 * time.Second,
		// An idle HTTP connection holds its gRPC connection: close both.
		IdleTimeout: 2 * time.Minute,
		ConnContext: a.connContext,
		ConnState:   a.connState,
	}
}

type connKey struct{}

// lazyConn is the gRPC connection of one HTTP connection, dialed on its
// first call.
type lazyConn struct {
	once sync.Once
	mu   sync.Mutex // guards cc and shut against connState
	cc   *grpc.ClientConn
	err  error
	shut bool
}

func (a *API) connContext(ctx context.Context, c net.Conn) context.Context {
	lc := &lazyConn{}
	a.conns.Store(c, lc)
	return context.WithValue(ctx, connKey{}, lc)
}

func (a *API) connState(c net.Conn, s http.ConnState) {
	if s != http.StateClosed && s != http.StateHijacked {
		return
	}
	v, ok := a.conns.LoadAndDelete(c)
	if !ok {
		return
	}
	lc := v.(*lazyConn)
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.shut = true
	if lc.cc != nil {
		_ = lc.cc.Close()
	}
}

// conn returns ctx's HTTP connection's gRPC connection, dialing it first.
func (a *API) conn(ctx context.Context) (*grpc.ClientConn, error) {
	lc, ok := ctx.Value(connKey{}).(*lazyConn)
	if !ok {
		return nil, status.Error(codes.Internal, "httpapi: the API is served without its connection hook (API.Server)")
	}
	lc.once.Do(func() {
		cc, err := grpc.NewClient("passthrough:///berthd",
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return a.dial(ctx) }),
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			// As the gRPC server sends any size, the gateway takes any.
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32)),
		)
		lc.mu.Lock()
		defer lc.mu.Unlock()
		switch {
		case err != nil:
			lc.err = status.Errorf(codes.Internal, "httpapi: connect to the gRPC server: %v", err)
		case lc.shut:
			_ = cc.Close()
			lc.err = status.Error(codes.Canceled, "httpapi: the HTTP connection closed")
		default:
			lc.cc = cc
		}
	})
	return lc.cc, lc.err
}

// perHTTPConn is the gRPC client connection the gateway calls through: each
// call goes on its HTTP connection's own gRPC connection.
type perHTTPConn struct{ api *API }

func (p perHTTPConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	cc, err := p.api.conn(ctx)
	if err != nil {
		return err
	}
	return cc.Invoke(ctx, method, args, reply, opts...)
}

func (p perHTTPConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cc, err := p.api.conn(ctx)
	if err != nil {
		return nil, err
	}
	return cc.NewStream(ctx, desc, method, opts...)
}
