// Package replica runs one berthd replica of a group that shares an etcd
// key prefix (--store etcd): it campaigns for the lead (server/leader) and,
// by turns, serves as a follower or as the leader on the same listeners.
//
// A follower serves what followerServes (follower.go) lists:
// DecisionService.Watch from the shared store (the same revisions and log
// id on every replica), AdminService.ListNominations from the store's
// nominations (the leader's listing, each nomination marked restored),
// and AdminService.ServerInfo. It answers every other call UNAVAILABLE
// with an ErrorInfo NOT_LEADER naming the leader's advertised address:
// those write, or read what only the leader's memory holds. gRPC health reports SERVING overall and
// NOT_SERVING for berth.v1.StateService and berth.v1.StatsService; the
// leader reports SERVING for all.
//
// The leader is a server/daemon over an etcdstore fenced by its term: on
// winning, the daemon loads the log and the book of per-pod facts (every
// keyspace) as a restarted berthd does, and holds scheduling for the
// orchestrator's re-list. When the term ends (its lease expired or was
// revoked, etcd unreachable for the TTL, or a commit found the fence
// broken) the scheduling loop is held at once and the daemon stops; the
// replica follows again and rebuilds everything from the store if it
// wins again. A replica stopping (its context ends) resigns, so that
// another takes over without waiting for the TTL.
//
// Each change of role stops one gRPC server and starts the next on the
// same listeners (listener.go): streams open on the replica are cut, and
// clients resume (Watch from their revision) or follow the leader.
package replica
