package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/httpapi"
	"github.com/berthsched/berth/server/intake"
)

// DefaultShutdownTimeout is how long Serve waits, once its context ends, for
// RPCs in flight to finish before it cuts the remaining streams.
const DefaultShutdownTimeout = 10 * time.Second

// Services are the implementations of the berth.v1 services. A nil field is
// served by the generated Unimplemented server: each of its RPCs answers
// codes.Unimplemented.
type Services struct {
	State    berthv1.StateServiceServer
	Decision berthv1.DecisionServiceServer
	Admin    berthv1.AdminServiceServer
	Stats    berthv1.StatsServiceServer
	Eviction berthv1.EvictionServiceServer
}

// Config configures a Server.
type Config struct {
	// Logger receives the server's lifecycle messages; nil discards them.
	Logger *slog.Logger
	// Registry receives the gRPC server metrics and the Go and process
	// collectors, and is what /metrics serves; nil makes a new one. Pass
	// one to add other components' metrics to /metrics.
	Registry *prometheus.Registry
	// ShutdownTimeout bounds the graceful stop; 0 means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Services implement berth.v1.
	Services Services
	// Edge says who may call and bounds what calls in flight hold.
	Edge Edge
	// GRPCOptions are added to the gRPC server's: interceptors (chained
	// after the metrics interceptors). Not transport credentials: those
	// are Creds, which the HTTP API's in-process connections skip (given
	// here, they would refuse them).
	GRPCOptions []grpc.ServerOption
	// Creds, if set, are the gRPC server's transport credentials (TLS).
	// The HTTP API's in-process connections skip them: its listener does
	// TLS itself, with HTTPTLS.
	Creds credentials.TransportCredentials
	// HTTPTLS, if set, is the TLS of the HTTP API's listener: the same
	// certificate, key and client CA as Creds.
	HTTPTLS *tls.Config
	// Dashboard, if set, serves every path of the metrics listener but
	// /metrics and /healthz (server/dashboard).
	Dashboard http.Handler
	// MetricsTokens, if set, guard /metrics: a scrape must send
	// "Authorization: Bearer <token>" with a token they know (berthd's
	// --metrics-auth token); nil serves it to anyone. /healthz is never
	// guarded.
	MetricsTokens TokenScopes
}

// Server serves berth.v1, health and reflection over gRPC, and metrics over
// HTTP. It serves once: after Serve returns it cannot serve again.
type Server struct {
	logger          *slog.Logger
	registry        *prometheus.Registry
	shutdownTimeout time.Duration
	health          *health.Server
	grpc            *grpc.Server
	dashboard       http.Handler
	metricsTokens   TokenScopes
	serving         prometheus.Gauge
	// The HTTP API (server/httpapi) calls the gRPC server over inProcess.
	inProcess *inProcess
	api       *httpapi.API
	httpTLS   *tls.Config
}

// New builds a Server from cfg. It fails when the metrics cannot be
// registered on cfg.Registry (for example when they already are).
func New(cfg Config) (*Server, error) {
	s := &Server{
		logger:          cfg.Logger,
		registry:        cfg.Registry,
		shutdownTimeout: cfg.ShutdownTimeout,
		health:          health.NewServer(),
		dashboard:       cfg.Dashboard,
		metricsTokens:   cfg.MetricsTokens,
		inProcess:       newInProcess(),
		httpTLS:         cfg.HTTPTLS,
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.registry == nil {
		s.registry = prometheus.NewRegistry()
	}
	if s.shutdownTimeout <= 0 {
		s.shutdownTimeout = DefaultShutdownTimeout
	}
	svc := cfg.Services
	if svc.State == nil {
		svc.State = berthv1.UnimplementedStateServiceServer{}
	}
	if svc.Decision == nil {
		svc.Decision = berthv1.UnimplementedDecisionServiceServer{}
	}
	if svc.Stats == nil {
		svc.Stats = berthv1.UnimplementedStatsServiceServer{}
	}
	if svc.Admin == nil {
		svc.Admin = berthv1.UnimplementedAdminServiceServer{}
	}
	if svc.Eviction == nil {
		svc.Eviction = berthv1.UnimplementedEvictionServiceServer{}
	}

	metrics := grpcprom.NewServerMetrics()
	metrics.EnableHandlingTimeHistogram()
	s.serving = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "berth_serving",
		Help: "1 while berthd reports SERVING (gRPC health and /healthz), 0 while NOT_SERVING (its store cannot write, or it is shutting down).",
	})
	for _, c := range []prometheus.Collector{
		metrics,
		s.serving,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := s.registry.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}

	limits := intake.DefaultLimits()
	if cfg.Edge.Limits != nil {
		limits = *cfg.Edge.Limits
	}
	in := intake.New(limits)
	opts := append(edgeOptions(cfg.Edge, in, s.logger), cfg.GRPCOptions...)
	if cfg.Creds != nil {
		opts = append(opts, grpc.Creds(trustInProcess{cfg.Creds}))
	}
	s.grpc = newGRPCServer(svc, s.health, metrics, in, opts...)
	apiCfg := httpapi.Config{Dial: s.inProcess.Dial}
	if authz := cfg.Edge.Authorizer; authz != nil {
		// Before an HTTP body is read, a request must carry a token that
		// may call something (ServerInfo: any valid token may); the tap
		// checks the call's own method when the gateway makes it.
		apiCfg.Preflight = func(ctx context.Context, md metadata.MD) error {
			return authz.Authorize(ctx, berthv1.AdminService_ServerInfo_FullMethodName, md)
		}
	}
	api, err := httpapi.New(apiCfg)
	if err != nil {
		return nil, err
	}
	s.api = api
	s.SetServing(true)
	return s, nil
}

// SetServing sets what gRPC health (overall and for each berth.v1
// service) and /healthz report: SERVING or NOT_SERVING. It has no effect
// once Serve is shutting down.
func (s *Server) SetServing(serving bool) {
	status := healthpb.HealthCheckResponse_NOT_SERVING
	s.serving.Set(0)
	if serving {
		status = healthpb.HealthCheckResponse_SERVING
		s.serving.Set(1)
	}
	s.health.SetServingStatus("", status)
	for _, name := range berthServiceNames() {
		s.health.SetServingStatus(name, status)
	}
}

// SetLeader sets what gRPC health reports for the services only a leader
// serves, berth.v1.StateService and berth.v1.StatsService (writes):
// SERVING on the leader, NOT_SERVING on the other replicas of an etcd
// group (server/replica), which still report SERVING overall ("") and for
// the reads (DecisionService, AdminService). Load balancers that route
// writes check berth.v1.StateService.
func (s *Server) SetLeader(leader bool) {
	status := healthpb.HealthCheckResponse_NOT_SERVING
	if leader {
		status = healthpb.HealthCheckResponse_SERVING
	}
	s.health.SetServingStatus(berthv1.StateService_ServiceDesc.ServiceName, status)
	s.health.SetServingStatus(berthv1.StatsService_ServiceDesc.ServiceName, status)
}

// Serve serves gRPC on grpcLis and, unless metricsLis is nil, /metrics and
// /healthz on metricsLis, until ctx ends or a listener fails. It then
// reports NOT_SERVING, stops accepting, lets RPCs in flight finish for up to
// the shutdown timeout, and cuts those still running (long-lived streams).
// It closes both listeners. It returns nil after a shutdown caused by ctx,
// and the failure otherwise.
func (s *Server) Serve(ctx context.Context, grpcLis, metricsLis net.Listener) error {
	return s.ServeListeners(ctx, Listeners{GRPC: grpcLis, Metrics: metricsLis})
}

// Listeners are what a Server serves on: gRPC, and optionally the metrics
// listener and the HTTP/JSON API's.
type Listeners struct {
	GRPC net.Listener
	// Metrics, if set, serves /metrics, /healthz and the dashboard.
	Metrics net.Listener
	// HTTP, if set, serves the berth.v1 API as HTTP/JSON (server/httpapi)
	// and /openapi.json, with Config.HTTPTLS.
	HTTP net.Listener
}

// ServeListeners is Serve with the HTTP API's listener too: its calls go to
// the gRPC server in process, and it stops with it.
func (s *Server) ServeListeners(ctx context.Context, l Listeners) error {
	grpcLis, metricsLis := l.GRPC, l.Metrics
	g, gctx := errgroup.WithContext(ctx)
	s.logger.Info("serving gRPC", "address", grpcLis.Addr().String())
	g.Go(func() error {
		// ErrServerStopped: ctx ended before Serve began; not a failure.
		if err := s.grpc.Serve(grpcLis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			return fmt.Errorf("serve gRPC on %s: %w", grpcLis.Addr(), err)
		}
		return nil
	})
	var hs *http.Server
	if metricsLis != nil {
		hs = &http.Server{Handler: s.httpHandler(), ReadHeaderTimeout: 10 * time.Second}
		s.logger.Info("serving metrics", "address", metricsLis.Addr().String())
		g.Go(func() error {
			if err := hs.Serve(metricsLis); !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("serve metrics on %s: %w", metricsLis.Addr(), err)
			}
			return nil
		})
	}
	var api *http.Server
	if l.HTTP != nil {
		api = s.api.Server(s.httpTLS)
		s.logger.Info("serving the HTTP API", "address", l.HTTP.Addr().String(), "tls", s.httpTLS != nil)
		g.Go(func() error {
			if err := s.grpc.Serve(s.inProcess); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
				return fmt.Errorf("serve the HTTP API's gRPC calls: %w", err)
			}
			return nil
		})
		g.Go(func() error {
			var err error
			if s.httpTLS != nil {
				err = api.ServeTLS(l.HTTP, "", "")
			} else {
				err = api.Serve(l.HTTP)
			}
			if !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("serve the HTTP API on %s: %w", l.HTTP.Addr(), err)
			}
			return nil
		})
	}
	g.Go(func() error {
		<-gctx.Done()
		return s.shutdown(hs, api)
	})
	return g.Wait()
}

// shutdown stops the gRPC server gracefully within the shutdown timeout,
// then the HTTP servers if any. The HTTP API stops accepting at once; its
// calls end with the gRPC server's.
func (s *Server) shutdown(hs, api *http.Server) error {
	s.logger.Info("shutting down", "timeout", s.shutdownTimeout)
	s.health.Shutdown()
	s.serving.Set(0)
	apiStopped := make(chan error, 1)
	if api != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), s.shutdownTimeout)
			defer cancel()
			err := api.Shutdown(ctx)
			if err != nil {
				err = errors.Join(fmt.Errorf("stop the HTTP API: %w", err), api.Close())
			}
			apiStopped <- err
		}()
	} else {
		apiStopped <- nil
	}
	stopped := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(stopped)
	}()
	deadline := time.NewTimer(s.shutdownTimeout)
	defer deadline.Stop()
	select {
	case <-stopped:
	case <-deadline.C:
		s.logger.Warn("graceful stop timed out; closing the remaining streams")
		s.grpc.Stop()
		<-stopped
	}
	apiErr := <-apiStopped
	if hs == nil {
		return apiErr
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		return errors.Join(apiErr, fmt.Errorf("stop metrics server: %w", err))
	}
	return apiErr
}
