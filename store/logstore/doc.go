// Package logstore is the log layer both store backends share, as etcd's
// mvcc sits over its backend: the revisions (oldest and newest, Wait, the
// in-memory tail, reads that stop at a damaged record), the intake and
// close protocol (hand-over to the committer, Close waiting for accepted
// commits), the answering of a committed group, record times that never go
// back, the compaction loop, and keyspace values opened through their
// checksum, a damaged one skipped, logged and counted.
//
// A backend (bboltstore: bbolt and its write-ahead file; etcdstore: fenced
// etcd transactions and a watch) keeps what is its own: how a group is
// gathered and made durable, how older records, values and compactions
// reach its medium. Data flows one way: a backend calls this package,
// never the reverse but through the functions it passes in.
//
// Lock order: Intake's compactMu (held across a backend's compaction),
// then its closeMu (held shared across WhileOpen's function: bboltstore
// writes a group there), then Revisions' lock; Values' lock is a leaf.
package logstore
