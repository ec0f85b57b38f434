// Package evictionsvc is EvictionService, Berth's eviction API: one pod
// at a time, with the Kubernetes Eviction API's rules
// (core/disruption.Check) over the budgets the scheduler holds, and an
// eviction it allows written through server/eviction (an Evict of cause
// API, durable, the pod held terminating).
//
// Budgets are charged as kube's disrupted-pods accounting does, so two
// evictions cannot spend one allowed disruption: the service serializes
// its evictions (mu), and an evicted pod is terminating in the
// scheduler's view before the next eviction reads the budgets, so a
// budget Berth computes no longer counts it healthy. A budget whose
// allowance the caller gave (disruptions_allowed) is a snapshot that
// cannot know of Berth's evictions: the service subtracts the pods it
// charged to it that are still held and not yet in its disrupted_pods.
// That memory is not durable: after a restart the given allowance is
// trusted as it is until the caller sends the budget again.
//
// A pod binding to a node (a Bind decision to it awaiting the
// orchestrator's outcome) has no node in the scheduler's view until the
// bind is confirmed; the book of per-pod facts knows it (Binds).
// ListNodePods lists such a pod on that node, marked binding, and
// EvictPod's Evict names that node. Being pending, it is evicted without
// charging a budget, as kube evicts a pod that is not running yet; the
// scheduler holds it terminating whether the bind is then confirmed or
// fails, so it never lands on the node as a live pod.
//
// Lock order: mu, then the decision log's and the scheduler's locks
// (through the evictor); the scheduler's reads and the book's (Binds)
// take their own leaves.
package evictionsvc
