"""Tests of berth_client against an in-process fake berthd (grpc server)."""

import os
import sys
import tempfile
import threading
import unittest
from concurrent import futures

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client import Backoff, BatchError, Client, CompactedError, FileCheckpoint, MemoryCheckpoint  # noqa: E402
from berth_client.v1 import (decision_pb2, decision_service_pb2, decision_service_pb2_grpc, node_pb2,  # noqa: E402
                             object_pb2, pod_pb2, state_service_pb2, state_service_pb2_grpc)


def _ld(num, payload):  # a length-delimited protobuf field
    out, n = bytes([num << 3 | 2]), len(payload)
    while n >= 0x80:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n]) + payload


def compacted_details(oldest):
    entry = _ld(1, b"oldest_revision") + _ld(2, str(oldest).encode())
    info = _ld(1, b"REVISION_COMPACTED") + _ld(2, b"berth.v1") + _ld(3, entry)
    any_msg = _ld(1, b"type.googleapis.com/google.rpc.ErrorInfo") + _ld(2, info)
    return bytes([8, 11]) + _ld(2, b"compacted") + _ld(3, any_msg)


class FakeBerth(state_service_pb2_grpc.StateServiceServicer, decision_service_pb2_grpc.DecisionServiceServicer):
    def __init__(self):
        self.log = [decision_pb2.Decision(revision=i, pod=object_pb2.PodRef(namespace="ns", name="p%d" % i),
                                          bind=decision_pb2.Bind(node="n1")) for i in range(1, 6)]
        self.oldest = 1
        self.watch_breaks = []  # decisions sent by each Watch before UNAVAILABLE
        self.watch_froms = []
        self.requests = []

    def Sync(self, request_iterator, context):
        for req in request_iterator:
            self.requests.append(req)
            resp = state_service_pb2.SyncResponse(batch_id=req.batch_id)
            for i, m in enumerate(req.mutations):
                if m.HasField("upsert") and m.upsert.WhichOneof("kind") == "pod" and not m.upsert.pod.name:
                    resp.errors.add(index=i, code=state_service_pb2.ERROR_CODE_INVALID_ARGUMENT,
                                    field_path="pod.name", message="must not be empty")
                elif m.HasField("delete"):
                    resp.errors.add(index=i, code=state_service_pb2.ERROR_CODE_NOT_FOUND)
                else:
                    resp.applied += 1
            yield resp

    def Watch(self, request, context):
        self.watch_froms.append(request.from_revision)
        if request.from_revision < self.oldest:
            context.set_trailing_metadata((("grpc-status-details-bin", compacted_details(self.oldest)),))
            context.abort(grpc.StatusCode.OUT_OF_RANGE, "compacted")
        limit = self.watch_breaks.pop(0) if self.watch_breaks else None
        for sent, d in enumerate(x for x in self.log if x.revision >= request.from_revision):
            if sent == limit:
                context.abort(grpc.StatusCode.UNAVAILABLE, "broken")
            yield decision_service_pb2.WatchResponse(decisions=[d], next_revision=d.revision + 1)
        context.abort(grpc.StatusCode.UNAVAILABLE, "end of log")


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeBerth()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        state_service_pb2_grpc.add_StateServiceServicer_to_server(self.fake, self.server)
        decision_service_pb2_grpc.add_DecisionServiceServicer_to_server(self.fake, self.server)
        port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        self.client = Client("127.0.0.1:%d" % port, backoff=Backoff(initial=0.0))

    def tearDown(self):
        self.client.close()
        self.server.stop(None)

    def watch_until(self, checkpoint, last, **kwargs):
        got = []

        def handle(d):
            got.append(d.revision)
            if d.revision == last:
                watcher.stop()

        watcher = self.client.watcher(checkpoint, handle, **kwargs)
        watcher.run()
        return got

    def test_watch_resumes_after_stream_breaks(self):
        self.fake.watch_breaks = [2, 1]
        cp = MemoryCheckpoint()
        self.assertEqual(self.watch_until(cp, 5, start_at=1), [1, 2, 3, 4, 5])
        self.assertEqual(self.fake.watch_froms, [1, 3, 4])
        self.assertEqual(cp.load(), 6)

    def test_compaction_surfaced_and_recovered(self):
        self.fake.oldest = 4
        with self.assertRaises(CompactedError) as ctx:
            self.watch_until(MemoryCheckpoint(2), 5)
        self.assertEqual((ctx.exception.from_revision, ctx.exception.oldest), (2, 4))
        got = self.watch_until(MemoryCheckpoint(2), 5, on_compacted=lambda ce: ce.oldest)
        self.assertEqual(got, [4, 5])

    def test_file_checkpoint(self):
        with tempfile.TemporaryDirectory() as d:
            cp = FileCheckpoint(os.path.join(d, "rev"))
            self.assertEqual(cp.load(), 0)
            cp.save(42)
            self.assertEqual(FileCheckpoint(cp.path).load(), 42)
            self.assertEqual(os.listdir(d), ["rev"])

    def test_session_maps_errors_to_the_callers_objects(self):
        resyncs = []
        node = object_pb2.Object(node=node_pb2.Node(name="n1"))
        with self.client.session(lambda: [node], on_resync=resyncs.append) as s:
            good = object_pb2.Object(pod=pod_pb2.Pod(namespace="ns", name="a"))
            bad = object_pb2.Object(pod=pod_pb2.Pod(namespace="ns"))
            with self.assertRaises(BatchError) as ctx:
                s.upsert(good, bad, timeout=10)
            err = ctx.exception
            self.assertEqual(err.applied, 1)
            self.assertEqual([(e.index, e.code, e.field_path) for e in err.errors],
                             [(1, grpc.StatusCode.INVALID_ARGUMENT, "pod.name")])
            s.delete(object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_POD, namespace="ns", name="gone"), timeout=10)
        self.assertEqual(len(resyncs), 1)
        self.assertEqual(resyncs[0].sent, 1)
        self.assertEqual(self.fake.requests[0].resync, state_service_pb2.RESYNC_BEGIN)
        self.assertEqual(self.fake.requests[1].resync, state_service_pb2.RESYNC_END)


if __name__ == "__main__":
    unittest.main()
