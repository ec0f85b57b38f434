package server

import (
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/intake"
)

// Limits of the gRPC server.
const (
	// MaxRecvMsgSize bounds one request message, and so one Sync batch.
	MaxRecvMsgSize = 16 << 20
	// FlowControlWindow is each stream's and each connection's fixed
	// HTTP/2 receive window. Clients sending one small message per pod
	// should fix theirs too (grpc.WithInitialWindowSize and
	// grpc.WithInitialConnWindowSize), for the same reason.
	FlowControlWindow = 4 << 20
	// Clients may ping at most this often, even without an open stream.
	minClientPingInterval = 10 * time.Second
	// An idle connection is pinged after keepaliveTime and closed if the
	// ping is not answered within keepaliveTimeout, so dead watchers and
	// Sync streams are noticed.
	keepaliveTime    = 30 * time.Second
	keepaliveTimeout = 10 * time.Second
)

// berthServiceNames are the berth.v1 services, whose status health reports.
func berthServiceNames() []string {
	return []string{
		berthv1.StateService_ServiceDesc.ServiceName,
		berthv1.DecisionService_ServiceDesc.ServiceName,
		berthv1.AdminService_ServiceDesc.ServiceName,
		berthv1.StatsService_ServiceDesc.ServiceName,
	}
}

// newGRPCServer builds the gRPC server with every service registered
// through the intake, which bounds and decodes their requests.
func newGRPCServer(svc Services, hs *health.Server, metrics *grpcprom.ServerMetrics, in *intake.Intake, extra ...grpc.ServerOption) *grpc.Server {
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(metrics.UnaryServerInterceptor()),
		grpc.ChainStreamInterceptor(metrics.StreamServerInterceptor()),
		grpc.MaxRecvMsgSize(MaxRecvMsgSize),
		// Fixed flow-control windows: with gRPC's default (64 KiB, grown by
		// bandwidth-delay probes) a stream of small messages, one per pod,
		// draws a probe ping and a window update for nearly each one, and
		// each wakes the connection's writer on both sides (round 6 of
		// docs/performance.md). 4 MiB is below the 16 MiB the probes may
		// grow the window to.
		grpc.InitialWindowSize(FlowControlWindow),
		grpc.InitialConnWindowSize(FlowControlWindow),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
			MinTime:             minClientPingInterval,
			PermitWithoutStream: true,
		}),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			Time:    keepaliveTime,
			Timeout: keepaliveTimeout,
		}),
	}
	s := grpc.NewServer(append(opts, extra...)...)
	r := in.Registrar(s)
	berthv1.RegisterStateServiceServer(r, svc.State)
	berthv1.RegisterDecisionServiceServer(r, svc.Decision)
	berthv1.RegisterAdminServiceServer(r, svc.Admin)
	berthv1.RegisterStatsServiceServer(r, svc.Stats)
	berthv1.RegisterEvictionServiceServer(r, svc.Eviction)
	healthpb.RegisterHealthServer(r, hs)
	reflection.Register(r)
	// Export a zero series for every method before its first call.
	metrics.InitializeMetrics(s)
	return s
}
