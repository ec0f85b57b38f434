// Package adminsvc implements berth.v1 AdminService: questions operators
// and tools ask the scheduler, none of which changes it.
//
// Explain, ListPending, ListNominations, QueueStats and ListNodes read the
// live scheduler through the narrow Admin interface (*scheduler.Scheduler
// satisfies it), plus optional sources for what only other parts of berthd
// know: the revisions of Bind and Nominate decisions (the decision log) and
// attempt counts (Counter, fed by the scheduler's metrics).
//
// ListQueueObjects (queues.go) lists the queueing objects (Kueue's) from
// the object store, through Options.QueueObjects, and adds the admission
// controller's status through Options.QueueStatus when berthd has one.
//
// ListStoredNominations (list.go) is ListNominations over the nominations
// read from the store alone, for a follower replica (server/replica),
// which holds no scheduler: the same validation, order and page tokens.
//
// ServerInfo (info.go) reports the build it was given and, through the
// optional Startup (the daemon), whether berthd still waits for the
// orchestrator's first re-list after a restart, so tools can say why a
// listing is empty.
//
// Simulate (simulate.go) only converts: it gives the live cluster to a
// core/simulate Engine built from the same configuration and plugin
// registry (the engine berthctl simulate runs offline), applies the
// request's delta to it, schedules the request's pods, and converts the
// attempts (server/convert) to per-node verdicts and per-plugin scores. The
// live scheduler is only read; held pods are copied with the priority they
// were admitted with, not re-admitted by class. It is bounded (limits.go,
// SimulationLimits): the request's size, the attempts, the response's
// bytes (attempts are converted as they are made; summary mode drops the
// per-node verdicts), its time, the simulations running (one more waits
// for a slot); it stops when
// its caller goes and when Options.Stopping ends, and refuses beyond a
// limit with errmap.ErrLimit (RESOURCE_EXHAUSTED) naming the flag.
//
// Errors go through server/errmap, like every service's.
package adminsvc
