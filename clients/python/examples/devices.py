#!/usr/bin/env python3
"""Dynamic resource allocation example on Berth's Python client.

Registers a node with two GPUs (a ResourceSlice), a DeviceClass selecting
them by CEL and a ResourceClaimTemplate of one GPU, then submits three pods
that each claim a GPU through the template. Reads each pod's allocation from
its Bind (the claim Berth made for the pod, and the driver/pool/device),
confirms the bind, sees the third pod wait, deletes the first pod, reads the
DeallocateClaim that frees its GPU, and sees the third pod bound to exactly
that GPU. Exits 0 when all of that happened; fails if a GPU is ever given to
two pods. It uses apply/delete (no session, no re-list), so other
orchestrators' objects are left alone.

    python3 clients/python/examples/devices.py --server 127.0.0.1:7070
"""

import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client import Client, HandlerError, MemoryCheckpoint  # noqa: E402
from berth_client.v1 import device_pb2, node_pb2, object_pb2, pod_pb2  # noqa: E402

NAMESPACE = "devices-py"
PREFIX = "devices-py-"  # of the cluster-scoped objects' names
DRIVER = "gpu.example.com"


class Done(Exception):
    """The freed GPU was handed on: stops the watcher."""


class GPUs:
    """Follows the allocations (on the watcher's thread)."""

    def __init__(self, client, run):
        self.client, self.run = client, run
        self.held = {}  # driver/pool/device -> pod
        self.waiting = self.deleted = False
        self.freed = None

    def handle(self, d):
        if not d.pod.uid.startswith(self.run + "-"):
            return
        kind, name = d.WhichOneof("action"), d.pod.name
        if kind == "bind":
            for claim in d.bind.claims:
                for dev in claim.allocation.devices:
                    gpu = "%s/%s/%s" % (dev.driver, dev.pool, dev.device)
                    print("%s -> %s: claim %s (entry %s), request %s: %s" % (
                        name, d.bind.node, claim.name, list(claim.pod_claim_names), dev.request, gpu), flush=True)
                    if gpu in self.held:
                        raise RuntimeError("%s given to %s while %s holds it" % (gpu, name, self.held[gpu]))
                    if self.freed is not None and gpu != self.freed:
                        raise RuntimeError("%s got %s, want the freed %s" % (name, gpu, self.freed))
                    self.held[gpu] = name
            self.client.confirm_bind(d)
            if self.freed is not None:
                raise Done()
        elif kind == "unschedulable":
            print("%s waits: %s" % (name, d.unschedulable.message), flush=True)
            self.waiting = self.waiting or name == "train-2"
        elif kind == "deallocate_claim":
            x = d.deallocate_claim
            for dev in x.allocation.devices:
                self.freed = "%s/%s/%s" % (dev.driver, dev.pool, dev.device)
                self.held.pop(self.freed, None)
            print("claim %s/%s deallocated (deleted with its pod: %s): %s is free" % (
                x.namespace, x.name, x.claim_deleted, self.freed), flush=True)
        self.end_first_job()

    def end_first_job(self):
        """Deletes train-0 once both GPUs are taken and train-2 waits."""
        if self.deleted or not self.waiting or len(self.held) < 2:
            return
        self.deleted = True
        print("train-0's job ends: deleting it", flush=True)
        self.client.delete([pod_ref("train-0")])


def objects():
    gpus = [device_pb2.Device(
        name="gpu-%d" % i, attributes={"model": device_pb2.DeviceAttribute(string="a100")},
        capacity={"memory": "40Gi"}) for i in range(2)]
    return [
        object_pb2.Object(device_class=device_pb2.DeviceClass(
            name=PREFIX + "gpu", selectors=[device_pb2.DeviceSelector(cel='device.driver == "%s"' % DRIVER)])),
        object_pb2.Object(node=node_pb2.Node(
            name=PREFIX + "n1", labels={"kubernetes.io/hostname": PREFIX + "n1"},
            allocatable={"cpu": 8000, "memory": 32 << 30, "pods": 110})),
        object_pb2.Object(resource_slice=device_pb2.ResourceSlice(
            name=PREFIX + "n1-gpus", driver=DRIVER, node_name=PREFIX + "n1", devices=gpus,
            pool=device_pb2.ResourcePool(name=PREFIX + "n1", generation=1, resource_slice_count=1))),
        object_pb2.Object(resource_claim_template=device_pb2.ResourceClaimTemplate(
            namespace=NAMESPACE, name="one-gpu", spec=device_pb2.ResourceClaimSpec(requests=[device_pb2.DeviceRequest(
                name="gpu", exactly=device_pb2.ExactDeviceRequest(
                    device_class_name=PREFIX + "gpu",
                    selectors=[device_pb2.DeviceSelector(cel='device.attributes["%s"].model == "a100"' % DRIVER)]))]))),
    ]


def pod(run, name):
    return object_pb2.Object(pod=pod_pb2.Pod(
        uid="%s-%s" % (run, name), namespace=NAMESPACE, name=name,
        resource_claims=[device_pb2.PodResourceClaim(name="gpu", resource_claim_template_name="one-gpu")],
        containers=[pod_pb2.Container(name="main", requests={"cpu": 1000, "memory": 1 << 30}, claims=["gpu"])]))


def pod_ref(name):
    return object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_POD, namespace=NAMESPACE, name=name)


def cleanup(client):
    refs = [pod_ref("train-%d" % i) for i in range(3)] + [
        object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE, namespace=NAMESPACE, name="one-gpu"),
        object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_RESOURCE_SLICE, name=PREFIX + "n1-gpus"),
        object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_DEVICE_CLASS, name=PREFIX + "gpu"),
        object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_NODE, name=PREFIX + "n1"),
    ]
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
    gpus = GPUs(client, run)
    # The whole log, so no decision is missed; this run's pods by uid.
    watcher = client.watcher(MemoryCheckpoint(), gpus.handle, start_at=1, on_compacted=lambda ce: ce.oldest)
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
        # Classes before the claims that name them; slice and template
        # before the pods.
        client.apply(objects())
        client.apply([pod(run, "train-%d" % i) for i in range(3)])
        t.join(timeout=args.timeout)
        if t.is_alive():
            raise RuntimeError("timed out; held so far: %s" % gpus.held)
        if not isinstance(outcome[0], Done):
            raise RuntimeError("the watch ended: %r" % outcome[0])
    except Exception as e:
        print("devices (python): FAILED: %s" % e, file=sys.stderr)
        return 1
    finally:
        watcher.stop()
        cleanup(client)
        client.close()
    print("devices (python): OK, each pod got its own GPU and a freed GPU was handed on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
