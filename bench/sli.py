#!/usr/bin/env python3
"""Estimate percentiles of berthd's scheduler_pod_scheduling_sli_duration_seconds
(a pod's first queueing -> its Bind decision durable) from a /metrics scrape,
by linear interpolation inside the histogram's buckets, as Prometheus'
histogram_quantile does. All attempts labels are summed.

    curl -s http://127.0.0.1:9090/metrics | python3 bench/sli.py 50 99
"""
import re, sys
from collections import defaultdict

NAME = "scheduler_pod_scheduling_sli_duration_seconds_bucket"


def buckets(text):
    counts = defaultdict(float)
    for line in text.splitlines():
        if not line.startswith(NAME + "{"):
            continue
        m = re.search(r'le="([^"]+)"\}\s+(\S+)$', line)
        if m:
            counts[float(m.group(1))] += float(m.group(2))
    return sorted(counts.items())


def quantile(q, bs):
    total = bs[-1][1]
    if total == 0:
        return None
    rank, lo, below = q * total, 0.0, 0.0
    for le, cum in bs:
        if cum >= rank:
            if le == float("inf"):
                return lo
            return lo + (le - lo) * (rank - below) / max(cum - below, 1e-12)
        lo, below = le, cum
    return lo


def main(args):
    bs = buckets(sys.stdin.read())
    if not bs:
        sys.exit("no " + NAME + " in the input")
    print(f"pods: {int(bs[-1][1])}")
    for a in args or ["50", "99"]:
        v = quantile(float(a) / 100, bs)
        print(f"p{a}: {v * 1000:.2f} ms" if v is not None else f"p{a}: -")


if __name__ == "__main__":
    main(sys.argv[1:])
