// Package cli is `berthctl bench`, the end-to-end level of Berth's
// benchmark suite (issue 8): it generates a workload (bench/workload),
// streams it to a berthd over berth.v1 (StateService.Sync), watches the
// decisions (DecisionService.Watch) until every pending pod is decided,
// confirms every bind and deletes every evicted victim through Sync, as an
// orchestrator would, and prints one JSON line per run:
//
//	{"workload":..,"nodes":..,"pods":..,"seconds":..,"podsPerSecond":..,
//	 "p50LatencyMs":..,"p99LatencyMs":..,"peakRSSMiB":..}
//
// What is measured: the clock starts when the first pending pod is sent
// (the cluster before it — nodes, classes, running pods — is loaded and
// acknowledged first) and stops when the last pending pod's decision
// arrives on the Watch stream. A pod's latency runs from the moment its
// Sync batch is sent to the moment its decision (Bind, or Unschedulable for
// a pod no node can take) arrives on the Watch stream: it covers the
// network both ways, the ingest, the queue, the scheduling cycle and the
// decision log's durable commit (berthd sends a decision only once it is
// durable), so it bounds "pod received → decision durable" from above.
//
// What is outside the clock, as a real orchestrator would already have it
// before its pods exist: the workload, the tracker's per-pod state, every
// pending pod's berthv1 proto and the stream's Sync requests, cut into
// batches and marshalled (grpc.PreparedMsg). Inside the clock the client
// only writes those requests to the Sync stream (paced by --rate), reads
// the Watch stream, and confirms each bind by setting node_name on the
// pod's prebuilt proto and sending it back; berthd receives, unmarshals and
// converts every pod inside the clock. A CPU profile labels the client's
// work inside the clock: go tool pprof -tagfocus bench=window.
//
// p90LatencyMs and p999LatencyMs complete the distribution. When bench
// starts berthd itself, "server" holds what the kernel counted for the
// berthd process over the window, per pending pod (from /proc/PID/task:
// context switches, CPU time, run-queue delay; with --syscalls, system
// calls, from perf stat or strace -c). With --berthd that is berthd alone,
// as its own process; without, berthd and the client in one.
// bench/latency.sh runs issue 18's latency measurement with one command.
//
// peakRSSMiB is the VmHWM of the berthctl process: with the built-in
// server it includes berthd; with --server it is the client's alone. It
// includes the prebuilt protos kept for the confirmations (~1 KB a pod).
//
// Without --server, Command starts a berthd on loopback with a temporary
// data directory for every run (Options.Start says how).
//
// --verify compares the binds with core/simulate's on the same input: the
// server must then schedule deterministically (parallelism 1, ties to the
// smallest node name), as simulate does.
package cli
