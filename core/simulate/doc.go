// Package simulate schedules a cluster's pending pods deterministically,
// one attempt each, and reports every attempt in the trace format of
// DESIGN.md — the format kubeoracle's "place" mode prints for the real
// kube-scheduler, so the two can be compared line by line.
//
// It is Berth's one simulation engine: berthctl simulate runs it offline
// (Run) and berthd's AdminService.Simulate runs it on a copy of the live
// cluster (New, Upsert/Remove for the request's delta, Schedule), so both
// print the same trace for the same cluster.
//
// Data comes from an Input (nodes, running and pending pods, priority
// classes, disruption budgets, namespaces, nominations, a configuration),
// read from Kubernetes manifests by core/manifest or copied from berthd's
// scheduler; it goes out as Attempts, each a Line (berthctl simulate prints
// them as JSON, one per line) with the pods it names.
//
// The run follows kubeoracle's place mode (../shared/kubeoracle/README.md):
//
//   - Pods rejected at admission (an unknown PriorityClass) come first as
//     "error" lines.
//   - Pods held by an Engine before Schedule (Input.Pods given to New) are
//     not scheduled; their nominations keep room.
//   - Pending pods are ordered by the first profile's QueueSort plugin with
//     their creation time as queue timestamp, stable in input order.
//   - Each pending pod gets one scheduling cycle (core/scheduler with
//     Deterministic: ties go to the smallest node name, plugins run with
//     parallelism 1). Pods without a profile are "skipped", gated pods
//     "gated".
//   - A bind is applied at once: the pod runs on its node (started one
//     simulated second after the previous bind) and later pods see it.
//   - Preemption victims are deleted at once, lower-priority nominations on
//     the node are cleared, and the preemptor is retried immediately (up
//     to Options.MaxPreemptionRetries times): a "nominated" line is
//     followed by the retry's line.
//   - Devices (Input.Devices) are allocated as kube's DynamicResources
//     does: a bound line carries each claim entry's claim and devices; when
//     PostFilter deallocates a stale claim of the pod, the line is
//     "deallocated" and the pod is tried again at once (once).
//   - Every node is filtered and scored (percentageOfNodesToScore 100)
//     unless the configuration or Options say otherwise, and a lone
//     feasible node is scored for the report (scoresReportOnly).
package simulate
