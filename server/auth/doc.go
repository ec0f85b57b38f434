// Package auth guards berthd's gRPC API: bearer tokens read from a file,
// checked by server.Edge's tap handle from a call's metadata before any of
// its request is read, and TLS (optionally mutual) credentials built from
// PEM files. grpc.health.v1 stays open so probes work without a token.
// Refused calls and failed handshakes are logged at warn through a
// FailureLog, at most once a second, never with a token.
//
// Token file: one token per line, optionally followed by a scope,
// "read-write" (the default) or "read-only"; blank lines and lines starting
// with # are ignored. A read-only token may watch decisions and call the
// admin service, reflection and the reads StatsService.GetNodePressure and
// EvictionService.ListNodePods; StateService and the other StatsService and
// EvictionService calls need read-write.
package auth
