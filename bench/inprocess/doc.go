// Package inprocess is the in-process level of Berth's benchmark suite
// (issue 8): it drives core/scheduler directly, with no gRPC and no
// decision log, on a generated workload (bench/workload).
//
// Run plays the part of the orchestrator: it loads the cluster, starts the
// scheduling loop (Scheduler.Run, as berthd does), sends the workload's
// stream of changes, confirms every Bind by sending the pod back bound,
// deletes every evicted victim, and stops once every pending pod is decided
// (bound, or reported unschedulable when no node can ever take it). The
// clock starts when the first change is sent; a pod's latency runs from
// its AddPod call to its Bind (or Unschedulable) decision.
//
// The package's benchmarks (go test -bench) report pods/s per workload,
// ns/pod as clusters grow, and bytes per node and per queued pod.
package inprocess
