// Package decisionsvc serves berth.v1 DecisionService: Watch adapts a
// gRPC stream to decisionlog.Log.Watch, validating the request and mapping
// the log's errors to status codes (a compacted revision to OUT_OF_RANGE
// with a google.rpc.ErrorInfo, a closing server to UNAVAILABLE).
package decisionsvc
