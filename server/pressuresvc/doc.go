// Package pressuresvc is StatsService: node agents report kubelet Summaries
// and Berth runs the kubelet's node-pressure eviction manager
// (core/pressure) on them, one pass per report.
//
// Per node it keeps the manager's State durably in its own keyspace
// (store.Pressure, key: the node name, value: JSON), committed before the
// report is answered: when each threshold was first met (soft grace
// periods), when each condition was last observed (the transition period)
// and the thresholds awaiting minimum reclaim. These times are deadlines
// that survive a restart: they are wall-clock times, and conditions are
// evaluated against the clock whenever they are read, so one that expired
// while berthd was down is gone when the node is re-listed.
//
// A condition that holds puts its NoSchedule taint
// (node.kubernetes.io/memory-pressure, ...) on the node the scheduler sees:
// Taints is one of the object store's node mutators (core/objstore, after
// the node conditions' taints), and a report that changes the conditions,
// and a timer at the end of each transition period, have the store apply
// the node again (Refresh): the store keeps the node as sent, this
// package keeps no copy. Handle, its subscription to the store, arms the
// end of a restored node's transition period when the node is sent. The taints are
// this package's alone (conditions a caller sends on the Node message, and
// the taints derived from them, are not its business).
//
// An eviction is an Evict decision with cause NODE_PRESSURE, the kubelet's
// grace period and message, made through server/eviction like every other
// cause (durable in the decision log, with its ledger record, then the pod
// held terminating until it is deleted, and not ranked again). Budgets are
// not consulted, as by the kubelet.
//
// Lock order: reportMu (one report at a time) before the object store's
// mu (Refresh), which calls Taints and so takes mu (the states), a leaf.
package pressuresvc
