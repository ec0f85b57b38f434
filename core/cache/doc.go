// Package cache is the scheduler's view of the cluster: nodes, the pods
// bound to them, and the pods the scheduler has assumed onto a node while
// their binding is in flight. From it the scheduling loop takes, once per
// cycle, an immutable Snapshot that plugins read without locks.
//
// Data comes from the scheduler's state ingest (AddNode, AddPod, ...) and
// from the scheduling cycle itself (AssumePod, ForgetPod).
// A bound pod that was assumed confirms the assumption when it arrives
// through AddPod. Assumed pods never expire: a bind is confirmed or
// reported failed explicitly.
//
// Snapshots are incremental: every change to a node stamps its NodeInfo
// with a cache-wide, increasing generation and moves it to the head of a
// list ordered by recency, so UpdateSnapshot copies only the NodeInfos
// changed since the snapshot's generation. Nodes are listed in kube's
// zone-interleaved order (see nodeTree): one node from each zone in turn,
// zones in order of first appearance, nodes of a zone in insertion order.
//
// Pods whose node is unknown (or was deleted first) are kept on a NodeInfo
// without a node, which snapshots do not list, until they are removed.
//
// Lock order: Cache.mu is a leaf lock; the cache calls nothing outside
// itself while holding it.
package cache
