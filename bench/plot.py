#!/usr/bin/env python3
"""Plot bench/results.csv (written by bench/compare.py) as an SVG bar chart
of median pods/s per workload and size, kube-scheduler beside Berth (in
process and end to end), on a log scale. Plain Python, no matplotlib.

    python3 bench/plot.py bench/results.csv docs/performance.svg
"""
import csv, math, statistics, sys
from collections import defaultdict

SERIES = [("kube-scheduler", "inprocess-fakeapi", "#9e9e9e", "kube-scheduler (kubeoracle)"),
          ("berth", "inprocess", "#1f77b4", "Berth in process"),
          ("berth", "e2e", "#ff7f0e", "Berth end to end (gRPC + log)")]


def medians(path):
    runs = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["pods_per_second"]:
                runs[(r["workload"], int(r["nodes"]), r["scheduler"], r["level"])].append(float(r["pods_per_second"]))
    return {k: statistics.median(v) for k, v in runs.items()}


def main(src, dst):
    med = medians(src)
    groups = sorted({(k[0], k[1]) for k in med}, key=lambda g: (g[1], g[0]))
    series = [s for s in SERIES if any((g[0], g[1], s[0], s[1]) in med for g in groups)]
    lo, hi = 1, 10 ** math.ceil(math.log10(max(med.values()) * 1.2))
    W, H, left, top, bottom = max(640, 40 + len(groups) * (22 * len(series) + 26)), 420, 60, 40, 110
    ph = H - top - bottom
    y = lambda v: top + ph - ph * (math.log10(max(v, lo)) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W/2}" y="18" text-anchor="middle" font-size="14">Pods scheduled per second (median of runs, log scale)</text>']
    d = lo
    while d <= hi:
        o.append(f'<line x1="{left}" x2="{W-10}" y1="{y(d):.1f}" y2="{y(d):.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{left-5}" y="{y(d)+4:.1f}" text-anchor="end">{d:g}</text>')
        d *= 10
    x = left + 10
    for wl, n in groups:
        x0 = x
        for name, level, color, _ in series:
            v = med.get((wl, n, name, level))
            if v is not None:
                o.append(f'<rect x="{x}" y="{y(v):.1f}" width="20" height="{top+ph-y(v):.1f}" fill="{color}"><title>{wl} {n}: {v:.0f} pods/s</title></rect>')
                o.append(f'<text x="{x+10}" y="{y(v)-3:.1f}" text-anchor="middle" font-size="8">{v:.0f}</text>')
            x += 22
        o.append(f'<text transform="translate({(x0+x)/2:.1f},{top+ph+8}) rotate(45)" font-size="10">{wl} {n}</text>')
        x += 26
    ly = H - 22
    lx = left
    for _, _, color, label in series:
        o.append(f'<rect x="{lx}" y="{ly-9}" width="10" height="10" fill="{color}"/><text x="{lx+14}" y="{ly}">{label}</text>')
        lx += 14 + 7 * len(label) + 20
    o.append("</svg>")
    with open(dst, "w") as f:
        f.write("\n".join(o) + "\n")


if __name__ == "__main__":
    main(*(sys.argv[1:3] if len(sys.argv) > 2 else ("bench/results.csv", "docs/performance.svg")))
