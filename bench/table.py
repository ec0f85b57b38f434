#!/usr/bin/env python3
"""Print the Markdown table of docs/performance.md from bench/results.csv:
median pods/s per workload and size, the ratio of Berth to kube-scheduler,
and Berth's end-to-end latency (all pods offered at once, so mostly queueing
time).

    python3 bench/table.py bench/results.csv
"""
import csv, statistics, sys
from collections import defaultdict


def main(path):
    runs = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["pods_per_second"]:
                runs[(r["workload"], int(r["nodes"]), int(r["pods"]), r["scheduler"] + "/" + r["level"])].append(r)
    med = lambda rows, k: statistics.median(float(r[k]) for r in rows if r[k]) if any(r[k] for r in rows) else None
    fmt = lambda v, p=0: "—" if v is None else f"{v:.{p}f}"
    print("| workload | nodes | pods | kube-scheduler pods/s | Berth in-process pods/s | ratio | Berth e2e pods/s | ratio | Berth e2e p50 / p99 ms | runs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for wl, n, p in sorted({k[:3] for k in runs}, key=lambda k: (k[1], k[0])):
        kube = runs.get((wl, n, p, "kube-scheduler/inprocess-fakeapi"), [])
        inp = runs.get((wl, n, p, "berth/inprocess"), [])
        e2e = runs.get((wl, n, p, "berth/e2e"), [])
        k, i, e = med(kube, "pods_per_second"), med(inp, "pods_per_second"), med(e2e, "pods_per_second")
        ratio = lambda b: "—" if b is None or not k else f"{b / k:.1f}x"
        lat = "—" if not e2e else f"{fmt(med(e2e, 'p50_ms'))} / {fmt(med(e2e, 'p99_ms'))}"
        print(f"| {wl} | {n} | {p} | {fmt(k)} | {fmt(i)} | {ratio(i)} | {fmt(e)} | {ratio(e)} | {lat} | {len(kube)}/{len(inp)}/{len(e2e)} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results.csv")
