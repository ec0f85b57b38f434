"""Tests of berth_client against several fake berthd replicas, one the leader."""

import os
import queue
import sys
import threading
import unittest
from concurrent import futures
from typing import List, Set

os.environ.setdefault("GRPC_VERBOSITY", "NONE")

import grpc  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client import (MAX_REDIRECTS, NOT_LEADER, Backoff, Client, MemoryCheckpoint, not_leader,  # noqa: E402
                          split_endpoints)
from berth_client.v1 import decision_pb2, decision_service_pb2, decision_service_pb2_grpc, state_service_pb2_grpc  # noqa: E402
from test_client import WAIT, FakeBerth, Store, node, pod, watch_error  # noqa: E402


class Replica(state_service_pb2_grpc.StateServiceServicer, decision_service_pb2_grpc.DecisionServiceServicer):
    """One berthd replica over the cluster's FakeBerth (one store: the same
    log and log id everywhere). A follower refuses StateService calls with
    NOT_LEADER naming the leader; a leader deposed since refuses the next
    request of its Sync streams. Every replica serves Watch."""

    def __init__(self, cluster: "Cluster", index: int):
        self.cluster, self.index, self.fake = cluster, index, cluster.fake

    def _refuse(self, context, method: str) -> None:
        leader = self.cluster.refusal(self.index)
        if leader is not None:
            self.cluster.record("r%d %s refused" % (self.index, method))
            watch_error(context, grpc.StatusCode.UNAVAILABLE, "not the leader", NOT_LEADER, leader=leader)

    def _unary(self, method, request, context):
        self.cluster.record("r%d %s" % (self.index, method))
        self._refuse(context, method)
        return getattr(self.fake, method)(request, context)

    def Apply(self, request, context):
        return self._unary("Apply", request, context)

    def Delete(self, request, context):
        return self._unary("Delete", request, context)

    def ReportBindResult(self, request, context):
        return self._unary("ReportBindResult", request, context)

    def Sync(self, request_iterator, context):
        self.cluster.record("r%d Sync" % self.index)
        self._refuse(context, "Sync")

        def fenced():
            for req in request_iterator:
                self._refuse(context, "Sync")
                yield req

        yield from self.fake.Sync(fenced(), context)

    def Watch(self, request, context):
        self.cluster.record("r%d Watch from=%d log=%s" % (self.index, request.from_revision, request.log_id))
        rev = request.from_revision
        while context.is_active():
            with self.cluster.appended:
                batch = [d for d in self.fake.log if d.revision >= rev]
                if not batch:
                    self.cluster.appended.wait(0.05)  # and look at context again
            for d in batch:
                yield decision_service_pb2.WatchResponse(decisions=[d], next_revision=d.revision + 1,
                                                         log_id=self.fake.log_id)
                rev = d.revision + 1


class Cluster:
    def __init__(self, test: unittest.TestCase, n: int, leader):
        self.fake = FakeBerth()
        self.lock = threading.Lock()
        self.appended = threading.Condition()
        self.leader = leader
        # After elect_at refusals replica 2 leads (an election that ends while a call goes round).
        self.elect_at, self.refusals = 0, 0
        self.unaware: Set[int] = set()
        self.calls: List[str] = []
        self.servers, self.addrs = [], []
        for i in range(n):
            server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
            replica = Replica(self, i)
            state_service_pb2_grpc.add_StateServiceServicer_to_server(replica, server)
            decision_service_pb2_grpc.add_DecisionServiceServicer_to_server(replica, server)
            port = server.add_insecure_port("127.0.0.1:0")
            server.start()
            test.addCleanup(server.stop, None)
            self.servers.append(server)
            self.addrs.append("127.0.0.1:%d" % port)

    def client(self, test: unittest.TestCase, *endpoints: int) -> Client:
        c = Client([self.addrs[i] for i in endpoints], backoff=Backoff(initial=0.0))
        test.addCleanup(c.close)
        return c

    def name(self, addr: str) -> str:
        return "r%d" % self.addrs.index(addr)

    def record(self, call: str) -> None:
        with self.lock:
            self.calls.append(call)

    def refusal(self, i: int):
        """The leader replica i names when it refuses writes, None on the leader."""
        with self.lock:
            if i == self.leader:
                return None
            leader = self.addrs[self.leader] if self.leader is not None and i not in self.unaware else ""
            self.refusals += 1
            if self.refusals == self.elect_at:
                self.leader = 2
            return leader

    def append(self, n: int) -> None:
        """Appends n decisions to the log (copies of its first)."""
        with self.appended:
            for _ in range(n):
                d = decision_pb2.Decision()
                d.CopyFrom(self.fake.log[0])
                d.revision = len(self.fake.log) + 1
                self.fake.log.append(d)
            self.appended.notify_all()

    def set_leader(self, i) -> None:
        """Makes replica i the leader; a new leader holds only what is re-listed."""
        with self.lock:
            self.leader = i
        with self.fake.lock:
            self.fake.objects.clear()


class UnaryTest(unittest.TestCase):
    def apply_with(self, leader, endpoints, unaware=(), stopped=(), elect_at=0):
        cluster = Cluster(self, 3, leader)
        cluster.elect_at = elect_at
        cluster.unaware.update(unaware)
        for i in stopped:
            cluster.servers[i].stop(None)
        client = cluster.client(self, *endpoints)
        error = None
        try:
            client.apply([node("n1")], timeout=WAIT)
        except grpc.RpcError as e:
            error = e
        return cluster, client, error

    def test_a_follower_names_the_leader(self):
        cluster, client, error = self.apply_with(2, [1, 2, 0])
        self.assertIsNone(error)
        self.assertEqual(cluster.calls, ["r1 Apply", "r1 Apply refused", "r2 Apply"])
        self.assertEqual(cluster.name(client.target), "r2")

    def test_a_leader_not_among_the_endpoints(self):
        cluster, client, error = self.apply_with(0, [1])
        self.assertIsNone(error)
        self.assertEqual(cluster.calls, ["r1 Apply", "r1 Apply refused", "r0 Apply"])
        self.assertEqual(cluster.name(client.target), "r0")

    def test_a_follower_that_knows_no_leader_the_next_endpoint(self):
        cluster, client, error = self.apply_with(0, [1, 2, 0], unaware=[1])
        self.assertIsNone(error)
        self.assertEqual(cluster.calls, ["r1 Apply", "r1 Apply refused", "r2 Apply", "r2 Apply refused", "r0 Apply"])

    def test_an_endpoint_down_the_next_one(self):
        cluster, client, error = self.apply_with(1, [0, 1], stopped=[0])
        self.assertIsNone(error)
        self.assertEqual(cluster.calls, ["r1 Apply"])
        self.assertEqual(cluster.name(client.target), "r1")

    def test_an_endpoint_down_while_the_others_elect(self):
        cluster, client, error = self.apply_with(None, [0, 1, 2], stopped=[0], elect_at=4)
        self.assertIsNone(error)
        self.assertEqual([c for c in cluster.calls if not c.endswith("refused")],
                         ["r1 Apply", "r2 Apply", "r1 Apply", "r2 Apply", "r1 Apply", "r2 Apply"])
        self.assertEqual(cluster.name(client.target), "r2")

    def test_no_leader_anywhere(self):
        cluster, client, error = self.apply_with(None, [0, 1])
        self.assertIsNotNone(error)
        self.assertEqual(not_leader(error), (True, ""))
        self.assertEqual(len([c for c in cluster.calls if c.endswith("refused")]), MAX_REDIRECTS)

    def test_hop_reconnects_at_once_until_a_round_failed(self):
        cluster = Cluster(self, 3, 0)
        client = cluster.client(self, 0, 1, 2)

        class Unavailable(grpc.RpcError):
            def code(self):
                return grpc.StatusCode.UNAVAILABLE

            def trailing_metadata(self):
                return ()

        router = client._router
        self.assertEqual([router.hop(Unavailable(), n) for n in range(3)], [(True, 1), (True, 2), (False, 0)])
        self.assertEqual(router.hop(None, 1), (False, 0))

    def test_split_endpoints(self):
        self.assertEqual(split_endpoints(" a:1, b:2 ,,c:3,"), ["a:1", "b:2", "c:3"])
        self.assertEqual(split_endpoints(["a:1", "b:2,c:3"]), ["a:1", "b:2", "c:3"])


class FailoverTest(unittest.TestCase):
    def test_session_follows_leader_changes(self):
        """A session re-lists on each new leader: one the deposed leader names,
        then one found after the leader died by trying the next endpoint."""
        cluster = Cluster(self, 3, 0)
        client = cluster.client(self, 1, 0, 2)
        store = Store(node("n1"))
        resyncs = queue.Queue()  # objects sent by each re-list
        session = client.session(store.list, max_batch=2, on_resync=lambda r: resyncs.put(r.sent)).start()
        self.addCleanup(session.close)

        def upsert(name):
            store.add(pod(name))
            session.upsert(pod(name), timeout=WAIT)

        self.assertEqual(resyncs.get(timeout=WAIT), 1)
        upsert("a")
        cluster.set_leader(2)  # r0 is deposed and stays up
        upsert("b")  # refused by r0: re-listed on r2
        self.assertEqual(resyncs.get(timeout=WAIT), 3)
        cluster.set_leader(1)
        cluster.servers[2].stop(None)  # the leader dies
        upsert("c")  # in the re-list on r1, or sent after it
        self.assertIn(resyncs.get(timeout=WAIT), (3, 4))

        self.assertEqual(cluster.fake.held(), ["a", "b", "c", "n1"])
        syncs = [c for c in cluster.calls if c.endswith(" Sync")]
        self.assertEqual(syncs, ["r1 Sync", "r0 Sync", "r2 Sync", "r1 Sync"])
        self.assertEqual(cluster.name(client.target), "r1")

    def test_watcher_resumes_on_another_replica(self):
        """A watcher whose replica dies resumes on the next one from the
        revision after the last it handled, with the log id: every decision
        once, in order."""
        cluster = Cluster(self, 3, 0)
        del cluster.fake.log[3:]
        client = cluster.client(self, 0, 1, 2)
        got = []

        def handle(d):
            got.append(d.revision)
            if d.revision == 2:
                cluster.servers[0].stop(None)  # revision 3 may or may not arrive first
                cluster.append(2)  # r0 cannot send these
            if d.revision == 5:
                watcher.stop()

        cp = MemoryCheckpoint()
        watcher = client.watcher(cp, handle, start_at=1)
        watcher.run()

        self.assertEqual(got, [1, 2, 3, 4, 5])
        self.assertEqual(cp.load(), 6)
        watches = [c for c in cluster.calls if " Watch " in c]
        self.assertEqual(watches[0], "r0 Watch from=1 log=")
        self.assertIn(watches[1], ["r1 Watch from=3 log=log-A", "r1 Watch from=4 log=log-A"])
        self.assertEqual(len(watches), 2)


if __name__ == "__main__":
    unittest.main()
