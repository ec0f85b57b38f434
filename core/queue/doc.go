// Package queue is the scheduling queue: it decides which pending pod is
// tried next and when a pod that failed is tried again, with
// kube-scheduler v1.37's semantics. It also holds the Nominator, which
// remembers the nodes preemption reserved for pending pods.
//
// Data comes from the scheduler: pods added, updated and deleted by the
// state ingest, cluster events (MoveAllToActiveOrBackoffQueue,
// AssignedPodAdded/Updated) and the outcome of each attempt
// (AddUnschedulableIfNotPresent, Done; RequeueActive for a pod group member
// its group's successful cycle left out). Pods leave through Pop.
//
//	Add ──PreEnqueue──► activeQ ──Pop──► in flight ──Done──► (bound / gone)
//	         │ held        ▲   ▲              │ failed
//	         ▼             │   │              ▼ AddUnschedulableIfNotPresent
//	       gated ──update──┘   │   events seen in flight + rejecting
//	                           │   plugins' queueing hints decide:
//	   backoffQ ──expired──────┘◄──────── helps, backing off
//	   (Pop takes its head when activeQ is empty)
//	   unschedulable ◄─────────────────── does not help
//	       └── cluster event a rejecting plugin's hint accepts,
//	           or 5 minutes (periodic flush) ──► backoffQ / activeQ
//
// Vocabulary: a pod is in exactly one sub-queue (Active, Backoff,
// Unschedulable, Gated) or in flight. Backoff after n consecutive failures
// is initial·2^(n−1) capped at max; internal errors count separately and
// always retry after backoff. A plugin that rejected a pod with Pending is
// only answered by events, never by time alone, except the periodic flush.
//
// Lock order: PriorityQueue.mu, then Nominator.mu. The nominator never calls
// back into the queue. Nothing in the package is global: clock, logger,
// plugins and hints come in through Options.
package queue
