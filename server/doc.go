// Package server exposes Berth over gRPC: the berth.v1 StateService,
// DecisionService and AdminService, grpc.health.v1 and server reflection,
// and an HTTP listener for Prometheus /metrics and /healthz.
//
// Requests come in from the orchestrator and operators; the services hand
// them to the scheduler (core) and the store, and stream decisions back.
// For now no service is implemented: every berth.v1 RPC answers
// Unimplemented until its machinery is wired in through Config.
//
// All gRPC registration, interceptors and limits live in grpc.go; the
// lifecycle (serve, graceful stop with a deadline) in server.go.
package server
