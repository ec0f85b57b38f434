// Package server exposes Berth over gRPC: the berth.v1 StateService,
// DecisionService and AdminService, grpc.health.v1 and server reflection,
// and an HTTP listener for Prometheus /metrics and /healthz, which also
// serves the read-only web dashboard (server/dashboard) when Config.Dashboard
// is set.
//
// Requests come in from the orchestrator and operators; the services hand
// them to the scheduler (core) and the store, and stream decisions back.
// The services live in sub-packages (statesvc, decisionsvc, adminsvc) and
// are wired in through Config by server/daemon; a service left nil answers
// Unimplemented. Config.Edge says who may call (bearer tokens, checked by
// a tap handle before a request is read) and bounds the streams and request
// bytes in flight (server/intake); Config.GRPCOptions adds TLS
// (server/auth). Every
// service turns errors into gRPC status codes through one table,
// server/errmap.
//
// All gRPC registration, interceptors and limits live in grpc.go and
// edge.go; the
// lifecycle (serve, graceful stop with a deadline) in server.go.
package server
