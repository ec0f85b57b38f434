// Command berthctl drives Berth from a terminal or a script.
//
// "berthctl simulate" reads Kubernetes manifests (core/manifest) and runs
// the deterministic simulator (core/simulate) in-process: no server is
// involved, and the output is the trace format of core/simulate, one JSON
// object per scheduling attempt, comparable line by line with kubeoracle's
// "place" mode. With --server it sends the manifests to berthd's
// AdminService.Simulate, which runs the same engine on a copy of what
// berthd holds, turns the attempts back into trace lines
// (server/convert) and prints them with the same code.
//
// The other commands talk to a running berthd over the berth.v1 gRPC API:
// apply and delete send objects through StateService (manifests converted
// with server/convert), confirm and fail report bind outcomes
// (StateService.ReportBindResult), watch follows DecisionService.Watch,
// and explain, get and version ask AdminService. Empty listings and
// not-found answers ask AdminService.ServerInfo whether berthd still waits
// for the orchestrator's first re-list after a restart, and say so
// (relist.go). Shell completion asks berthd for pod and node names
// (complete.go), bounded by a short timeout and silent on failure.
//
// --server (and $BERTH_SERVER) may list the replicas of a highly available
// berthd, comma-separated: the Go client sends each call to the first
// replica that answers and follows the leader a follower names for writes;
// apply's Sync stream and watch, which berthctl opens itself, are opened
// again on the replica the client moved to (anotherReplica in conn.go).
//
// Exit codes are part of the interface; scripts may rely on them:
//
//	0  success
//	1  the operation failed: invalid manifests, objects refused by the
//	   server, a request the server rejected, decisions compacted away
//	2  usage error: unknown command or flag, bad flag value, missing
//	   argument, a --server that is not host:port or unix:///path
//	3  the server cannot be reached, is unavailable or timed out
//	4  not found: the pod (or object) named does not exist
//	5  not authorized: missing or wrong token, permission denied, client
//	   certificate missing or refused by the server's mutual TLS
//	6  refused by a disruption budget (evict, drain)
//
// "get" and "explain" with -o json print the API's response message as
// JSON (jsonout.go): proto field names, every field present, 64-bit
// integers as numbers.
//
// Errors are printed on standard error as "berthctl: ..." in words meant
// for people; results go to standard output. Manifest documents skipped
// or written in an outdated API (1.36's PodGroup spelling) are noted on
// standard error too ("berthctl: ignored: ...", "berthctl: warning:
// ..."), so a trace on standard output is the same either way.
package main
