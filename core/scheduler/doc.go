// Package scheduler is kube-scheduler's scheduling loop over Berth's cache
// (core/cache) and queue (core/queue), with one framework
// (core/framework/runtime) per configured profile.
//
// Data comes in through the kinds it holds (kinds.go: one
// core/objstore.Type per kind, each with its admission and its state-in
// call; safe for concurrent use with Run): Upsert and Delete apply any of
// them, Kinds hands the registry to the object store in front (berthd's,
// which runs the admission as its own stage and wraps pods with the
// book's rules). Pods and pod groups are admitted by core/podadmission
// (admitPod, admitPodGroup), which holds the priority classes the class
// kind feeds it. Nodes, pods (upserted: pending pods are queued, bound
// pods occupy their nodes and confirm binds; AddPod, admission then the
// pod kind's Upsert, and DeletePod are the pod kind's calls, which
// server/podbook drives), priority classes, budgets, namespaces, pod
// groups, DRA and storage objects, and ReportBindResult. Each raises the
// cluster event kube would, so pods that an event may help leave the
// unschedulable pods (QueueingHints).
// Decisions go out as plans through Options.Decisions, the one
// framework.Planner (planner.go): Bind through the DefaultBinder, Evict
// from preemption, Nominate and ClearNomination, DeallocateClaim, and the
// Unschedulable report of a pod once per new message. With
// Options.GroupDecisions, the ones a failed attempt makes (its
// preemption's, its nomination, its report) are gathered into one plan
// submitted at the end of the cycle, and a group cycle's binds are one
// plan. A pod
// the scheduler evicted is held as terminating by preemption until it is
// deleted (evictions.go; Restore brings the set back after a restart,
// restore.go).
//
// One attempt, as kube's schedule_one.go:
//
//	Pop ─► profile by schedulerName ─► skip if deleting or assumed
//	  ─► UpdateSnapshot ─► PreFilter ─► nominated node first
//	  ─► Filter (parallel, from the round-robin start index, stopping at
//	     numFeasibleNodesToFind; in order past the nodes of domains a
//	     plugin rejects whole: domainwalk.go) ─► PreScore/Score ─► selectHost
//	  │    no node fits ─► PostFilter (preemption) ─► nominate
//	  ─► assume in the cache ─► Reserve ─► Permit
//	  ─► binding cycle, concurrent: WaitOnPermit ─► PreBind ─► Bind ─► PostBind
//	failure anywhere ─► unreserve, forget, requeue with the rejecting
//	plugins (handleFailure), nomination updated, diagnosis recorded
//
// A bind stays assumed until the caller confirms it (the pod arrives bound,
// or ReportBindResult ok) or reports it failed (forgotten, requeued with
// backoff). Nothing expires on a timer.
//
// Deterministic mode (simulate, parity, tests, berthd --deterministic)
// runs plugins with parallelism 1 and breaks score ties by the smallest
// node name; plugins learn of it through framework.Handle.Deterministic.
// Drivers that replay a run step by step set Options.Replay (BindInline,
// ScoreSingleNode, NoResultMemo, NoIncrementalIndexes) and call AttemptPod, which runs a cycle
// for a chosen pending pod without popping it.
//
// Pod groups (gangs, core/gang): members wait in the gated pods until their
// group and min_count of its pods exist (gang.Gate, a PreEnqueue check run
// for every profile); a popped member of a group not yet placed runs a
// group cycle instead of its own (gang.go: its pending peers are taken
// from the queue, placed one after the other on the state the others
// left, kept all together when enough fit, else undone), and a group that
// does not fit may preempt as a whole (gangpreempt.go). With
// Options.GroupDecisions the binds of one group cycle are one plan
// (Plan.Group).
//
// Devices (dynamic resource allocation, devices.go): the scheduler holds a
// core/dra Tracker (device classes, resource slices, claims, templates;
// upsertDeviceObject, deleteDeviceObject; Restore after a restart) which
// DynamicResources reads through Handle.Devices. It plays kube's
// resourceclaim controller: a pod's template claims are made when both
// exist and deleted with the pod, and a claim whose last consumer is
// deleted is deallocated and reported as a Deallocation (after ingestMu
// is released; after a re-list, with cycles held until it is durable). A
// pod whose claims were reserved binds with them (framework.Bind.Claims),
// and the allocations are committed once the planner took the bind;
// members of a group with claims are bound one by one. Claim, slice and class changes raise the
// events DynamicResources' queueing hints judge.
//
// StartBatch holds back the pending pods of a request until all of it is
// applied; Hold keeps the loop from popping pods and starting cycles (a
// re-list in progress, the wait for the first re-list after a restart).
//
// The read side is View (Scheduler.View): Explain, Pending, Nominations,
// Stats, Nodes, Pods, ... serve the admin API and the state service's
// resyncs; it holds nothing of its own.
package scheduler
