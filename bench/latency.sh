#!/bin/sh
# latency.sh: issue 18's p99 target, with one command. berthd runs as its own
# process (started by `berthctl bench --berthd`), the load generator in
# another; pods are offered at a fixed rate for a fixed time; each run prints
# pod-submitted -> Bind-received percentiles and berthd's per-pod counts
# (context switches, CPU, run-queue delay, and system calls when perf is
# installed), then medians over the runs, per berthd.
#
#   bench/latency.sh [RUNS [SECONDS [RATE]]]     defaults: 5 runs, 5 s, 1000 pods/s
#
# Environment:
#   BERTHD    the berthd binaries to measure, space-separated, run interleaved
#             (run 1 of each, then run 2 of each, ...); "tree" is this tree's,
#             built here (the default). PATH:WINDOW gives that binary's runs
#             a client flow-control window (--window; 0 is gRPC's default, as
#             before round 6), e.g. BERTHD="/tmp/berthd-before:0 tree".
#   NODES     cluster size (5000); NICE: niceness of the runs (10, the
#             machine is shared); SYSCALLS: perf, strace or none (default
#             perf when installed).
# Runs from the repository root.
set -eu
runs=${1:-5}
secs=${2:-5}
rate=${3:-1000}
nodes=${NODES:-5000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/berthctl" ./cmd/berthctl
sys=${SYSCALLS:-}
if [ -z "$sys" ]; then
	if command -v perf >/dev/null 2>&1; then sys=perf; else sys=none; fi
fi
targets=${BERTHD:-tree}
case " $targets " in
*" tree "* | *" tree:"*) go build -o "$tmp/berthd" ./cmd/berthd ;;
esac
echo "nproc $(nproc); loadavg before: $(cat /proc/loadavg)"
i=0
while [ "$i" -lt "$runs" ]; do
	for t in $targets; do
		bin=${t%%:*}
		set -- --workload basic --nodes "$nodes" --pods $((rate * secs)) --rate "$rate" -o json
		if [ "$bin" = tree ]; then bin="$tmp/berthd"; fi
		set -- "$@" --berthd "$bin"
		case "$t" in *:*) set -- "$@" --window "${t#*:}" ;; esac
		if [ "$sys" != none ]; then set -- "$@" --syscalls "$sys"; fi
		line=$(nice -n "${NICE:-10}" "$tmp/berthctl" bench "$@")
		echo "$t $(cut -d' ' -f1 /proc/loadavg) $line" | tee -a "$tmp/runs"
	done
	i=$((i + 1))
done
echo "loadavg after: $(cat /proc/loadavg)"
python3 - "$tmp/runs" <<'EOF'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    target, load, js = line.split(" ", 2)
    runs.setdefault(target, []).append((float(load), json.loads(js)))
for target, rows in runs.items():
    med = lambda f: statistics.median(f(r) for _, r in rows)
    s = lambda k: (lambda r: (r.get("server") or {}).get(k, 0))
    print("%s: medians of %d runs (load %.1f-%.1f): p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f ms;  berthd per pod: "
          "%.1f voluntary + %.1f involuntary context switches, %.1f system calls, %.3f ms CPU, %.3f ms waiting for a CPU" % (
        target, len(rows), min(l for l, _ in rows), max(l for l, _ in rows),
        med(lambda r: r["p50LatencyMs"]), med(lambda r: r["p90LatencyMs"]), med(lambda r: r["p99LatencyMs"]),
        med(lambda r: r["p999LatencyMs"]), med(s("voluntaryCtxSwitchesPerPod")), med(s("involuntaryCtxSwitchesPerPod")),
        med(s("syscallsPerPod")), med(s("cpuMsPerPod")), med(s("runDelayMsPerPod"))))
    print("  p99 of each run:", " ".join("%.2f" % r["p99LatencyMs"] for _, r in rows))
EOF
