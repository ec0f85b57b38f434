#!/usr/bin/env python3
"""Queues and quotas (Kueue's model) example on Berth's Python client.

Two teams share a cohort of two ClusterQueues of 4 cpu each. Team A
submits eight 1-cpu pods: four fit its own quota and four borrow team B's
unused quota, so all eight are admitted and bound. Team B then submits two
pods: its ClusterQueue reclaims its nominal quota (reclaimWithinCohort:
Any), so Berth evicts two of team A's pods with cause QUOTA; the example
deletes them, as an orchestrator would once they stopped, and team B's pods
are admitted and bound. Exits 0 when all of that happened. It uses
apply/delete (no session, no re-list), so other orchestrators' objects are
left alone.

    python3 clients/python/examples/batch.py --server 127.0.0.1:7070
"""

import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client import Client, HandlerError, MemoryCheckpoint  # noqa: E402
from berth_client.v1 import (decision_pb2, namespace_pb2, node_pb2, object_pb2, pod_pb2,  # noqa: E402
                             queueing_pb2, selector_pb2)

PREFIX = "batch-py-"  # of every object's name or namespace
QUEUE = "jobs"  # each team's LocalQueue
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


class Done(Exception):
    """Team B reclaimed its quota: stops the watcher."""


class Fleet:
    """Plays the orchestrator (on the watcher's thread): confirms binds and
    deletes evicted pods."""

    def __init__(self, client, run):
        self.client, self.run = client, run
        self.bound, self.evicted, self.team_b = {}, set(), False

    def handle(self, d):
        kind = d.WhichOneof("action")
        if kind == "admit":
            if d.admit.workload_namespace.startswith(PREFIX):
                print("rev %d: admit %s/%s to %s" % (d.revision, d.admit.workload_namespace, d.admit.workload_name,
                                                      d.admit.cluster_queue), flush=True)
            return
        if kind == "evict_workload":
            w = d.evict_workload
            if w.workload_namespace.startswith(PREFIX):
                print("rev %d: workload %s/%s loses its quota (%s): %s" % (d.revision, w.workload_namespace, w.workload_name,
                                                                           w.reason, w.message), flush=True)
            return
        if not d.pod.uid.startswith(self.run + "-"):
            return
        key = "%s/%s" % (d.pod.namespace, d.pod.name)
        if kind == "bind":
            print("rev %d: bind %s to %s" % (d.revision, key, d.bind.node), flush=True)
            self.client.confirm_bind(d)
            self.on_bound(key, d.bind.node)
        elif kind == "evict":
            if d.evict.cause != decision_pb2.EVICT_CAUSE_QUOTA:
                raise RuntimeError("%s evicted for %s, want cause QUOTA" % (key, decision_pb2.EvictCause.Name(d.evict.cause)))
            print("rev %d: evict %s (quota): %s" % (d.revision, key, d.evict.reason), flush=True)
            self.bound.pop(key, None)
            self.evicted.add(key)
            # The pod stops at once (it runs nothing): delete it from Berth.
            self.client.delete([object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_POD, namespace=d.pod.namespace,
                                                     name=d.pod.name, uid=d.pod.uid)])

    def on_bound(self, key, node):
        """Moves the story on: once team A's eight pods run, team B submits
        its two; once those run after two of team A's were evicted, done."""
        self.bound[key] = node
        a = sum(1 for k in self.bound if k.startswith(PREFIX + "a/"))
        b = len(self.bound) - a
        if a == 8 and not self.team_b:
            self.team_b = True
            print("team A runs 8 pods on 8 cpu (4 of them borrowed); team B submits 2", flush=True)
            self.client.apply([pod(self.run, "b", i) for i in range(2)])
        elif b == 2:
            if len(self.evicted) != 2 or a != 6:
                raise RuntimeError("team B runs 2 pods, team A %d with %d evicted; want 6 and 2" % (a, len(self.evicted)))
            raise Done()


def node(name):
    return object_pb2.Object(node=node_pb2.Node(
        name=PREFIX + name, labels={"kubernetes.io/hostname": PREFIX + name, "pool": PREFIX + "batch"},
        allocatable={"cpu": 4000, "memory": 16 << 30, "pods": 110}))


def queues():
    """The flavor (the example's nodes), each team's namespace, ClusterQueue
    of 4 cpu in one cohort (it may borrow what the other does not use and
    takes its own back) and LocalQueue."""
    objs = [object_pb2.Object(resource_flavor=queueing_pb2.ResourceFlavor(
        name=PREFIX + "nodes", node_labels={"pool": PREFIX + "batch"}))]
    for team in ("a", "b"):
        objs.append(object_pb2.Object(namespace=namespace_pb2.Namespace(name=PREFIX + team)))
        objs.append(object_pb2.Object(cluster_queue=queueing_pb2.ClusterQueue(
            name=PREFIX + team, cohort=PREFIX + "teams",
            # An empty selector admits every namespace; none would admit none.
            namespace_selector=selector_pb2.LabelSelector(),
            resource_groups=[queueing_pb2.ResourceGroup(covered_resources=["cpu"], flavors=[queueing_pb2.FlavorQuotas(
                name=PREFIX + "nodes", resources=[queueing_pb2.ResourceQuota(name="cpu", nominal_quota=4000)])])],
            preemption=queueing_pb2.ClusterQueuePreemption(
                reclaim_within_cohort=queueing_pb2.QUEUE_PREEMPTION_POLICY_ANY,
                within_cluster_queue=queueing_pb2.QUEUE_PREEMPTION_POLICY_LOWER_PRIORITY))))
        objs.append(object_pb2.Object(local_queue=queueing_pb2.LocalQueue(
            namespace=PREFIX + team, name=QUEUE, cluster_queue=PREFIX + team)))
    return objs


def pod(run, team, i):
    """A one-pod workload of a team's queue: 1 cpu. It requests only what the
    ClusterQueues cover: Kueue refuses a workload asking for a resource its
    ClusterQueue has no quota of."""
    name = "job-%d" % i
    return object_pb2.Object(pod=pod_pb2.Pod(
        uid="%s-%s-%s" % (run, team, name), namespace=PREFIX + team, name=name, priority=0,
        labels={QUEUE_LABEL: QUEUE},
        containers=[pod_pb2.Container(name="main", requests={"cpu": 1000})]))


def ref(kind, name, namespace=""):
    return object_pb2.ObjectRef(kind=kind, namespace=namespace, name=name)


def cleanup(client):
    refs = []
    for team in ("a", "b"):
        refs += [ref(object_pb2.OBJECT_KIND_POD, "job-%d" % i, PREFIX + team) for i in range(8)]
        refs += [ref(object_pb2.OBJECT_KIND_LOCAL_QUEUE, QUEUE, PREFIX + team), ref(object_pb2.OBJECT_KIND_CLUSTER_QUEUE, PREFIX + team)]
    refs += [ref(object_pb2.OBJECT_KIND_RESOURCE_FLAVOR, PREFIX + "nodes"),
             ref(object_pb2.OBJECT_KIND_NODE, PREFIX + "n1"), ref(object_pb2.OBJECT_KIND_NODE, PREFIX + "n2")]
    for r in refs:  # one by one: a pod already gone must not keep the rest
        try:
            client.delete([r])
        except Exception:
            pass  # NOT_FOUND for objects already gone


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default=os.environ.get("BERTH_SERVER", "127.0.0.1:7070"))
    ap.add_argument("--token", default=os.environ.get("BERTH_TOKEN"))
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()

    client = Client(args.server, token=args.token)
    run = "%s%x" % (PREFIX, time.time_ns())
    fleet = Fleet(client, run)
    watcher = client.watcher(MemoryCheckpoint(), fleet.handle, start_at=1, on_compacted=lambda ce: ce.oldest)
    outcome = [None]

    def watch():
        try:
            watcher.run()
        except HandlerError as e:
            outcome[0] = e.error
        except BaseException as e:
            outcome[0] = e

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        # The queues before the pods: a pod naming a LocalQueue Berth does
        # not know waits, as in Kueue, until the queue exists.
        client.apply([node("n1"), node("n2")] + queues())
        client.apply([pod(run, "a", i) for i in range(8)])
        t.join(timeout=args.timeout)
        if t.is_alive():
            raise RuntimeError("timed out")
        if not isinstance(outcome[0], Done):
            raise RuntimeError("the watch ended: %r" % outcome[0])
    except Exception as e:
        print("batch (python): FAILED: %s" % e, file=sys.stderr)
        return 1
    finally:
        watcher.stop()
        cleanup(client)
        client.close()
    print("batch (python): OK, team A borrowed, team B reclaimed its quota by preemption")
    return 0


if __name__ == "__main__":
    sys.exit(main())
