// Package leader elects one berthd replica among those sharing an etcd key
// prefix, with go.etcd.io/etcd/client/v3/concurrency: each replica holds a
// session (a lease kept alive every TTL/3) and campaigns with its advertised
// address as the election's value. The winner's Term carries the Fence that
// conditions every write of its store (etcdstore.Options.Fence): the
// election key and its create revision, gone as soon as the lease ends, so a
// leader that was paused or partitioned past its TTL can never append.
// Followers Observe the leader's address, to name it in NOT_LEADER errors.
//
// A Term ends when its session does (the lease expired or was revoked, etcd
// unreachable for a TTL) or when it is resigned; Done says when.
package leader
