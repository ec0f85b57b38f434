#!/bin/sh
# latency.sh: issue 18's p99 target, with one command. berthd runs as its own
# process (started by `berthctl bench --berthd`), the load generator in
# another; pods are offered at a fixed rate for a fixed time; each run prints
# pod-submitted -> Bind-received percentiles and berthd's per-pod counts
# (context switches, CPU, run-queue delay, and system calls when perf is
# installed), then a line of medians over the runs.
#
#   bench/latency.sh [RUNS [SECONDS [RATE]]]     defaults: 5 runs, 5 s, 1000 pods/s
#
# Environment: BERTHD (a berthd binary to measure instead of building this
# tree's, e.g. main's for a before/after), NODES (5000), NICE (10; the
# machine is shared), SYSCALLS (perf, strace or none; default perf when
# installed). Runs from the repository root.
set -eu
runs=${1:-5}
secs=${2:-5}
rate=${3:-1000}
nodes=${NODES:-5000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/berthctl" ./cmd/berthctl
if [ -z "${BERTHD:-}" ]; then
	go build -o "$tmp/berthd" ./cmd/berthd
	BERTHD="$tmp/berthd"
fi
sys=${SYSCALLS:-}
if [ -z "$sys" ]; then
	if command -v perf >/dev/null 2>&1; then sys=perf; else sys=none; fi
fi
set -- --workload basic --nodes "$nodes" --pods $((rate * secs)) --rate "$rate" --berthd "$BERTHD" -o json
if [ "$sys" != none ]; then
	set -- "$@" --syscalls "$sys"
fi
echo "nproc $(nproc); loadavg before: $(cat /proc/loadavg)"
i=0
while [ "$i" -lt "$runs" ]; do
	nice -n "${NICE:-10}" "$tmp/berthctl" bench "$@" | tee -a "$tmp/runs.json"
	i=$((i + 1))
done
echo "loadavg after: $(cat /proc/loadavg)"
python3 - "$tmp/runs.json" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def med(f):
    return statistics.median(f(r) for r in rows)
s = lambda k: (lambda r: (r.get("server") or {}).get(k, 0))
print("medians of %d runs: p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f ms;  berthd per pod: "
      "%.1f voluntary + %.1f involuntary context switches, %.1f system calls, %.3f ms CPU, %.3f ms waiting for a CPU" % (
    len(rows), med(lambda r: r["p50LatencyMs"]), med(lambda r: r["p90LatencyMs"]), med(lambda r: r["p99LatencyMs"]),
    med(lambda r: r["p999LatencyMs"]), med(s("voluntaryCtxSwitchesPerPod")), med(s("involuntaryCtxSwitchesPerPod")),
    med(s("syscallsPerPod")), med(s("cpuMsPerPod")), med(s("runDelayMsPerPod"))))
print("p99 of each run:", " ".join("%.2f" % r["p99LatencyMs"] for r in rows))
EOF
