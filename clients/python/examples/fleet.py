#!/usr/bin/env python3
"""Example orchestrator on Berth's Python client.

Registers three nodes, runs three low-priority batch pods, then submits a
high-priority pod that must preempt one of them and a pod that can never fit;
binds what Berth binds (confirming by upserting the pod with node_name set),
stops and deletes what Berth evicts (logging why: preemption, a taint, the
eviction API, node pressure), and exits 0 once every schedulable pod runs and
the never-fitting one was reported unschedulable. It fails if Berth binds one of
its pods twice.

Its session re-lists nodes, pods and priority classes. Berth scopes a re-list
by kind only, so each re-list deletes every node, pod and priority class this
example did not send, including another orchestrator's: run it against a
berthd of its own (clients/run-examples runs the examples one after another).

    python3 clients/python/examples/fleet.py --server 127.0.0.1:7070
"""

import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client import Client, HandlerError, MemoryCheckpoint, parse_resources  # noqa: E402
from berth_client.v1 import decision_pb2, node_pb2, object_pb2, pod_pb2, policy_pb2  # noqa: E402

NAMESPACE = "fleet-py"
PREFIX = "fleet-py-"  # of cluster-scoped names: nodes, priority classes
NEVER_FITS = "huge"


class Fleet:
    """The orchestrator's own record: the source of truth it re-lists."""

    def __init__(self):
        self.lock = threading.Condition()
        self.run_id = "%x" % time.time_ns()
        self.pods = {}  # name -> pod_pb2.Pod
        self.others = [object_pb2.Object(node=node_pb2.Node(
            name=PREFIX + n, labels={"fleet": NAMESPACE},
            allocatable=parse_resources({"cpu": "2", "memory": "4Gi", "pods": "110"}))) for n in ("n1", "n2", "n3")]
        self.others += [object_pb2.Object(priority_class=policy_pb2.PriorityClass(name=PREFIX + n, value=v))
                        for n, v in (("low", 100), ("high", 1000))]
        self.bind_revision = {}  # pod name -> revision of the Bind it runs by
        self.evicted = set()
        self.unschedulable = {}

    def list(self):
        with self.lock:
            return self.others + [object_pb2.Object(pod=p) for p in self.pods.values()]

    def add_pod(self, name, klass, cpu):
        """Records a new pod and returns a copy to send to Berth: the record
        first, then Berth, as the session requires (its re-list, which reads
        the record, supersedes calls made before it)."""
        p = pod_pb2.Pod(namespace=NAMESPACE, name=name, uid="%s-%s" % (name, self.run_id),
                        priority_class_name=PREFIX + klass, node_selector={"fleet": NAMESPACE},
                        containers=[pod_pb2.Container(name="main", requests=parse_resources({"cpu": cpu, "memory": "256Mi"}))])
        with self.lock:
            self.pods[name] = p
            return object_pb2.Object(pod=p)  # a copy

    def handle(self, session, d):
        with self.lock:
            p = self.pods.get(d.pod.name)
            if d.pod.namespace != NAMESPACE or p is None or p.uid != d.pod.uid:
                return  # another orchestrator's, or an earlier run's
        kind = d.WhichOneof("action")
        if kind == "bind":
            # "Start" the pod, then confirm the bind by upserting it with
            # node_name set (the API's other confirmation, equivalent to
            # ReportBindResult CONFIRMED). Through the session it is ordered
            # after every earlier upsert of the pod, so no older, pending copy
            # can arrive after it and undo it.
            with self.lock:
                rev = self.bind_revision.get(d.pod.name)
                if rev is not None and rev != d.revision:
                    raise RuntimeError("pod %s bound twice: to %s at revision %d, to %s at revision %d"
                                       % (d.pod.name, p.node_name, rev, d.bind.node, d.revision))
                self.bind_revision[d.pod.name] = d.revision
                p.node_name = d.bind.node
                running = object_pb2.Object(pod=p)
            session.upsert(running)
            print("rev %d: bind %s -> %s (confirmed)" % (d.revision, d.pod.name, d.bind.node), flush=True)
        elif kind == "evict":
            # Stop the pod within its grace period, then delete it from Berth
            # as the orchestrator would once it has stopped. The example's
            # pods run nothing, so they stop at once, within any grace period.
            print("rev %d: evict %s from %s (%s: %s); stopped within %s" % (
                d.revision, d.pod.name, d.evict.node, evict_cause(d.evict), d.evict.reason, grace_period(d.evict)), flush=True)
            with self.lock:
                self.pods.pop(d.pod.name, None)
                self.evicted.add(d.pod.name)
            session.delete(object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_POD, namespace=NAMESPACE,
                                                name=d.pod.name, uid=d.pod.uid))
        elif kind == "nominate":
            print("rev %d: nominate %s on %s" % (d.revision, d.pod.name, d.nominate.node), flush=True)
        elif kind == "unschedulable":
            with self.lock:
                first = d.pod.name not in self.unschedulable
                self.unschedulable[d.pod.name] = d.unschedulable.message
            if first:
                print("rev %d: %s unschedulable: %s" % (d.revision, d.pod.name, d.unschedulable.message), flush=True)
        with self.lock:
            self.lock.notify_all()

    def running(self, *names):
        return all(n in self.pods and self.pods[n].node_name for n in names)

    def done(self):
        return (all(p.node_name for n, p in self.pods.items() if n != NEVER_FITS)
                and NEVER_FITS in self.unschedulable and self.evicted and "critical" in self.pods)

    def wait(self, cond, deadline, failed):
        """Waits until cond() holds; raises what failed() returns, if anything."""
        with self.lock:
            while not cond():
                if failed() is not None:
                    raise failed()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("timed out; pods: %s" % {n: p.node_name or "pending" for n, p in self.pods.items()})
                self.lock.wait(min(left, 0.5))

    def report(self):
        with self.lock:
            for n in sorted(self.pods):
                print("  %-10s %s" % (n, self.pods[n].node_name or "pending"))
            print("  evicted: %s" % sorted(self.evicted))


def evict_cause(e):
    """What made Berth evict a pod. Every cause asks the same of the
    orchestrator (stop the pod, then delete it); an orchestrator might act on
    them differently, say reschedule a preempted job at once but alert on
    node pressure."""
    if e.cause in (decision_pb2.EVICT_CAUSE_PREEMPTION, decision_pb2.EVICT_CAUSE_UNSPECIFIED):
        # UNSPECIFIED: written before Berth recorded causes, all preemptions.
        return "preempted for %s/%s" % (e.preemptor.namespace, e.preemptor.name)
    if e.cause == decision_pb2.EVICT_CAUSE_TAINT:
        return "a NoExecute taint on its node"
    if e.cause == decision_pb2.EVICT_CAUSE_API:
        return "the eviction API"
    if e.cause == decision_pb2.EVICT_CAUSE_NODE_PRESSURE:
        return "node pressure"
    return "cause %d, newer than this example" % e.cause


def grace_period(e):
    """How long the pod may take to stop."""
    if not e.HasField("grace_period_seconds"):
        return "its own termination grace period"
    if e.grace_period_seconds == 0:
        return "0s (killed at once)"
    return "%ds" % e.grace_period_seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default=os.environ.get("BERTH_SERVER", "127.0.0.1:7070"))
    ap.add_argument("--token", default=os.environ.get("BERTH_TOKEN"))
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    deadline = time.monotonic() + args.timeout

    fleet = Fleet()
    # Three low-priority batch jobs fill three quarters of every node. They
    # are in the record before the session starts, so its first re-list sends
    # them with the nodes and priority classes: no upsert needed.
    for name in ("batch-1", "batch-2", "batch-3"):
        fleet.add_pod(name, "low", "1500m")
    client = Client(args.server, token=args.token)
    # The re-list is scoped to the kinds this example sends, which the API
    # allows; within a kind it is global (see above).
    session = client.session(fleet.list, resync_kinds=[
        object_pb2.OBJECT_KIND_NODE, object_pb2.OBJECT_KIND_POD, object_pb2.OBJECT_KIND_PRIORITY_CLASS]).start()
    watcher = client.watcher(MemoryCheckpoint(), lambda d: fleet.handle(session, d),
                             start_at=1, on_compacted=lambda ce: ce.oldest)
    failure = [None]

    def watch():
        try:
            watcher.run()
        except HandlerError as e:  # surfaced by fleet.wait
            failure[0] = e.error
        except BaseException as e:
            failure[0] = e
        with fleet.lock:
            fleet.lock.notify_all()

    t = threading.Thread(target=watch, daemon=True)
    t.start()

    def failed():  # the watcher's failure, or why the session stopped
        return failure[0] or (session.error if session.stopped else None)
    try:
        print("registered 3 nodes and 3 low-priority batch pods", flush=True)
        fleet.wait(lambda: fleet.running("batch-1", "batch-2", "batch-3"), deadline, failed)
        session.upsert(fleet.add_pod("critical", "high", "1"), fleet.add_pod(NEVER_FITS, "low", "64"),
                       timeout=args.timeout)
        print("submitted critical (must preempt) and huge (never fits)", flush=True)
        fleet.wait(fleet.done, deadline, failed)
        fleet.report()
        refs = [object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_POD, namespace=NAMESPACE, name=n) for n in fleet.pods]
        refs += [object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_NODE, name=o.node.name) for o in fleet.others if o.HasField("node")]
        refs += [object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_PRIORITY_CLASS, name=o.priority_class.name)
                 for o in fleet.others if o.HasField("priority_class")]
        client.delete(refs)
    except Exception as e:
        fleet.report()
        print("fleet (python): FAILED: %s" % e, file=sys.stderr)
        return 1
    finally:
        watcher.stop()
        session.close()
        t.join(timeout=5)
        client.close()
    print("fleet (python): OK, every schedulable pod is running")
    return 0


if __name__ == "__main__":
    sys.exit(main())
