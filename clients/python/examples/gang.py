#!/usr/bin/env python3
"""Gang scheduling example on Berth's Python client.

Registers two nodes with room for one group of four pods, submits two such
groups (PodGroup objects, pods naming them with scheduling_group), confirms
the binds of the group Berth places (all four in one commit, each Bind naming
its group), ends that group's job (deletes its pods) and waits for the other
group to be placed in turn. Exits 0 when both groups ran one after the other;
fails if a group is ever partly bound. It uses apply/delete (no session, no
re-list), so other orchestrators' objects are left alone.

    python3 clients/python/examples/gang.py --server 127.0.0.1:7070
"""

import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client import Client, HandlerError, MemoryCheckpoint  # noqa: E402
from berth_client.v1 import group_pb2, node_pb2, object_pb2, pod_pb2  # noqa: E402

NAMESPACE = "gang-py"
NODES = ("gang-py-n1", "gang-py-n2")
MEMBERS = 4


class Done(Exception):
    """Both groups ran: stops the watcher."""


class Groups:
    """Follows the binds of the two groups (on the watcher's thread)."""

    def __init__(self, client, run):
        self.client, self.run = client, run
        self.bound = {}  # group -> {pod: node}
        self.first = None

    def handle(self, d):
        if not d.pod.uid.startswith(self.run + "-"):
            return
        kind = d.WhichOneof("action")
        if kind == "unschedulable":
            print("%s waits: %s" % (d.pod.name, d.unschedulable.message), flush=True)
        if kind != "bind":
            return
        self.bound.setdefault(d.bind.group, {})[d.pod.name] = d.bind.node
        self.client.confirm_bind(d)
        pods = self.bound[d.bind.group]
        if len(pods) < MEMBERS:
            return
        print("group %s bound: %s" % (d.bind.group, sorted(pods.items())), flush=True)
        if self.first is not None:
            raise Done()
        self.first = d.bind.group
        partial = {g: p for g, p in self.bound.items() if g != d.bind.group and p}
        if partial:
            raise RuntimeError("partly bound while %s ran: %s" % (d.bind.group, partial))
        print("group %s's job ends: deleting its pods" % d.bind.group, flush=True)
        self.client.delete([object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_POD, namespace=NAMESPACE, name=n) for n in pods])


def node(name):
    return object_pb2.Object(node=node_pb2.Node(
        name=name, labels={"kubernetes.io/hostname": name},
        allocatable={"cpu": 4000, "memory": 16 << 30, "pods": 110}))


def group(name):
    return object_pb2.Object(pod_group=group_pb2.PodGroup(namespace=NAMESPACE, name=name, min_count=MEMBERS))


def pod(run, g, i):
    # 2 cpu: a 4-cpu node takes two members.
    return object_pb2.Object(pod=pod_pb2.Pod(
        uid="%s-%s-%d" % (run, g, i), namespace=NAMESPACE, name="%s-%d" % (g, i), scheduling_group=g,
        containers=[pod_pb2.Container(name="main", requests={"cpu": 2000, "memory": 1 << 30})]))


def cleanup(client):
    refs = [object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_POD, namespace=NAMESPACE, name="%s-%d" % (g, i))
            for g in "ab" for i in range(MEMBERS)]
    refs += [object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_POD_GROUP, namespace=NAMESPACE, name=g) for g in "ab"]
    refs += [object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_NODE, name=n) for n in NODES]
    try:
        client.delete(refs)
    except Exception:
        pass  # NOT_FOUND for the pods already deleted


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default=os.environ.get("BERTH_SERVER", "127.0.0.1:7070"))
    ap.add_argument("--token", default=os.environ.get("BERTH_TOKEN"))
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()

    client = Client(args.server, token=args.token)
    run = "%s-%x" % (NAMESPACE, time.time_ns())
    groups = Groups(client, run)
    # The whole log, so no decision is missed; this run's pods by uid.
    watcher = client.watcher(MemoryCheckpoint(), groups.handle, start_at=1, on_compacted=lambda ce: ce.oldest)
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
        objs = [node(n) for n in NODES] + [group("a"), group("b")]
        objs += [pod(run, g, i) for i in range(MEMBERS) for g in "ab"]
        client.apply(objs)
        t.join(timeout=args.timeout)
        if t.is_alive():
            raise RuntimeError("timed out; bound so far: %s" % groups.bound)
        if not isinstance(outcome[0], Done):
            raise RuntimeError("the watch ended: %r" % outcome[0])
    except Exception as e:
        print("gang (python): FAILED: %s" % e, file=sys.stderr)
        return 1
    finally:
        watcher.stop()
        cleanup(client)
        client.close()
    print("gang (python): OK, both groups ran, one after the other")
    return 0


if __name__ == "__main__":
    sys.exit(main())
