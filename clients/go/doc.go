// Package berth is the Go client library of Berth's berth.v1 gRPC API, for
// orchestrators that stream their cluster into Berth and act on its
// decisions.
//
// Data flows one way through it: the orchestrator's objects go out through a
// [Session] (a Sync stream that batches upserts and deletes, and re-lists
// everything through resync markers each time it reconnects), and decisions
// come back through a [Watcher] (a Watch stream that resumes from the
// revision a [Checkpoint] saved, across disconnects and server restarts).
// [Client.ConfirmBind] and [Client.FailBind] report what became of a Bind.
//
// Per-object refusals are returned as a [*BatchError] holding one
// [*ObjectError] per refused object; a compacted watch position is a
// [*CompactedError]. Everything that blocks takes a context, and
// reconnections back off exponentially ([Backoff]).
//
// [DialEndpoints] connects to the replicas of a highly available berthd
// (several berthd on etcd, one of them the leader): writes follow the
// leader a replica names in its NOT_LEADER refusal ([NotLeader]), a replica
// that is down is skipped, a Session re-lists on each new leader and a
// Watcher resumes on any replica with its revision and log id.
//
// [Dial] takes TLS as a configuration ([WithTLS]) or as PEM files
// ([WithTLSFiles]), a bearer token ([WithToken], [WithTokenFile]) and
// "host:port" or "unix:///path" addresses ([ParseTarget] checks one). A
// mutual-TLS refusal shows to gRPC as UNAVAILABLE;
// [Client.CheckClientCertificate] tells it apart. berthctl connects
// through this package.
//
// The package is a Go module of its own
// (github.com/berthsched/berth/clients/go, on the module
// github.com/berthsched/berth/api of the generated code): it depends only
// on gRPC, protobuf and Google's rpc status types. README.md in this
// directory says how another module requires it, from a release or a
// checkout.
package berth
