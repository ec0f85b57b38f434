package server

import (
	"context"
	"log/slog"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/berthsched/berth/server/auth"
	"github.com/berthsched/berth/server/intake"
)

// Edge guards the gRPC server: who may call, and how much the calls in
// flight may hold.
type Edge struct {
	// Authorizer, if set, decides from a call's metadata whether it may
	// proceed, before anything of its request is read; *auth.Tokens is
	// one.
	Authorizer Authorizer
	// Limits bound the streams and request bytes in flight (see
	// server/intake); nil means intake.DefaultLimits.
	Limits *intake.Limits
}

// Authorizer refuses calls: nil lets a call of fullMethod with metadata
// md proceed, a gRPC status refuses it. It must not block: the transport
// calls it while reading the connection.
type Authorizer interface {
	Authorize(ctx context.Context, fullMethod string, md metadata.MD) error
}

// edgeOptions are the gRPC options of e: the tap handle refusing calls
// that are not authorized, and the intake's.
func edgeOptions(e Edge, in *intake.Intake, logger *slog.Logger) []grpc.ServerOption {
	opts := in.ServerOptions()
	if e.Authorizer != nil {
		failures := auth.NewFailureLog(logger, auth.DefaultFailureLogInterval, nil)
		opts = append(opts, grpc.InTapHandle(func(ctx context.Context, info *tap.Info) (context.Context, error) {
			err := e.Authorizer.Authorize(ctx, info.FullMethodName, info.Header)
			if err != nil {
				st := status.Convert(err)
				failures.Warn("call refused", "method", info.FullMethodName, "peer", callerAddr(ctx, info.Header), "code", st.Code().String(), "reason", st.Message())
			}
			return ctx, err
		}))
	}
	return opts
}

// callerAddr is the address of the caller of ctx's call: for the HTTP
// API's in-process calls, the HTTP client's (the gateway's
// X-Forwarded-For).
func callerAddr(ctx context.Context, md metadata.MD) string {
	if p, ok := peer.FromContext(ctx); ok {
		if _, inProc := p.Addr.(inProcessAddr); inProc {
			if fwd := md.Get("x-forwarded-for"); len(fwd) > 0 {
				return fwd[0] + " (HTTP)"
			}
		}
	}
	return peerAddr(ctx)
}

// peerAddr is the address of the caller of ctx's call, "" when unknown.
func peerAddr(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return ""
}
