// Package intake admits gRPC requests into berthd: it bounds the streams
// and the request bytes in flight, and decodes request messages itself so
// that a malformed one is the caller's fault (INVALID_ARGUMENT), not a bug
// (INTERNAL).
//
// Data flow: server/grpc.go registers every service through
// Intake.Registrar, which wraps each method's handler, and server/edge.go
// installs Intake.ServerOptions (a codec, a stats handler and the HTTP/2
// stream limit per connection). A call then goes:
// the transport reads its headers; the tap handle (server/edge.go) refuses
// it if its token is not good, before anything of its body is read; the
// wrapped handler counts it against Limits.Streams; each request message
// is received by gRPC as raw bytes (the codec keeps them, it does not
// decode), its size is reserved against Limits.ConnRequestBytes and
// Limits.RequestBytes, and only then is it decoded. A call that does not
// fit is refused RESOURCE_EXHAUSTED.
//
// What the byte bound covers, honestly: the decoded request messages the
// handlers hold (the bulk of the memory of a large Apply or Sync batch:
// decoding multiplies the wire size), and the raw bytes from the moment
// their size is known. gRPC reads one message completely before any hook
// sees its length, so the raw bytes of messages still arriving are bounded
// only by the streams in flight times the largest message (MaxRecvMsgSize):
// keep Limits.Streams in proportion. A refused message is dropped at once.
// Measured: 32 concurrent 15 MB Applies with a valid token over 8
// connections peak at 0.9 GB RSS with the default limits (2.6 GB without),
// about half of it raw bytes in transit; without a token, nothing is read.
package intake
