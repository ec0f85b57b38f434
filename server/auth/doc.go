// Package auth guards berthd's gRPC API: bearer tokens read from a file,
// checked by unary and stream interceptors, and TLS (optionally mutual)
// credentials built from PEM files. grpc.health.v1 stays open so probes
// work without a token.
//
// Token file: one token per line, optionally followed by a scope,
// "read-write" (the default) or "read-only"; blank lines and lines starting
// with # are ignored. A read-only token may watch decisions and call the
// admin service and reflection; StateService needs read-write.
package auth
