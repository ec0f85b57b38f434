// Package simulate schedules a cluster's pending pods deterministically,
// one attempt each, and reports every attempt in the trace format of
// DESIGN.md — the format kubeoracle's "place" mode prints for the real
// kube-scheduler, so the two can be compared line by line.
//
// Data comes from an Input (nodes, running and pending pods, priority
// classes, disruption budgets, namespaces, a configuration), typically
// read from Kubernetes manifests by core/manifest; it goes out as Lines
// (berthctl simulate prints them as JSON, one per line).
//
// The run follows kubeoracle's place mode (../shared/kubeoracle/README.md):
//
//   - Pods rejected at admission (an unknown PriorityClass) come first as
//     "error" lines.
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
//   - Every node is filtered and scored (percentageOfNodesToScore 100)
//     unless the configuration or Options say otherwise, and a lone
//     feasible node is scored for the report (scoresReportOnly).
package simulate
