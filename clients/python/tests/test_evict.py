"""Tests of Client.evict against an in-process fake EvictionService."""

import unittest
from concurrent import futures

import grpc
from google.protobuf import duration_pb2

from berth_client import BudgetRefused, Client
from berth_client._status import error_details_pb2, status_pb2
from berth_client.v1 import eviction_service_pb2, eviction_service_pb2_grpc


class FakeEviction(eviction_service_pb2_grpc.EvictionServiceServicer):
    """Evicts "free" pods; refuses "guarded" ones as a budget would."""

    def __init__(self):
        self.requests = []

    def EvictPod(self, request, context):
        self.requests.append(request)
        if request.pod.name == "guarded":
            info = error_details_pb2.ErrorInfo(reason="DISRUPTION_BUDGET", domain="berth.v1",
                                               metadata={"budget": "ns/web", "disruptions_allowed": "0"})
            retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=5))
            st = status_pb2.Status(code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], message="budget")
            st.details.add().Pack(info)
            st.details.add().Pack(retry)
            context.set_trailing_metadata((("grpc-status-details-bin", st.SerializeToString()),))
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "budget")
        if request.pod.name == "nobody":
            context.abort(grpc.StatusCode.NOT_FOUND, "no such pod")
        return eviction_service_pb2.EvictPodResponse(revision=0 if request.dry_run else 7)


class EvictTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeEviction()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        eviction_service_pb2_grpc.add_EvictionServiceServicer_to_server(self.fake, self.server)
        port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        self.addCleanup(self.server.stop, None)
        self.client = Client("127.0.0.1:%d" % port)
        self.addCleanup(self.client.close)

    def test_evicted(self):
        resp = self.client.evict("ns", "free", grace_period_seconds=0)
        self.assertEqual(resp.revision, 7)
        req = self.fake.requests[-1]
        self.assertTrue(req.HasField("grace_period_seconds"))
        self.assertEqual((req.pod.namespace, req.pod.name, req.grace_period_seconds), ("ns", "free", 0))

    def test_dry_run_without_grace(self):
        self.assertEqual(self.client.evict("ns", "free", dry_run=True).revision, 0)
        self.assertFalse(self.fake.requests[-1].HasField("grace_period_seconds"))

    def test_budget_refusal(self):
        with self.assertRaises(BudgetRefused) as cm:
            self.client.evict("ns", "guarded")
        self.assertEqual((cm.exception.budget, cm.exception.retry_after), ("ns/web", 5.0))

    def test_other_failures_are_rpc_errors(self):
        with self.assertRaises(grpc.RpcError) as cm:
            self.client.evict("ns", "nobody")
        self.assertEqual(cm.exception.code(), grpc.StatusCode.NOT_FOUND)


if __name__ == "__main__":
    unittest.main()
