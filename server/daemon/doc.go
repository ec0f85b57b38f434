// Package daemon assembles berthd: the bbolt store in the data directory
// (or the store in Config.Store: an etcd leader's fenced one, server/replica),
// the decision log over it, the scheduler with the in-tree plugins writing
// its decisions to the log, the berth.v1 services over both, metrics, the
// gRPC server and, with Config.Dashboard, the web dashboard on the metrics
// listener (its queue sampler runs beside the loop). Open builds it all
// and restores what a restart needs; Serve runs the scheduling loop and serves until its context ends, then
// stops the loop, flushes the log and closes the store.
//
// The daemon only wires parts together: the per-pod facts and the rules of
// outcomes (binds awaiting confirmation, evictions awaiting deletion) are
// the book's (server/podbook), which the state service's pod changes go
// through. Every object comes in through the object store (core/objstore,
// cluster.go) over the scheduler's kinds, the pod kind wrapped by the
// book's rules; the taint-eviction and node-pressure controllers subscribe
// to it and evict through the one server/eviction.Evictor, on their own
// goroutines. The pods Berth holds for explicit Workloads (hold_pods,
// server/heldpods, subscribed too) go through the same object store; the
// state service's cluster leaves them out of pod re-lists, refuses the
// orchestrator's pods of their names, and keeps their binds outstanding
// on a CONFIRMED report (the durable record of where they run); a
// re-list's end waits for them before forgetting the binds of pods not
// known.
//
// Restart (restart.go, the one place of the sequence). The orchestrator
// owns the objects and re-lists them through Sync; the store keeps the
// decision log and the book's facts: the binds that awaited an outcome
// (with their claims and volume bindings), the evictions of pods not
// deleted yet, the nominations, the last messages, the allocated claims.
// The book reads them back (podbook.Book.Restore) and the scheduler takes
// its share (scheduler.Restore): nominations into its nominator,
// evictions into its set of evicted pods, claims into its device tracker,
// the binds' volumes reserved again, before anything is re-listed: a victim re-listed as running is still
// terminating by preemption, so its preemptor waits for it instead of
// evicting again. An eviction ends when its pod is deleted; one whose pod
// was deleted while berthd was down ends when a re-list of the pods
// (RESYNC_END) does not bring the pod back. An eviction the orchestrator
// never carries out ends only with the pod: it must delete it. A bind that awaited
// an outcome was sent (or will be, to a watcher resuming from its
// revision), so the pod must not be placed again: until the bind is settled
// the pod counts as running on the bind's node, even when it is re-listed
// without node_name. It is settled by the pod arriving with node_name, by
// ReportBindResult (CONFIRMED keeps it there; FAILED makes the pod pending
// again, and it is scheduled anew), or by the pod's deletion. Until then
// Explain shows such a pod as bound. So no pod is bound twice and no node
// is overcommitted across a crash.
//
// Until the orchestrator has re-listed after a restart, the nodes look
// emptier than they are: scheduling waits for the first RESYNC_END of a
// resync covering pods, or Config.InitialSyncTimeout. At the end of every
// re-list of pods, the binds, nominations, Unschedulable messages, claim
// consumers and volume reservations restored for pods that were not
// re-sent are forgotten (scheduler.Resynced, then podbook's
// Outcomes.Resynced). Until the first
// such re-list, AdminService.ServerInfo reports the wait
// (Daemon.AwaitingRelist).
//
// Storage failures. While the store cannot write (a full disk, an I/O
// error; it retries with backoff by itself), the daemon reports NOT_SERVING
// on gRPC health and /healthz and holds the scheduling loop
// (storehealth.go); state is still accepted, as it lives in memory and the
// orchestrator owns it. Both end when the store writes again.
package daemon
