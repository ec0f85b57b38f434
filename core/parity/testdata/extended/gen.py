#!/usr/bin/env python3
"""Extended random cluster generator: gen.py SEED OUTFILE
Emits multi-document YAML (JSON docs) exercising more features than core/parity."""
import json, random, sys, os
OFF=set(os.environ.get("OFF","").split(","))

seed = int(sys.argv[1]); out = sys.argv[2]
r = random.Random(seed)
ch = lambda p: r.random() < p
pick = r.choice
docs = []
ZONES = ["zone-a", "zone-b", "zone-c", "zone-d"]
APPS = ["web", "api", "cache", "db", "batch"]
NS = ["default", "team-a", "team-b"]
EXT = "example.com/gpu"

def q_cpu(m):
    f = pick(["m", "plain"])
    if f == "plain" and m % 1000 == 0: return str(m // 1000)
    if f == "plain" and m % 500 == 0: return str(m / 1000)
    return f"{m}m"

def q_mem(mi):
    f = pick(["Mi", "Mi", "M", "bytes"])
    if f == "Mi": return f"{mi}Mi"
    if f == "M": return f"{mi}M"
    return str(mi * 1024 * 1024)

# ---------- config variant
variant = seed % 12
nnodes = r.choice([3, 5, 8, 12, 20, 30]) if variant not in (9, 10) else r.choice([60, 120, 150])
cfg = None
def plugin_cfg(name, args):
    return {"name": name, "args": args}
if variant == 1:
    res = [{"name": "cpu", "weight": r.randint(1, 3)}, {"name": "memory", "weight": r.randint(1, 3)}]
    if ch(0.5): res.append({"name": EXT, "weight": r.randint(1, 5)})
    cfg = {"pluginConfig": [plugin_cfg("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated", "resources": res}})]}
elif variant == 2:
    shape = pick([[{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}],
                  [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}],
                  [{"utilization": 0, "score": 2}, {"utilization": 40, "score": 9}, {"utilization": 80, "score": 3}, {"utilization": 100, "score": 0}]])
    res = [{"name": "cpu", "weight": r.randint(1, 3)}, {"name": "memory", "weight": 1}]
    if ch(0.5): res.append({"name": EXT, "weight": 2})
    cfg = {"pluginConfig": [plugin_cfg("NodeResourcesFit", {"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": res, "requestedToCapacityRatio": {"shape": shape}}})]}
elif variant == 3:
    aa = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a", "zone-b", "zone-c"]}]}]},
          "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 30, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}
    cfg = {"pluginConfig": [plugin_cfg("NodeAffinity", {"addedAffinity": aa})]}
elif variant == 4:
    # weights + disabled scorers
    cfg = {"plugins": {"multiPoint": {"enabled": [{"name": "TaintToleration", "weight": 7}, {"name": "PodTopologySpread", "weight": 5}, {"name": "NodeResourcesFit", "weight": 3}]},
                       "score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}}}
elif variant == 5:
    cfg = {"pluginConfig": [plugin_cfg("InterPodAffinity", {"hardPodAffinityWeight": r.choice([0, 5, 100]), "ignorePreferredTermsOfExistingPods": ch(0.5)})]}
elif variant == 6:
    cfg = {"pluginConfig": [plugin_cfg("NodeResourcesBalancedAllocation", {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]}),
                            plugin_cfg("NodeResourcesFit", {"ignoredResources": [EXT] if ch(0.3) else [], "scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 3}]}})]}
elif variant == 7:
    cfg = {"pluginConfig": [plugin_cfg("PodTopologySpread", {"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}]})]}
elif variant == 8:
    cfg = {"plugins": {"filter": {"disabled": [{"name": "TaintToleration"}]}, "score": {"disabled": [{"name": "ImageLocality"}, {"name": "InterPodAffinity"}]}}}
elif variant in (9, 10):
    pct = r.choice([1, 5, 10, 30, 50])
    cfg = {"percentageOfNodesToScore": pct} if variant == 9 else {"profile_pct": pct}

prof = {"schedulerName": "default-scheduler"}
kc = None
if cfg is not None:
    kc = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    if "percentageOfNodesToScore" in cfg:
        kc["percentageOfNodesToScore"] = cfg["percentageOfNodesToScore"]
    elif "profile_pct" in cfg:
        prof["percentageOfNodesToScore"] = cfg["profile_pct"]
    else:
        prof.update(cfg)
    prof2 = None
    if variant == 1 and ch(0.5):
        prof2 = {"schedulerName": "binpack", "pluginConfig": [plugin_cfg("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated"}})]}
    kc["profiles"] = [prof] + ([prof2] if prof2 else [])
    docs.append(kc)
sched_names = [p["schedulerName"] for p in (kc["profiles"] if kc else [prof])]

# ---------- namespaces
docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"team": "a", "env": "prod"}}})
docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-b", "labels": {"team": "b", "env": "dev"}}})

# ---------- priority classes
preempt = ch(0.45)
pcs = ["low", "mid", "high", "high-never"]
if preempt:
    for name, val, never in [("low", 100, False), ("mid", 1000, False), ("high", 10000, False), ("high-never", 10000, True)]:
        d = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": val}
        if never: d["preemptionPolicy"] = "Never"
        if name == "low" and ch(0.3): d["globalDefault"] = True
        docs.append(d)

# ---------- nodes
nodes = []
for i in range(nnodes):
    name = f"n{i:03d}"
    nodes.append(name)
    cpu = pick([1000, 2000, 3500, 4000, 8000, 16000, 32000])
    mem = (cpu // 1000 or 1) * pick([1024, 2048, 4096, 8192])
    labels = {"kubernetes.io/hostname": name, "disk": pick(["ssd", "hdd"]), "rack": f"r{r.randint(0, 5)}", "cores": str(cpu // 1000)}
    if not ch(0.08): labels["topology.kubernetes.io/zone"] = pick(ZONES[:3] if ch(0.8) else ZONES)
    if ch(0.5): labels["topology.kubernetes.io/region"] = pick(["eu", "us"])
    n = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": {}, "status": {}}
    taints = []
    if ch(0.12): taints.append({"key": "dedicated", "value": pick(["gpu", "infra"]), "effect": "NoSchedule"})
    if ch(0.2): taints.append({"key": "spot", "value": "true", "effect": "PreferNoSchedule"})
    if ch(0.08): taints.append({"key": "maint", "effect": "NoExecute"})
    if ch(0.06): taints.append({"key": "flaky", "value": "", "effect": "PreferNoSchedule"})
    if taints: n["spec"]["taints"] = taints
    if ch(0.06):
        n["spec"]["unschedulable"] = True
    rl = {"cpu": q_cpu(cpu), "memory": q_mem(mem), "pods": str(r.randint(4, 110))}
    if ch(0.25): rl[EXT] = str(r.randint(1, 4))
    if ch(0.3): rl["ephemeral-storage"] = f"{r.randint(10, 100)}Gi"
    if ch(0.15):
        n["status"]["capacity"] = rl
    else:
        cap = dict(rl)
        n["status"]["capacity"] = cap
        n["status"]["allocatable"] = rl
    docs.append(n)

t = [0]
def ts():
    t[0] += 1
    return f"2025-06-01T00:{t[0] // 60:02d}:{t[0] % 60:02d}Z"

def sel(app, expr=False):
    if expr or ch(0.2):
        return {"matchExpressions": [{"key": "app", "operator": "In", "values": [app] + ([pick(APPS)] if ch(0.3) else [])}]}
    return {"matchLabels": {"app": app}}

def aterm(app, own_ns):
    tk = pick(["kubernetes.io/hostname", "topology.kubernetes.io/zone", "topology.kubernetes.io/zone", "rack"])
    t = {"topologyKey": tk, "labelSelector": sel(app)}
    x = r.random()
    if x < 0.12: t["namespaces"] = [pick(NS)] + ([pick(NS)] if ch(0.3) else [])
    elif x < 0.22: t["namespaceSelector"] = pick([{}, {"matchLabels": {"team": "a"}}, {"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]}]},
                                                {"matchLabels": {"kubernetes.io/metadata.name": "default"}}])
    if ch(0.1) and "mlk" not in OFF: t["matchLabelKeys"] = ["version"]
    if ch(0.05) and "mlk" not in OFF: t["mismatchLabelKeys"] = ["tier"]
    return t

def resources(req_scale=1.0):
    req = {}
    lim = {}
    if not ch(0.1):
        req["cpu"] = q_cpu(int(50 * r.randint(1, 40) * req_scale))
        req["memory"] = q_mem(64 * r.randint(1, 40))
    if ch(0.07): req[EXT] = str(r.randint(1, 2))
    if ch(0.1): req["ephemeral-storage"] = f"{r.randint(1, 20)}Gi"
    if ch(0.1):  # limits only for some resource -> defaulting
        lim["cpu"] = q_cpu(int(100 * r.randint(1, 20)))
        req.pop("cpu", None)
    out = {}
    if req: out["requests"] = req
    if lim: out["limits"] = lim
    return out

def pod(name, node, running):
    app = pick(APPS)
    ns = pick(NS) if ch(0.35) else "default"
    labels = {"app": app}
    if ch(0.4): labels["tier"] = pick(["front", "back"])
    if ch(0.5): labels["version"] = pick(["v1", "v2"])
    meta = {"name": name, "namespace": ns, "labels": labels, "creationTimestamp": ts()}
    spec = {}
    c = {"name": "app", "image": "pause", "resources": resources(1.0 if not (preempt and running) else 3.0)}
    if ch(0.08):
        port = {"containerPort": 80, "hostPort": 8080 + r.randint(0, 1)}
        if ch(0.3): port["protocol"] = pick(["UDP", "TCP"])
        if ch(0.2): port["hostIP"] = pick(["10.0.0.1", "0.0.0.0", "127.0.0.1"])
        c["ports"] = [port]
    spec["containers"] = [c]
    if ch(0.1):
        spec["containers"].append({"name": "c2", "image": "pause", "resources": {"requests": {"cpu": q_cpu(100 * r.randint(1, 5))}}})
    if ch(0.15):
        inits = []
        if ch(0.5):
            inits.append({"name": "init", "image": "pause", "resources": {"requests": {"cpu": q_cpu(500 * r.randint(1, 8)), "memory": q_mem(128)}}})
        if ch(0.6):
            inits.append({"name": "side", "image": "pause", "restartPolicy": "Always", "resources": {"requests": {"cpu": q_cpu(100 * r.randint(1, 4))}}})
        if ch(0.3):
            inits.append({"name": "init2", "image": "pause", "resources": {"requests": {"cpu": q_cpu(300 * r.randint(1, 8))}}})
        if inits: spec["initContainers"] = inits
    if ch(0.06):
        spec["overhead"] = {"cpu": q_cpu(pick([50, 100, 250])), "memory": q_mem(pick([32, 120]))}
    if len(sched_names) > 1 and ch(0.3):
        spec["schedulerName"] = pick(sched_names)
    if preempt:
        spec["priorityClassName"] = pick(["low", "low", "mid", "high"]) if running else pick(["low", "mid", "high", "high", "high-never"])
        if ch(0.1) and not running:
            del spec["priorityClassName"]
    elif ch(0.15):
        spec["priority"] = r.randint(0, 3) * 100
    status = {}
    if running:
        spec["nodeName"] = node
        status = {"phase": "Running", "startTime": meta["creationTimestamp"]}
        if ch(0.05): status["conditions"] = [{"type": "Ready", "status": "False"}]
    # constraints (running pods get some too: existing anti-affinity / preferred terms)
    aff = {}
    if not running or ch(0.3):
        if ch(0.12) and not running:
            spec["nodeSelector"] = {"disk": pick(["ssd", "hdd"])}
        tol = []
        if ch(0.25): tol.append({"key": "dedicated", "operator": "Equal", "value": pick(["gpu", "infra"]), "effect": "NoSchedule"})
        if ch(0.1): tol.append({"key": "spot", "operator": "Exists"})
        if ch(0.05): tol.append({"key": "maint", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60})
        if ch(0.04): tol.append({"operator": "Exists"})
        if ch(0.04): tol.append({"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"})
        if ch(0.05): tol.append({"key": "flaky", "operator": "Exists", "effect": "PreferNoSchedule"})
        if tol: spec["tolerations"] = tol
        if ch(0.22) and not running:
            na = {}
            if ch(0.5):
                terms = [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": pick(["In", "NotIn"]), "values": [pick(ZONES)]}]}]
                if ch(0.5): terms.append({"matchExpressions": [{"key": "rack", "operator": pick(["Exists", "DoesNotExist"])}]})
                if ch(0.3): terms.append({"matchFields": [{"key": "metadata.name", "operator": "In", "values": [pick(nodes)]}]})
                na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
            na["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": r.randint(1, 100), "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}},
                {"weight": r.randint(1, 100), "preference": {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": [pick(ZONES)]}]}}]
            if ch(0.3):
                na["preferredDuringSchedulingIgnoredDuringExecution"].append({"weight": r.randint(1, 100), "preference": {"matchExpressions": [{"key": "cores", "operator": pick(["Gt", "Lt"]), "values": [pick(["2", "4", "8"])]}]}})
            aff["nodeAffinity"] = na
        if ch(0.2):
            pa = {}
            if ch(0.5): pa["requiredDuringSchedulingIgnoredDuringExecution"] = [aterm(pick([app, pick(APPS)]), ns)]
            if ch(0.6): pa["preferredDuringSchedulingIgnoredDuringExecution"] = [{"weight": r.randint(1, 100), "podAffinityTerm": aterm(pick(APPS), ns)}]
            if pa: aff["podAntiAffinity"] = pa
        if ch(0.18):
            pa = {}
            if ch(0.4) and not running: pa["requiredDuringSchedulingIgnoredDuringExecution"] = [aterm(pick(APPS), ns)]
            if ch(0.6): pa["preferredDuringSchedulingIgnoredDuringExecution"] = [{"weight": r.randint(1, 100), "podAffinityTerm": aterm(pick(APPS), ns)}]
            if pa: aff["podAffinity"] = pa
        if aff: spec["affinity"] = aff
        if ch(0.25) and not running:
            cs = []
            for _ in range(r.choice([1, 1, 2])):
                when = pick(["DoNotSchedule", "ScheduleAnyway"])
                c = {"maxSkew": r.randint(1, 3), "topologyKey": pick(["kubernetes.io/hostname", "topology.kubernetes.io/zone", "rack", "topology.kubernetes.io/region"]),
                     "whenUnsatisfiable": when, "labelSelector": sel(app)}
                if when == "DoNotSchedule" and ch(0.25): c["minDomains"] = r.randint(1, 6)
                if ch(0.2): c["nodeAffinityPolicy"] = pick(["Honor", "Ignore"])
                if ch(0.25): c["nodeTaintsPolicy"] = pick(["Honor", "Ignore"])
                if ch(0.2): c["matchLabelKeys"] = pick([["version"], ["tier"], ["version", "tier"]])
                if any(x["topologyKey"] == c["topologyKey"] and x["whenUnsatisfiable"] == when for x in cs): continue
                cs.append(c)
            spec["topologySpreadConstraints"] = cs
        if ch(0.04) and not running:
            spec["schedulingGates"] = [{"name": "example.com/hold"}]
    if not running and preempt and ch(0.05):
        spec["preemptionPolicy"] = "Never"
        spec.pop("priorityClassName", None)
        spec["priority"] = 5000
    d = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if status: d["status"] = status
    return d

nrun = r.randint(0, nnodes * 3)
running = [pod(f"run-{i}", pick(nodes), True) for i in range(nrun)]
docs.extend(running)
if preempt:
    for app in APPS[:3]:
        pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": app + "-pdb", "namespace": "default"},
               "spec": {"selector": {"matchLabels": {"app": app}}}}
        if ch(0.5): pdb["spec"]["minAvailable"] = pick([1, 2, 3, "50%"])
        else: pdb["spec"]["maxUnavailable"] = pick([0, 1, "30%"])
        docs.append(pdb)
npend = r.randint(10, 40)
pend = [pod(f"pend-{i}", "", False) for i in range(npend)]
# a few pending pods with a stale nominatedNodeName
for p in pend:
    if ch(0.04):
        p["status"] = {"nominatedNodeName": pick(nodes)}
docs.extend(pend)
with open(out, "w") as f:
    for d in docs:
        f.write("---\n" + json.dumps(d, indent=None) + "\n")
