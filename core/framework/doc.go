// Package framework defines the scheduler framework: the extension points a
// plugin implements (PreEnqueue, QueueSort, PreFilter, Filter, PostFilter,
// PreScore, Score, Reserve, Permit, PreBind, Bind, PostBind), the Status a
// plugin returns, the CycleState shared by the points of one scheduling
// attempt, and the per-node and per-pod views (NodeInfo, PodInfo,
// QueuedPodInfo) the plugins read.
//
// Data flows one way: the cache builds NodeInfos from model objects, the
// runtime (package framework/runtime) calls plugins with them, and plugins
// answer with Status values. Nothing here imports gRPC or storage.
package framework
