// Package httpapi serves the berth.v1 API as HTTP/JSON: every RPC, at the
// paths api/http.yaml maps (grpc-gateway v2; the generated gateway is
// package gw/berth/v1, the OpenAPI document package openapi), plus
// GET /openapi.json.
//
// Data flow: an HTTP request is decoded from JSON by the gateway and sent as
// a gRPC call over an in-process connection to berthd's own gRPC server
// (server.Server), so it passes the same tap handle (tokens, server/auth),
// the same intake (stream and byte limits, server/intake), the same
// interceptors (metrics; a follower's write refusal) and the same services
// as a gRPC call; nothing is checked here that the gRPC server checks, and
// nothing it checks is skipped. Each HTTP connection gets its own gRPC
// connection (ConnContext, ConnState), so the per-connection limits apply
// per HTTP connection as they do per gRPC connection. The answer, or the
// call's status as google.rpc.Status JSON with its details, goes back with
// the HTTP status grpc-gateway maps the code to.
//
// Watch is also served as server-sent events (sse.go) to a GET that
// accepts text/event-stream, each event's id the revision to resume from.
//
// Streams are newline-delimited JSON, one message per line: Watch's
// responses each as {"result": WatchResponse}; Sync's requests one
// SyncRequest per line of the body (read as they arrive: HTTP/1.1 full
// duplex or HTTP/2), its acks each as {"result": SyncResponse}. A stream
// that fails after its first line ends with a line {"error": Status}; one
// that fails before it answers the status's HTTP code with that line.
//
// What is bounded here: a request body (not Sync's) to MaxBodyBytes, a
// line of Sync's body to MaxLineBytes (ResourceExhausted). The JSON is
// decoded before the gRPC server's intake sees the message, so the JSON
// bodies being decoded are bounded only by those sizes times the requests
// in flight.
package httpapi
