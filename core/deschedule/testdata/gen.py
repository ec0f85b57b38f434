#!/usr/bin/env python3
"""Generates the descheduling parity corpus: corpus/<strategy>-<n>.yaml (a
cluster) and corpus/<strategy>-<n>.policy.yaml (a DeschedulerPolicy), from a
fixed seed. record.sh then records the real Descheduler's evictions
(descheduleroracle) as corpus/<strategy>-<n>.oracle.jsonl.

usage: gen.py [--per-strategy N]"""
import json
import random
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "corpus"
PER = int(sys.argv[sys.argv.index("--per-strategy") + 1]) if "--per-strategy" in sys.argv else 30

CPUS = ["100m", "250m", "500m", "1"]
MEMS = ["128Mi", "256Mi", "512Mi", "1Gi"]
IMAGES = ["nginx:1.27", "redis:7", "app:v1", "app:v2"]


def dump(docs):
    return "\n---\n".join(json.dumps(d, sort_keys=True) for d in docs) + "\n"


class Cluster:
    def __init__(self, rng, nodes=None, zones=3):
        self.rng = rng
        self.docs = []
        self.pods = 0
        self.nodes = []
        n = nodes or rng.randint(3, 6)
        for i in range(n):
            name = f"n{i + 1}"
            labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": "abc"[i % zones]}
            node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                    "status": {"allocatable": {"cpu": str(rng.choice([2, 4, 4, 8])), "memory": rng.choice(["4Gi", "8Gi", "16Gi"]), "pods": "110"}}}
            self.docs.append(node)
            self.nodes.append(node)
        self.docs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10})
        self.docs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000})
        self.docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "labels": {"tier": "batch"}}})
        self.docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {"tier": "prod"}}})

    def pod(self, node, owner="rs-0", ns=None, cpu=None, mem=None, qos=None, image=None, prio=None, labels=None,
            affinity=None, tolerations=None, restarts=0, init_restarts=0, age_s=None, phase=None, waiting=None,
            volumes=None, annotations=None, node_selector=None):
        rng = self.rng
        self.pods += 1
        name = f"p{self.pods}"
        ns = ns or rng.choice(["default", "default", "team"])
        cpu = cpu or rng.choice(CPUS)
        mem = mem or rng.choice(MEMS)
        qos = qos or rng.choice(["burstable", "burstable", "guaranteed", "besteffort"])
        res = {}
        if qos == "burstable":
            res = {"requests": {"cpu": cpu, "memory": mem}}
        elif qos == "guaranteed":
            res = {"requests": {"cpu": cpu, "memory": mem}, "limits": {"cpu": cpu, "memory": mem}}
        meta = {"name": name, "namespace": ns, "labels": labels or {"app": owner}}
        if age_s is None:
            age_s = rng.randint(60, 36000)
        # --now is 2024-01-01T12:00:00Z
        t = 12 * 3600 - age_s
        meta["creationTimestamp"] = f"2024-01-01T{t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}Z"
        if owner == "bare":
            meta["labels"] = labels or {"app": "bare"}
        elif owner.startswith("ds-"):
            meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": owner, "uid": owner, "controller": True}]
        elif owner.startswith("job-"):
            meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": owner, "uid": owner, "controller": True}]
        else:
            meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner, "uid": owner, "controller": True}]
        if annotations:
            meta["annotations"] = annotations
        spec = {"nodeName": node, "containers": [{"name": "c", "image": image or rng.choice(IMAGES), "resources": res}]}
        if init_restarts:
            spec["initContainers"] = [{"name": "init", "image": "busybox"}]
        if prio:
            spec["priorityClassName"] = prio
        if affinity:
            spec["affinity"] = affinity
        if tolerations:
            spec["tolerations"] = tolerations
        if volumes:
            spec["volumes"] = volumes
        if node_selector:
            spec["nodeSelector"] = node_selector
        status = {"phase": phase or "Running",
                  "containerStatuses": [{"name": "c", "restartCount": restarts, "ready": True, "image": "x", "imageID": "",
                                         "state": {"waiting": {"reason": waiting}} if waiting else {"running": {}}}]}
        if init_restarts:
            status["initContainerStatuses"] = [{"name": "init", "restartCount": init_restarts, "ready": True, "image": "x", "imageID": "",
                                                "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}]
        self.docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status})
        return name

    def random_pods(self, count, owners=("rs-0", "rs-1", "rs-2"), **kw):
        rng = self.rng
        for _ in range(count):
            kind = rng.random()
            owner = rng.choice(owners)
            extra = dict(kw)
            if kind < 0.06:
                owner = "bare"
            elif kind < 0.1:
                owner = "ds-agent"
            elif kind < 0.14:
                extra.setdefault("volumes", [{"name": "scratch", "emptyDir": {}}])
            elif kind < 0.2:
                extra.setdefault("prio", "high")
            elif kind < 0.3:
                extra.setdefault("prio", "low")
            self.pod(rng.choice(self.nodes)["metadata"]["name"], owner=owner, **extra)


def evictor_args(rng):
    a = {}
    r = rng.random()
    if r < 0.15:
        a["nodeFit"] = True
    elif r < 0.25:
        a["priorityThreshold"] = {"name": "high"}
    elif r < 0.32:
        a["evictLocalStoragePods"] = True
    elif r < 0.38:
        a["minReplicas"] = 3
    elif r < 0.44:
        a["namespaceLabelSelector"] = {"matchLabels": {"tier": "prod"}}
    elif r < 0.5:
        a["labelSelector"] = {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["rs-1"]}]}
    elif r < 0.55:
        a["podProtections"] = {"defaultDisabled": ["DaemonSetPods"]}
    return a


def policy(rng, plugins, point, limits=True):
    """plugins: [(name, args)]; point: deschedule|balance per plugin."""
    configs = [{"name": "DefaultEvictor", "args": evictor_args(rng)}] + [{"name": n, "args": a} for n, a, _ in plugins]
    pl = {}
    for n, _, p in plugins:
        pl.setdefault(p, {"enabled": []})["enabled"].append(n)
    doc = {"apiVersion": "descheduler/v1alpha2", "kind": "DeschedulerPolicy",
           "profiles": [{"name": "default", "pluginConfig": configs, "plugins": pl}]}
    if limits:
        r = rng.random()
        if r < 0.15:
            doc["maxNoOfPodsToEvictPerNode"] = rng.randint(1, 2)
        elif r < 0.25:
            doc["maxNoOfPodsToEvictPerNamespace"] = rng.randint(1, 3)
        elif r < 0.35:
            doc["maxNoOfPodsToEvictTotal"] = rng.randint(1, 4)
    return doc


def nodetaints(rng):
    c = Cluster(rng)
    for node in c.nodes:
        if rng.random() < 0.5:
            node.setdefault("spec", {})["taints"] = [{"key": rng.choice(["dedicated", "gpu", "maint"]), "value": rng.choice(["", "x"]),
                                                      "effect": rng.choice(["NoSchedule", "NoSchedule", "PreferNoSchedule"])}]
    tols = [None, None, [{"key": "dedicated", "operator": "Exists"}], [{"operator": "Exists"}], [{"key": "gpu", "value": "x", "effect": "NoSchedule"}]]
    for _ in range(rng.randint(6, 16)):
        c.random_pods(1, tolerations=rng.choice(tols))
    args = {}
    if rng.random() < 0.3:
        args["includePreferNoSchedule"] = True
    if rng.random() < 0.2:
        args["excludedTaints"] = ["maint"]
    elif rng.random() < 0.2:
        args["includedTaints"] = ["dedicated", "gpu=x"]
    return c, policy(rng, [("RemovePodsViolatingNodeTaints", args, "deschedule")], "deschedule")


def nodeaffinity(rng):
    c = Cluster(rng)
    for node in c.nodes:
        node["metadata"]["labels"]["disk"] = rng.choice(["ssd", "hdd"])
    req = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}]}}}
    pref = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 50, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}}
    for _ in range(rng.randint(6, 16)):
        c.random_pods(1, affinity=rng.choice([None, req, req, pref]))
    types = rng.choice([["requiredDuringSchedulingIgnoredDuringExecution"], ["preferredDuringSchedulingIgnoredDuringExecution"],
                        ["requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"]])
    return c, policy(rng, [("RemovePodsViolatingNodeAffinity", {"nodeAffinityType": types}, "deschedule")], "deschedule")


def antiaffinity(rng):
    c = Cluster(rng)
    for _ in range(rng.randint(6, 16)):
        app = rng.choice(["web", "db", "cache"])
        aff = None
        if rng.random() < 0.5:
            aff = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": rng.choice(["web", "db", "cache"])}}, "topologyKey": rng.choice(["kubernetes.io/hostname", "topology.kubernetes.io/zone"])}]}}
        c.random_pods(1, labels={"app": app}, affinity=aff)
    return c, policy(rng, [("RemovePodsViolatingInterPodAntiAffinity", {}, "deschedule")], "deschedule")


def restarts(rng):
    c = Cluster(rng)
    for _ in range(rng.randint(6, 16)):
        r = rng.choice([0, 1, 3, 5, 10, 20, 50, 100])
        c.random_pods(1, restarts=r, init_restarts=rng.choice([0, 0, 2, 8]), waiting=rng.choice([None, None, "CrashLoopBackOff"]))
    args = {"podRestartThreshold": rng.choice([3, 5, 10, 20])}
    if rng.random() < 0.4:
        args["includingInitContainers"] = True
    if rng.random() < 0.3:
        args["states"] = [rng.choice(["Running", "CrashLoopBackOff"])]
    return c, policy(rng, [("RemovePodsHavingTooManyRestarts", args, "deschedule")], "deschedule")


def lifetime(rng):
    c = Cluster(rng)
    used = set()
    for _ in range(rng.randint(6, 16)):
        age = rng.randint(60, 36000)
        while age in used:
            age += 1
        used.add(age)
        c.random_pods(1, age_s=age, owners=("rs-0", "rs-1", "job-a"), waiting=rng.choice([None, None, "ImagePullBackOff"]))
    args = {"maxPodLifeTimeSeconds": rng.choice([600, 3600, 7200, 18000])}
    if rng.random() < 0.3:
        args["states"] = rng.choice([["Running"], ["ImagePullBackOff"], ["Pending", "ImagePullBackOff"]])
    if rng.random() < 0.2:
        args["ownerKinds"] = rng.choice([{"include": ["Job"]}, {"exclude": ["Job"]}])
    return c, policy(rng, [("PodLifeTime", args, "deschedule")], "deschedule")


def duplicates(rng):
    c = Cluster(rng)
    for node in c.nodes:
        if rng.random() < 0.25:
            node.setdefault("spec", {})["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    for _ in range(rng.randint(6, 18)):
        owner = rng.choice(["rs-0", "rs-0", "rs-1", "rs-2"])
        node = rng.choice(c.nodes[: max(2, len(c.nodes) // 2)])["metadata"]["name"]
        c.pod(node, owner=owner, image={"rs-0": "nginx:1.27", "rs-1": "redis:7", "rs-2": rng.choice(["app:v1", "app:v2"])}[owner])
    args = {}
    if rng.random() < 0.2:
        args["excludeOwnerKinds"] = ["ReplicaSet"]
    return c, policy(rng, [("RemoveDuplicates", args, "balance")], "balance")


def utilization_cluster(rng):
    c = Cluster(rng)
    # Load a few nodes heavily, leave others light.
    heavy = rng.sample(c.nodes, rng.randint(1, max(1, len(c.nodes) // 2)))
    for node in c.nodes:
        n = rng.randint(4, 10) if node in heavy else rng.randint(0, 2)
        for _ in range(n):
            owner = rng.choice(["rs-0", "rs-1", "rs-2"])
            prio = rng.choice([None, None, "low", "high"])
            c.pod(node["metadata"]["name"], owner=owner, prio=prio, cpu=rng.choice(["250m", "500m"]), mem=rng.choice(["256Mi", "512Mi"]))
    return c


def lownode(rng):
    c = utilization_cluster(rng)
    res = rng.choice([["cpu"], ["cpu", "memory"], ["cpu", "memory", "pods"], ["memory"]])
    if rng.random() < 0.25:
        low = {r: rng.choice([5, 10, 15]) for r in res}
        high = {r: rng.choice([5, 10, 20]) for r in res}
        args = {"useDeviationThresholds": True, "thresholds": low, "targetThresholds": high}
    else:
        low = {r: rng.choice([10, 20, 30]) for r in res}
        high = {r: low[r] + rng.choice([10, 20, 30]) for r in res}
        args = {"thresholds": low, "targetThresholds": high}
    if rng.random() < 0.15:
        args["evictionLimits"] = {"node": 1}
    return c, policy(rng, [("LowNodeUtilization", args, "balance")], "balance")


def highnode(rng):
    c = utilization_cluster(rng)
    res = rng.choice([["cpu"], ["cpu", "memory"], ["memory"]])
    args = {"thresholds": {r: rng.choice([10, 20, 40]) for r in res}}
    return c, policy(rng, [("HighNodeUtilization", args, "balance")], "balance")


def mixed(rng):
    c = utilization_cluster(rng)
    for node in c.nodes:
        if rng.random() < 0.3:
            node.setdefault("spec", {})["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    if rng.random() < 0.5:
        c.docs.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "rs-0", "namespace": "default"},
                       "spec": {"minAvailable": rng.randint(1, 3), "selector": {"matchLabels": {"app": "rs-0"}}}})
    plugins = [("RemovePodsViolatingNodeTaints", {}, "deschedule"),
               ("RemovePodsHavingTooManyRestarts", {"podRestartThreshold": 1}, "deschedule"),
               ("LowNodeUtilization", {"thresholds": {"cpu": 20}, "targetThresholds": {"cpu": 50}}, "balance"),
               ("RemoveDuplicates", {}, "balance")]
    chosen = [p for p in plugins if rng.random() < 0.6] or plugins[:1]
    return c, policy(rng, chosen, "")


def spread(rng):
    c = Cluster(rng, nodes=rng.randint(3, 6))
    for node in c.nodes:
        if rng.random() < 0.2:
            node.setdefault("spec", {})["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
        node["metadata"]["labels"]["disk"] = rng.choice(["ssd", "hdd"])
    crowded = rng.sample(c.nodes, rng.randint(1, 2))
    for _ in range(rng.randint(5, 14)):
        app = rng.choice(["web", "web", "db"])
        key = rng.choice(["topology.kubernetes.io/zone", "kubernetes.io/hostname"])
        tsc = {"maxSkew": rng.choice([1, 1, 2]), "topologyKey": key,
               "whenUnsatisfiable": rng.choice(["DoNotSchedule", "DoNotSchedule", "ScheduleAnyway"]),
               "labelSelector": {"matchLabels": {"app": app}}}
        r = rng.random()
        if r < 0.15:
            tsc["nodeTaintsPolicy"] = "Honor"
        elif r < 0.3:
            tsc["nodeAffinityPolicy"] = "Ignore"
        node = rng.choice(crowded if rng.random() < 0.8 else c.nodes)["metadata"]["name"]
        sel = {"disk": "ssd"} if rng.random() < 0.15 else None
        c.pod(node, owner=f"rs-{app}", labels={"app": app}, prio=rng.choice([None, None, "low", "high"]),
              node_selector=sel, **({"affinity": None}))
        c.docs[-1]["spec"]["topologySpreadConstraints"] = [tsc]
    args = {}
    if rng.random() < 0.3:
        args["constraints"] = ["DoNotSchedule", "ScheduleAnyway"]
    if rng.random() < 0.25:
        args["topologyBalanceNodeFit"] = False
    return c, policy(rng, [("RemovePodsViolatingTopologySpreadConstraint", args, "balance")], "balance")


STRATEGIES = {"nodetaints": nodetaints, "nodeaffinity": nodeaffinity, "antiaffinity": antiaffinity, "restarts": restarts,
              "lifetime": lifetime, "duplicates": duplicates, "lownode": lownode, "highnode": highnode, "mixed": mixed,
              "spread": spread}


def main():
    OUT.mkdir(exist_ok=True)
    for name, make in STRATEGIES.items():
        rng = random.Random(f"berth-deschedule-{name}")
        for i in range(PER):
            c, pol = make(rng)
            (OUT / f"{name}-{i:02d}.yaml").write_text(dump(c.docs))
            (OUT / f"{name}-{i:02d}.policy.yaml").write_text(dump([pol]))


if __name__ == "__main__":
    main()
