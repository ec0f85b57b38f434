#!/usr/bin/env python3
"""Persistent storage example on Berth's Python client.

Registers two nodes, each with a local volume (10 GiB on n1, 20 GiB on n2)
of a WaitForFirstConsumer class, and a claim of 15 GiB. Submits a pod using
the claim and reads, from the pod's Bind, the volume Berth chose for the
claim (the only one big enough, on n2); then does the volume controller's
part (sends the volume bound to the claim and the claim bound to the
volume) and confirms the bind. A second pod sharing the claim must go to the
same node. Exits 0 when all of that happened. It uses apply/delete (no
session, no re-list), so other orchestrators' objects are left alone.

    python3 clients/python/examples/volumes.py --server 127.0.0.1:7070
"""

import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client import Client, HandlerError, MemoryCheckpoint  # noqa: E402
from berth_client.v1 import node_pb2, object_pb2, pod_pb2, selector_pb2, volume_pb2  # noqa: E402

NAMESPACE = "volumes-py"
PREFIX = "volumes-py-"  # of the cluster-scoped objects' names
CLAIM = "data"
RWO = volume_pb2.PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE


class Done(Exception):
    """Both pods are bound where the volume is: stops the watcher."""


class Storage:
    """Follows the binds (on the watcher's thread)."""

    def __init__(self, client, run):
        self.client, self.run = client, run
        self.node = None  # where db-0 went

    def handle(self, d):
        if not d.pod.uid.startswith(self.run + "-"):
            return
        kind, name = d.WhichOneof("action"), d.pod.name
        if kind == "unschedulable":
            raise RuntimeError("%s unschedulable: %s" % (name, d.unschedulable.message))
        if kind != "bind":
            return
        node, vols = d.bind.node, list(d.bind.volumes)
        for v in vols:
            print("%s -> %s: claim %s gets volume %r (provision on %r)" % (name, node, v.claim, v.volume, v.selected_node), flush=True)
        if name == "db-0":
            if len(vols) != 1 or vols[0].claim != CLAIM or vols[0].volume != PREFIX + "n2-disk" or node != PREFIX + "n2":
                raise RuntimeError("db-0: bound to %s with volumes %s, want claim %s on %sn2-disk on %sn2" % (node, vols, CLAIM, PREFIX, PREFIX))
            # The volume controller's part: bind the claim to the volume.
            self.client.apply([local_volume("n2", 20, CLAIM), claim(vols[0].volume)])
            self.node = node
            self.client.confirm_bind(d)
            self.client.apply([pod(self.run, "db-1")])
        elif name == "db-1":
            if node != self.node or vols:
                raise RuntimeError("db-1: bound to %s with volumes %s, want %s and none (the claim is bound)" % (node, vols, self.node))
            self.client.confirm_bind(d)
            raise Done()


def node(name):
    return object_pb2.Object(node=node_pb2.Node(
        name=PREFIX + name, labels={"kubernetes.io/hostname": PREFIX + name},
        allocatable={"cpu": 8000, "memory": 32 << 30, "pods": 110}))


def local_volume(node_name, gib, bound_to=None):
    """A disk of node_name, bound to the claim bound_to when given."""
    pv = volume_pb2.PersistentVolume(
        name=PREFIX + node_name + "-disk", capacity_bytes=gib << 30, storage_class_name=PREFIX + "local",
        access_modes=[RWO],
        node_affinity=selector_pb2.NodeSelector(node_selector_terms=[selector_pb2.NodeSelectorTerm(match_expressions=[
            selector_pb2.NodeSelectorRequirement(key="kubernetes.io/hostname", operator=selector_pb2.NODE_SELECTOR_OPERATOR_IN,
                                                 values=[PREFIX + node_name])])]))
    if bound_to:
        pv.claim_ref.CopyFrom(volume_pb2.ClaimReference(namespace=NAMESPACE, name=bound_to))
        pv.phase = volume_pb2.PERSISTENT_VOLUME_PHASE_BOUND
    return object_pb2.Object(persistent_volume=pv)


def claim(volume=None):
    """The 15 GiB claim, bound to volume when given."""
    c = volume_pb2.PersistentVolumeClaim(
        namespace=NAMESPACE, name=CLAIM, request_bytes=15 << 30, storage_class_name=PREFIX + "local", access_modes=[RWO])
    if volume:
        c.volume_name, c.bind_completed = volume, True
        c.phase = volume_pb2.PERSISTENT_VOLUME_CLAIM_PHASE_BOUND
    return object_pb2.Object(persistent_volume_claim=c)


def objects():
    return [
        # The class before the claim (a claim without one takes the default class).
        object_pb2.Object(storage_class=volume_pb2.StorageClass(
            name=PREFIX + "local", provisioner="kubernetes.io/no-provisioner",
            volume_binding_mode=volume_pb2.VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER)),
        node("n1"), node("n2"), local_volume("n1", 10), local_volume("n2", 20), claim(),
    ]


def pod(run, name):
    return object_pb2.Object(pod=pod_pb2.Pod(
        uid="%s-%s" % (run, name), namespace=NAMESPACE, name=name, priority=0,
        containers=[pod_pb2.Container(name="main", requests={"cpu": 1000, "memory": 1 << 30})],
        volumes=[volume_pb2.Volume(name="data", persistent_volume_claim=volume_pb2.PersistentVolumeClaimVolumeSource(claim_name=CLAIM)),
                 volume_pb2.Volume(name="tmp", other="emptyDir")]))


def ref(kind, name, namespace=""):
    return object_pb2.ObjectRef(kind=kind, namespace=namespace, name=name)


def cleanup(client):
    refs = [ref(object_pb2.OBJECT_KIND_POD, "db-%d" % i, NAMESPACE) for i in range(2)] + [
        ref(object_pb2.OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, CLAIM, NAMESPACE),
        ref(object_pb2.OBJECT_KIND_PERSISTENT_VOLUME, PREFIX + "n1-disk"),
        ref(object_pb2.OBJECT_KIND_PERSISTENT_VOLUME, PREFIX + "n2-disk"),
        ref(object_pb2.OBJECT_KIND_STORAGE_CLASS, PREFIX + "local"),
        ref(object_pb2.OBJECT_KIND_NODE, PREFIX + "n1"), ref(object_pb2.OBJECT_KIND_NODE, PREFIX + "n2"),
    ]
    try:
        client.delete(refs)
    except Exception:
        pass  # NOT_FOUND for objects already gone


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default=os.environ.get("BERTH_SERVER", "127.0.0.1:7070"))
    ap.add_argument("--token", default=os.environ.get("BERTH_TOKEN"))
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()

    client = Client(args.server, token=args.token)
    run = "%s-%x" % (NAMESPACE, time.time_ns())
    storage = Storage(client, run)
    watcher = client.watcher(MemoryCheckpoint(), storage.handle, start_at=1, on_compacted=lambda ce: ce.oldest)
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
        client.apply(objects())
        client.apply([pod(run, "db-0")])
        t.join(timeout=args.timeout)
        if t.is_alive():
            raise RuntimeError("timed out")
        if not isinstance(outcome[0], Done):
            raise RuntimeError("the watch ended: %r" % outcome[0])
    except Exception as e:
        print("volumes (python): FAILED: %s" % e, file=sys.stderr)
        return 1
    finally:
        watcher.stop()
        cleanup(client)
        client.close()
    print("volumes (python): OK, the claim got the volume that fits and both pods went where it is")
    return 0


if __name__ == "__main__":
    sys.exit(main())
