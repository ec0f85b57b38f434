// Package tainteviction is berthd's taint-eviction controller (kube's
// NoExecute taint manager): it watches the nodes' NoExecute taints and the
// bound pods, and evicts the pods that do not tolerate them, at once or
// when their smallest applicable tolerationSeconds has passed since the
// eviction was first scheduled. The rules are core/tainteviction's; this
// package keeps the state and the durable deadlines around them.
//
// Data in: the controller subscribes to the object store
// (core/objstore; Handle is its handler): each node and pod change the
// scheduler accepted reaches it on the subscription's goroutine, off the
// state service's path (a Sync is acknowledged without waiting for an
// eviction's commit). It keeps no copy of its own: a node's NoExecute
// taints (as the scheduler filters with them, derived ones included) and
// its pods come from the store's nodes and by-node index, each pod as it
// is now from the scheduler's read side. Data out: Evict decisions through server/eviction (cause TAINT, message and
// reason in kube's words), and deadlines in server/deadlines, one per pod
// ("taint/<pod uid>": when it fires, the node, when it was started).
//
// As kube's controller: a pod update on a node without NoExecute taints
// does nothing; a node update computes again every pod on the node; a
// scheduled eviction fires without looking at the node again, unless the
// taints that scheduled it are gone (after a restart, a node re-listed
// without them cancels nothing by itself, since the controller learns the
// taints anew: the deadline's firing checks).
//
// Lock order: mu, then the store's mu (reads), then the deadlines' lock (a
// leaf); the eviction (the decision log, then the scheduler's ingest lock)
// is done holding mu, so a pod's changes and its deadline are applied one
// at a time, and holding none of the state service's or the store's
// locks.
package tainteviction
