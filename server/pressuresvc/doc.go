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
// AddNode stands in front of the scheduler's and adds the derived taints to
// the node as sent; a report that changes the conditions, and a timer at
// the end of each transition period, send the node again. The taints are
// this package's alone (conditions a caller sends on the Node message, and
// the taints derived from them, are not its business).
//
// An eviction is an Evict decision with cause NODE_PRESSURE, the kubelet's
// grace period and message, written through the decision log (durable, with
// its ledger record) and then marked in the scheduler (the pod is held as
// terminating until it is deleted, and is not ranked again). Budgets are
// not consulted, as by the kubelet.
//
// Lock order: applyMu (node sends) is taken before the scheduler's locks;
// reportMu (one report at a time) before applyMu; mu (the states) is a leaf.
package pressuresvc
