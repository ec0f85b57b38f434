#!/usr/bin/env python3
"""Writes the node-pressure parity corpus Berth adds to kubeoracle's own
examples/evict scenarios: NAME.yaml, NAME.stats<i>.json, NAME.kubelet.yaml,
NAME.args. record.sh then runs the real kubelet eviction manager
(kubeoracle evict) on every scenario and stores NAME.oracle.jsonl."""
import json, os, sys
sys.path.insert(0, "/work/shared/kubeoracle/validate")
sys.argv = [sys.argv[0], os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle")]
import io, contextlib
with contextlib.redirect_stdout(io.StringIO()):
    import evict_scenarios as ev  # writes kubeoracle's scenarios into oracle/ too (the ephemeral-limit one and the hand-written expectations are removed: see README)
from evict_scenarios import node, pod, pc, podstats, summary, Mi, Gi, D

def write(name, docs, stats, kubelet=None, args=None):
    with open(f"{D}/{name}.yaml", "w") as f:
        f.write("---\n".join(docs))
    for i, s in enumerate(stats):
        with open(f"{D}/{name}.stats{i}.json", "w") as f:
            json.dump(s, f, indent=1)
    if kubelet:
        with open(f"{D}/{name}.kubelet.yaml", "w") as f:
            f.write(kubelet)
    if args:
        with open(f"{D}/{name}.args", "w") as f:
            f.write(args + "\n")

def with_node(s, **extra):
    s["node"].update(extra)
    return s

# PID pressure: pid.available<1000 (hard); ranking priority, then process count.
def pids(procs, cur):
    s = summary(8 * Gi, pods=[])
    for n, c in procs:
        p = podstats(n, mem=100 * Mi)
        p["process_stats"] = {"process_count": c}
        s["pods"].append(p)
    s["node"]["rlimit"] = {"maxpid": 32768, "curproc": cur}
    return s
write("pid-hard", [node(), pc("low", 100), pod("forky", pc="low"), pod("busy", pc="low"), pod("vip")],
      [pids([("forky", 4000), ("busy", 9000), ("vip", 20000)], 32000), pids([("forky", 4000), ("vip", 20000)], 25000)],
      kubelet="evictionHard:\n  pid.available: \"1000\"\n")

# Inodes: nodefs.inodesFree<5% (default), ranked by inodes used.
def inodes(free, used):
    s = summary(8 * Gi, pods=[])
    s["node"]["fs"].update({"inodes": 1000000, "inodesFree": free, "inodesUsed": 1000000 - free})
    for n, u in used:
        p = podstats(n, mem=100 * Mi, rootfs=Mi, logs=0)
        p["containers"][0]["rootfs"]["inodesUsed"] = u
        p["containers"][0]["logs"]["inodesUsed"] = 10
        s["pods"].append(p)
    return s
write("inodes-nodefs", [node(), pod("few"), pod("many"), pod("some", req={"ephemeral-storage": "1Gi"})],
      [inodes(30000, [("few", 100), ("many", 500000), ("some", 200000)])])

# Ties broken by priority: all pods over their requests by the same amount.
write("rank-priority-ties",
      [node(), pc("p10", 10), pc("p20", 20), pod("mid", req={"memory": "1Gi"}, pc="p20"),
       pod("low", req={"memory": "1Gi"}, pc="p10"), pod("default0", req={"memory": "1Gi"})],
      [summary(10 * Mi, pods=[podstats("mid", mem=2 * Gi), podstats("low", mem=2 * Gi), podstats("default0", mem=2 * Gi)]),
       summary(10 * Mi, pods=[podstats("mid", mem=2 * Gi), podstats("low", mem=2 * Gi)]),
       summary(10 * Mi, pods=[podstats("mid", mem=2 * Gi)])])

# Over vs under requests: a high-priority pod over its request goes before a
# low-priority pod under it; a pod without stats is ranked first of all.
write("over-under-nostats",
      [node(), pc("low", 1), pc("high", 1000), pod("greedy-high", req={"memory": "256Mi"}, pc="high"),
       pod("modest-low", req={"memory": "4Gi"}, pc="low"), pod("ghost", req={"memory": "1Gi"}, pc="high")],
      [summary(20 * Mi, pods=[podstats("greedy-high", mem=300 * Mi), podstats("modest-low", mem=3 * Gi)]),
       summary(20 * Mi, pods=[podstats("greedy-high", mem=300 * Mi), podstats("modest-low", mem=3 * Gi)])])

# Soft threshold whose max pod grace is below the pod's 30 s: grace = 10;
# a hard threshold also configured but not met.
write("soft-maxgrace",
      [node(), pod("a", req={"memory": "1Gi"}), pod("b", req={"memory": "2Gi"})],
      [summary(1 * Gi, pods=[podstats("a", mem=1200 * Mi), podstats("b", mem=2 * Gi + 10 * Mi)]),
       summary(1 * Gi, pods=[podstats("a", mem=1200 * Mi), podstats("b", mem=2 * Gi + 10 * Mi)]),
       summary(1 * Gi, pods=[podstats("a", mem=1200 * Mi), podstats("b", mem=2 * Gi + 10 * Mi)])],
      kubelet="""evictionSoft:
  memory.available: 2Gi
evictionSoftGracePeriod:
  memory.available: 15s
evictionMaxPodGracePeriod: 10
""", args="--interval 10s")

# Soft grace interrupted: the signal recovers before the grace period ends,
# so the clock restarts and nothing is evicted until 20 s after the return.
write("soft-interrupted",
      [node(), pod("a", req={"memory": "1Gi"})],
      [summary(500 * Mi, pods=[podstats("a", mem=2 * Gi)]), summary(3 * Gi, pods=[podstats("a", mem=2 * Gi)]),
       summary(500 * Mi, pods=[podstats("a", mem=2 * Gi)]), summary(500 * Mi, pods=[podstats("a", mem=2 * Gi)]),
       summary(500 * Mi, pods=[podstats("a", mem=2 * Gi)])],
      kubelet="""evictionHard: {}
evictionSoft:
  memory.available: 1Gi
evictionSoftGracePeriod:
  memory.available: 20s
evictionMaxPodGracePeriod: 60
""")

# imagefs.available (default 15%): ranked with every filesystem stat (one filesystem).
def imgfs(avail):
    s = summary(8 * Gi, pods=[podstats("small", mem=Mi, rootfs=Gi, logs=0), podstats("big", mem=Mi, rootfs=5 * Gi, logs=Gi)])
    s["node"]["runtime"] = {"imageFs": {"availableBytes": avail, "capacityBytes": 100 * Gi}}
    return s
write("imagefs-only", [node(), pod("small"), pod("big", req={"ephemeral-storage": "8Gi"})], [imgfs(10 * Gi)])

# nodefs and imagefs both met: the kubelet's choice is map order (ambiguous).
def both():
    s = summary(8 * Gi, fs_avail=5 * Gi, pods=[podstats("px", mem=Mi, rootfs=3 * Gi, logs=0), podstats("py", mem=Mi, rootfs=Gi, logs=0)])
    s["node"]["runtime"] = {"imageFs": {"availableBytes": 5 * Gi, "capacityBytes": 100 * Gi}}
    return s
write("disk-ambiguous", [node(), pod("px"), pod("py")], [both()])

# Memory and nodefs both met: memory is reclaimed first (not ambiguous).
def memdisk():
    return summary(50 * Mi, fs_avail=5 * Gi, pods=[podstats("m", mem=3 * Gi, rootfs=Mi, logs=0), podstats("d", mem=Mi, rootfs=8 * Gi, logs=0)])
write("memory-before-disk", [node(), pod("m", req={"memory": "1Gi"}), pod("d")], [memdisk()])

# Stats times: a second sample with the same time as the first is not acted on.
def timed(t):
    s = summary(50 * Mi, pods=[podstats("a", mem=2 * Gi), podstats("b", mem=2 * Gi)])
    s["node"]["memory"]["time"] = t
    return s
write("stale-time", [node(), pod("a", req={"memory": "1Gi"}), pod("b", req={"memory": "512Mi"})],
      [timed("2026-01-01T00:00:00Z"), timed("2026-01-01T00:00:00Z"), timed("2026-01-01T00:00:20Z")])
print("ok")
