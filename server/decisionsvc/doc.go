// Package decisionsvc serves berth.v1 DecisionService: Watch adapts a
// gRPC stream to the decision log's watch feed (watch.Feed.Watch; a
// follower replica's reads the shared store), validating the request and
// mapping the feed's errors to status codes (a compacted revision to OUT_OF_RANGE
// with a google.rpc.ErrorInfo, a closing server to UNAVAILABLE).
package decisionsvc
