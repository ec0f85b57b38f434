#!/usr/bin/env python3
"""Run kube-scheduler (kubeoracle throughput) and Berth (in process, and end
to end through berthctl bench) on the workloads of issue 8,
several runs each, and write one CSV row per run.

    python3 bench/compare.py --runs 3 --sizes 500 5000 --out bench/results.csv
    python3 bench/compare.py --runs 3 --sizes 15000 --workloads basic spread --levels kube e2e
    python3 bench/compare.py --runs 3 --sizes 1000 5000 --workloads preemption
    python3 bench/compare.py --runs 1 --sizes 5000 --workloads preemption --pods 10000 --levels inprocess e2e
    python3 bench/compare.py --runs 3 --sizes 1000 --workloads dra
    python3 bench/compare.py --runs 3 --sizes 5000 --workloads basic volumes-bound volumes --levels kube e2e
    python3 bench/compare.py --runs 1 --sizes 50000 100000 --workloads basic spread --levels inprocess e2e

Every workload of bench/workload runs by default (WORKLOADS; TestCompareCoversEveryWorkload
keeps the two lists equal). kube-scheduler is not run for mixedchurn (a file cannot express
its churn) nor volumes (without a PV controller its VolumeBinding PreBind waits for the
provisioned volumes for ever), nor above --kube-max-nodes (default 15000: at 50,000 nodes a
kube-scheduler run takes longer than the rest of the table); each skip is said on stderr.

volumes: half the pods carry a claim of a WaitForFirstConsumer class that is
provisioned on the chosen node; kube-scheduler cannot finish it without a
volume controller (its PreBind waits for the claim to be bound), so its kube
row is a note. volumes-bound: the same claims already bound to zonal
volumes, which both schedulers finish (docs/volumes.md, "Cost").

The levels run alternately (run 1 of each level, then run 2 of each...), so
kube-scheduler and Berth share each time window of a busy machine; every
row's note carries the 1-minute load average at its start.

Needs: Go and a built kubeoracle (--kubeoracle, default /tmp/kubeoracle;
see ../shared/kubeoracle/README.md). berthctl is built from this checkout
unless --berthctl names one; its bench command runs the berthd daemon inside
the berthctl process, on loopback with a fresh data dir (or a berthd binary
as its own process with --berthd, or a running one with --server). The kube-scheduler level is
skipped, with a note on stderr, when kubeoracle is missing. Run from the
repo root.
"""
import argparse, csv, json, os, re, resource, shutil, subprocess, sys, tempfile

WORKLOADS = ["basic", "spread", "affinity", "preemption", "preferred", "unschedulable", "mixedchurn", "gang", "dra", "volumes", "volumes-bound", "queueing"]
ORACLE_NATIVE = {"basic", "spread", "affinity", "preemption"}
# kubeoracle cannot run these: why, as said on stderr.
KUBE_SKIP = {
    "mixedchurn": "its churn cannot be written as a file",
    "volumes": "without a PV controller kube's VolumeBinding PreBind never sees the volumes provisioned",
    "queueing": "kube-scheduler has no quota (Kueue's admission is held to kueueoracle by core/quota/parity)",
}
# Berth's in-process benchmark cannot run these: why, as said on stderr.
INPROCESS_SKIP = {
    "queueing": "Kueue admission runs in berthd (server/queuesvc), end to end only",
}
# Feature gates kube-scheduler needs for a workload's file.
KUBE_GATES = {"gang": "GenericWorkload=true,GangScheduling=true"}
FIELDS = ["workload", "nodes", "pods", "scheduler", "level", "run", "seconds",
          "pods_per_second", "p50_ms", "p99_ms", "peak_rss_mib", "note"]


def default_pods(workload, nodes):
    return nodes // 5 if workload == "preemption" else 2 * nodes


def load_note():
    return "load %.1f" % os.getloadavg()[0]


def sh(cmd, timeout):
    """Runs cmd; the result carries cpu_seconds, the user and system time of
    the process (and its children) as the kernel counted it."""
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    r.cpu_seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return r


def cpu_note(r, pods):
    """CPU time per pod of the whole process: the scheduler with its load
    and setup (kubeoracle: the fake API server and informers; berthctl
    bench: the load generator and the berthd inside it)."""
    return "cpu %.3f ms/pod" % (1000 * r.cpu_seconds / pods)


def kube_skip(a, w, n):
    """Why kube-scheduler is not run for the workload at n nodes, or None."""
    if w in KUBE_SKIP:
        return KUBE_SKIP[w]
    if n > a.kube_max_nodes:
        return f"{n} nodes is above --kube-max-nodes {a.kube_max_nodes}"
    return None


def kube(a, w, n, p, run, tmp):
    why = kube_skip(a, w, n)
    if why:
        if run == 1:
            print(f"kube-scheduler skipped for {w} at {n} nodes: {why}", file=sys.stderr, flush=True)
        if w == "volumes":
            return dict(note="not run: " + why + " (see volumes-bound)")
        return None
    if w in ORACLE_NATIVE:
        cmd = [a.kubeoracle, "throughput", "--workload", w, "--nodes", str(n), "--pods", str(p)]
    else:
        f = os.path.join(tmp, f"{w}-{n}.yaml")
        if not os.path.exists(f):
            with open(f, "w") as out:
                subprocess.run([a.genyaml, "--workload", w, "--nodes", str(n), "--pods", str(p)], stdout=out, check=True)
        cmd = [a.kubeoracle, "throughput", "-f", f, "--stall-timeout", "10s"]
        if w in KUBE_GATES:
            cmd += ["--feature-gates", KUBE_GATES[w]]
    cmd += ["--timeout", a.timeout]
    r = sh(cmd, None)
    line = next((l for l in r.stdout.splitlines() if l.startswith("{")), None)
    if line is None:
        return dict(note="failed: " + r.stderr.strip()[-200:])
    j = json.loads(line)
    note = "timed out" if j.get("timedOut") else ("stalled (unschedulable pods)" if j.get("stalled") else "")
    note = "; ".join(x for x in (note, cpu_note(r, p)) if x)
    return dict(seconds=j["seconds"], pods_per_second=j["podsPerSecond"], peak_rss_mib=j.get("peakRSSMiB", ""), note=note)


def inprocess(a, w, n, p, run, tmp):
    if w in INPROCESS_SKIP:
        if run == 1:
            print(f"Berth in process skipped for {w}: {INPROCESS_SKIP[w]}", file=sys.stderr, flush=True)
        return None
    r = sh([a.inprocess_test, "-test.run", "^$", "-test.bench", f"^BenchmarkWorkload$/^{w}$/^{n}nodes$",
            "-test.benchtime", "1x", "-bench.sizes", str(n), "-bench.pods", str(p)], None)
    m = re.search(r"(\d+) ns/op\s+([\d.]+) p50-ms\s+([\d.]+) p99-ms\s+([\d.]+) pods/s", r.stdout)
    if not m:
        skip = "SKIP" in r.stdout or "skip" in r.stdout
        return dict(note=("skipped: " if skip else "failed: ") + (r.stdout + r.stderr).strip()[-200:])
    return dict(seconds=round(int(m.group(1)) / 1e9, 3), pods_per_second=float(m.group(4)),
                p50_ms=float(m.group(2)), p99_ms=float(m.group(3)))


def e2e(a, w, n, p, run, tmp):
    cmd = [a.berthctl, "bench", "--workload", w, "--nodes", str(n), "--pods", str(p), "-o", "json"]
    if a.berthd:
        cmd += ["--berthd", a.berthd]
    if a.server:
        cmd += ["--server", a.server]
    r = sh(cmd, None)
    line = next((l for l in r.stdout.splitlines() if l.startswith("{")), None)
    if line is None:
        return dict(note="failed: " + r.stderr.strip()[-200:])
    j = json.loads(line)
    return dict(seconds=j["seconds"], pods_per_second=j["podsPerSecond"], p50_ms=j["p50LatencyMs"],
                p99_ms=j["p99LatencyMs"], peak_rss_mib=j["peakRSSMiB"],
                note="; ".join(x for x in (cpu_note(r, p), window_cpu(j)) if x))


def window_cpu(j):
    """berthctl bench's own count: the process's CPU time per pod while the
    clock ran (load generator and berthd)."""
    ms = (j.get("server") or {}).get("cpuMsPerPod")
    return "" if ms is None else "window cpu %.3f ms/pod" % ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    ap.add_argument("--workloads", nargs="+", default=WORKLOADS)
    ap.add_argument("--levels", nargs="+", default=["kube", "inprocess", "e2e"])
    ap.add_argument("--out", default="bench/results.csv")
    ap.add_argument("--kubeoracle", default=os.environ.get("KUBEORACLE", "/tmp/kubeoracle"))
    ap.add_argument("--berthctl", default=os.environ.get("BERTHCTL", ""), help="berthctl binary (default: built from this checkout)")
    ap.add_argument("--berthd", default=os.environ.get("BERTHD", ""))
    ap.add_argument("--server", default="", help="address of a running berthd for the e2e level")
    ap.add_argument("--timeout", default="20m", help="kubeoracle's --timeout")
    ap.add_argument("--pods", type=int, default=0, help="pending pods per run (default: 2 per node, preemption 1 per 5 nodes)")
    ap.add_argument("--kube-max-nodes", type=int, default=15000, help="skip kube-scheduler above this many nodes")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="berth-compare-")
    a.genyaml = os.path.join(tmp, "genyaml")
    a.inprocess_test = os.path.join(tmp, "inprocess.test")
    subprocess.run(["go", "build", "-o", a.genyaml, "./bench/genyaml"], check=True)
    subprocess.run(["go", "test", "-c", "-o", a.inprocess_test, "./bench/inprocess"], check=True)
    if not a.berthctl:
        a.berthctl = os.path.join(tmp, "berthctl")
        subprocess.run(["go", "build", "-o", a.berthctl, "./cmd/berthctl"], check=True)
    levels = []
    if "kube" in a.levels:
        if os.path.exists(a.kubeoracle):
            levels.append(("kube-scheduler", "inprocess-fakeapi", kube))
        else:
            print(f"no kubeoracle at {a.kubeoracle}: kube-scheduler skipped", file=sys.stderr)
    if "inprocess" in a.levels:
        levels.append(("berth", "inprocess", inprocess))
    if "e2e" in a.levels:
        levels.append(("berth", "e2e", e2e))

    new = not os.path.exists(a.out)
    with open(a.out, "a", newline="") as f:
        out = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")  # not csv's \r\n, so lines appended by hand stay whole
        if new:
            out.writeheader()
        for w in a.workloads:
            for n in a.sizes:
                p = a.pods or default_pods(w, n)
                for run in range(1, a.runs + 1):
                    for sched, level, fn in levels:
                        load = load_note()
                        row = fn(a, w, n, p, run, tmp)
                        if row is None:
                            continue
                        row["note"] = "; ".join(x for x in (row.get("note", ""), load) if x)
                        row.update(workload=w, nodes=n, pods=p, scheduler=sched, level=level, run=run)
                        out.writerow(row)
                        f.flush()
                        print(json.dumps(row), file=sys.stderr, flush=True)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
