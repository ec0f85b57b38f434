"""Tests of berth_client against an in-process fake berthd (grpc server)."""

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from concurrent import futures

# The refused handshake of MutualTLSTest is logged by gRPC core as an error.
os.environ.setdefault("GRPC_VERBOSITY", "NONE")

import grpc  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client import (LOG_ID_MISMATCH, REVISION_NOT_WRITTEN, Backoff, BatchError, Client,  # noqa: E402
                          CompactedError, FileCheckpoint, HandlerError, MemoryCheckpoint, RequestTooLarge,
                          SessionClosed, error_reason)
from berth_client.rpc import error_details_pb2, status_pb2  # noqa: E402
from berth_client.session import identity  # noqa: E402
from berth_client.v1 import (decision_pb2, decision_service_pb2, decision_service_pb2_grpc, node_pb2,  # noqa: E402
                             object_pb2, pod_pb2, state_service_pb2, state_service_pb2_grpc)

WAIT = 10  # seconds any single step may take


def watch_error(context, code, message, reason, **metadata):
    """Ends a Watch as berthd does: code, with an ErrorInfo of reason in the
    status details."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain="berth.v1", metadata=metadata)
    st = status_pb2.Status(code=code.value[0], message=message)
    st.details.add().Pack(info)
    context.set_trailing_metadata((("grpc-status-details-bin", st.SerializeToString()),))
    context.abort(code, message)


def node(name):
    return object_pb2.Object(node=node_pb2.Node(name=name))


def pod(name, node_name="", priority_class=""):
    return object_pb2.Object(pod=pod_pb2.Pod(namespace="ns", name=name, uid="uid-" + name, node_name=node_name,
                                             priority_class_name=priority_class))


def pod_ref(name):
    return object_pb2.ObjectRef(kind=object_pb2.OBJECT_KIND_POD, namespace="ns", name=name)


class FakeBerth(state_service_pb2_grpc.StateServiceServicer, decision_service_pb2_grpc.DecisionServiceServicer):
    """An in-memory berthd: objects with resync semantics, a decision log,
    and faults: sync_breaks (requests each Sync stream acknowledges before
    UNAVAILABLE), watch_breaks (decisions each Watch sends before
    UNAVAILABLE), max_mutations (RESOURCE_EXHAUSTED above), report_error."""

    def __init__(self):
        self.lock = threading.Lock()
        self.objects = {}  # identity -> Object
        self.log = [decision_pb2.Decision(revision=i, pod=object_pb2.PodRef(namespace="ns", name="p%d" % i, uid="u%d" % i),
                                          bind=decision_pb2.Bind(node="n1")) for i in range(1, 6)]
        self.oldest = 1
        self.sync_breaks = []
        self.watch_breaks = []
        self.max_mutations = 0
        self.report_error = None  # a grpc.StatusCode ReportBindResult fails with
        self.watch_froms = []
        self.watch_log_ids = []  # the log_id of each Watch request
        self.log_id = "log-A"
        self.bare_out_of_range = False  # compacted without an ErrorInfo, as an old berthd
        self.requests = []
        self.unary_calls = 0
        self.reports = []
        self.metadata = queue.Queue()  # the authorization metadata of each call
        self.resyncs = threading.Semaphore(0)  # released at each RESYNC_END

    def _seen(self, context):
        self.metadata.put([v for k, v in context.invocation_metadata() if k == "authorization"])

    def _too_large(self, n, context):
        if self.max_mutations and n > self.max_mutations:
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "%d mutations, more than %d" % (n, self.max_mutations))

    def _apply(self, i, m, seen):
        """Applies one mutation under lock; returns its ObjectError or None."""
        if m.HasField("delete"):
            key = (m.delete.kind, m.delete.namespace, m.delete.name)
            if key not in self.objects:
                return state_service_pb2.ObjectError(index=i, ref=m.delete, code=state_service_pb2.ERROR_CODE_NOT_FOUND)
            del self.objects[key]
            if seen is not None:
                seen.discard(key)
            return None
        key = identity(m.upsert)
        ref = object_pb2.ObjectRef(kind=key[0], namespace=key[1], name=key[2])
        if not key[2]:
            return state_service_pb2.ObjectError(index=i, ref=ref, code=state_service_pb2.ERROR_CODE_INVALID_ARGUMENT,
                                                 field_path="name", message="must not be empty")
        pc = m.upsert.pod.priority_class_name if m.upsert.HasField("pod") else ""
        if pc and (object_pb2.OBJECT_KIND_PRIORITY_CLASS, "", pc) not in self.objects:
            return state_service_pb2.ObjectError(index=i, ref=ref, code=state_service_pb2.ERROR_CODE_FAILED_PRECONDITION,
                                                 field_path="pod.priority_class_name", message="unknown priority class")
        self.objects[key] = m.upsert
        if seen is not None:
            seen.add(key)
        return None

    def Sync(self, request_iterator, context):
        self._seen(context)
        with self.lock:
            break_after = self.sync_breaks.pop(0) if self.sync_breaks else -1
        seen, kinds = None, []
        for acked, req in enumerate(request_iterator):
            if acked == break_after:
                context.abort(grpc.StatusCode.UNAVAILABLE, "sync broken")
            self._too_large(len(req.mutations), context)
            resp = state_service_pb2.SyncResponse(batch_id=req.batch_id)
            with self.lock:
                self.requests.append(req)
                if req.resync == state_service_pb2.RESYNC_BEGIN:
                    seen, kinds = set(), list(req.resync_kinds)
                for i, m in enumerate(req.mutations):
                    e = self._apply(i, m, seen)
                    if e is None:
                        resp.applied += 1
                    else:
                        resp.errors.append(e)
                if req.resync == state_service_pb2.RESYNC_END:
                    for key in list(self.objects):
                        if key not in seen and (not kinds or key[0] in kinds):
                            del self.objects[key]
                            resp.resync_deleted += 1
                    seen = None
            yield resp
            if req.resync == state_service_pb2.RESYNC_END:
                self.resyncs.release()

    def Apply(self, request, context):
        self._seen(context)
        with self.lock:
            self.unary_calls += 1
        self._too_large(len(request.objects), context)
        resp = state_service_pb2.ApplyResponse()
        with self.lock:
            for i, o in enumerate(request.objects):
                e = self._apply(i, state_service_pb2.Mutation(upsert=o), None)
                if e is None:
                    resp.applied += 1
                else:
                    resp.errors.append(e)
        return resp

    def Delete(self, request, context):
        self._seen(context)
        with self.lock:
            self.unary_calls += 1
        self._too_large(len(request.refs), context)
        resp = state_service_pb2.DeleteResponse()
        with self.lock:
            for i, r in enumerate(request.refs):
                e = self._apply(i, state_service_pb2.Mutation(delete=r), None)
                if e is None:
                    resp.deleted += 1
                else:
                    resp.errors.append(e)
        return resp

    def ReportBindResult(self, request, context):
        self._seen(context)
        if self.report_error is not None:
            context.abort(self.report_error, "report refused")
        with self.lock:
            self.reports.append(request)
        return state_service_pb2.ReportBindResultResponse()

    def Watch(self, request, context):
        self._seen(context)
        self.watch_froms.append(request.from_revision)
        self.watch_log_ids.append(request.log_id)
        if request.log_id and request.log_id != self.log_id:
            watch_error(context, grpc.StatusCode.FAILED_PRECONDITION, "another log", LOG_ID_MISMATCH, log_id=self.log_id)
        if request.from_revision > len(self.log) + 1:
            watch_error(context, grpc.StatusCode.OUT_OF_RANGE, "beyond the end", REVISION_NOT_WRITTEN,
                        next_revision=str(len(self.log) + 1), log_id=self.log_id)
        if request.from_revision < self.oldest:
            if self.bare_out_of_range:
                context.abort(grpc.StatusCode.OUT_OF_RANGE, "compacted")
            watch_error(context, grpc.StatusCode.OUT_OF_RANGE, "compacted", "REVISION_COMPACTED",
                        oldest_revision=str(self.oldest), log_id=self.log_id)
        limit = self.watch_breaks.pop(0) if self.watch_breaks else None
        for sent, d in enumerate(x for x in self.log if x.revision >= request.from_revision):
            if sent == limit:
                context.abort(grpc.StatusCode.UNAVAILABLE, "broken")
            yield decision_service_pb2.WatchResponse(decisions=[d], next_revision=d.revision + 1, log_id=self.log_id)
        context.abort(grpc.StatusCode.UNAVAILABLE, "end of log")

    def held(self):
        with self.lock:
            return sorted(k[2] for k in self.objects)

    def received(self):
        """Per Sync request: its marker (B, E or -) and the names it carries."""
        with self.lock:
            out = []
            for req in self.requests:
                s = {state_service_pb2.RESYNC_BEGIN: "B", state_service_pb2.RESYNC_END: "E"}.get(req.resync, "-")
                for m in req.mutations:
                    s += " del:" + m.delete.name if m.HasField("delete") else " " + identity(m.upsert)[2]
                out.append(s)
            return out


class Store:
    """An orchestrator's record, re-listed by its session."""

    def __init__(self, *objects):
        self.lock = threading.Lock()
        self.objects = list(objects)

    def add(self, *objects):
        with self.lock:
            self.objects.extend(objects)

    def list(self):
        with self.lock:
            return list(self.objects)


class FakeServerTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeBerth()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        state_service_pb2_grpc.add_StateServiceServicer_to_server(self.fake, self.server)
        decision_service_pb2_grpc.add_DecisionServiceServicer_to_server(self.fake, self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        # Cleanups run last first: sessions and clients made by a test
        # close before the server stops.
        self.addCleanup(self.server.stop, None)
        self.client = self.new_client()
        self.addCleanup(self.client.close)

    def new_client(self, **kwargs):
        return Client("127.0.0.1:%d" % self.port, backoff=Backoff(initial=0.0), **kwargs)

    def await_resync(self):
        self.assertTrue(self.fake.resyncs.acquire(timeout=WAIT), "no re-list completed")


class WatcherTest(FakeServerTest):
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

    def test_compaction_without_error_info(self):
        self.fake.oldest, self.fake.bare_out_of_range = 4, True
        with self.assertRaises(CompactedError) as ctx:
            self.watch_until(MemoryCheckpoint(2), 5)
        self.assertEqual((ctx.exception.from_revision, ctx.exception.oldest), (2, 0))

    def test_revision_not_written_is_not_compaction(self):
        compactions = []
        with self.assertRaises(grpc.RpcError) as ctx:
            self.watch_until(MemoryCheckpoint(50), 5, on_compacted=compactions.append)
        self.assertNotIsInstance(ctx.exception, CompactedError)
        self.assertEqual((ctx.exception.code(), error_reason(ctx.exception)),
                         (grpc.StatusCode.OUT_OF_RANGE, REVISION_NOT_WRITTEN))
        self.assertEqual(compactions, [])
        self.assertEqual(self.fake.watch_froms, [50])  # not retried

    def test_resume_sends_the_log_id(self):
        self.fake.watch_breaks = [2, 1]
        self.assertEqual(self.watch_until(MemoryCheckpoint(), 5, start_at=1), [1, 2, 3, 4, 5])
        self.assertEqual(self.fake.watch_log_ids, ["", "log-A", "log-A"])

    def test_log_id_of_another_log_is_refused(self):
        with self.assertRaises(grpc.RpcError) as ctx:
            self.watch_until(MemoryCheckpoint(3), 5, log_id="log-B")
        self.assertEqual((ctx.exception.code(), error_reason(ctx.exception)),
                         (grpc.StatusCode.FAILED_PRECONDITION, LOG_ID_MISMATCH))
        self.assertEqual(self.fake.watch_log_ids, ["log-B"])

    def test_handler_error_stops_at_that_revision(self):
        cp = MemoryCheckpoint()

        def handle(d):
            if d.revision == 3:
                raise KeyError("boom")

        with self.assertRaises(HandlerError) as ctx:
            self.client.watcher(cp, handle, start_at=1).run()
        self.assertEqual(ctx.exception.revision, 3)
        self.assertIsInstance(ctx.exception.error, KeyError)
        self.assertEqual(cp.load(), 3)

    def test_handler_grpc_error_is_not_retried(self):
        # confirm_bind failing with UNAVAILABLE inside the handler is the
        # handler's error, not a broken watch stream to reconnect.
        self.fake.report_error = grpc.StatusCode.UNAVAILABLE
        calls = []

        def handle(d):
            calls.append(d.revision)
            self.client.confirm_bind(d)

        with self.assertRaises(HandlerError) as ctx:
            self.client.watcher(MemoryCheckpoint(), handle, start_at=1).run()
        self.assertIsInstance(ctx.exception.error, grpc.RpcError)
        self.assertEqual(ctx.exception.error.code(), grpc.StatusCode.UNAVAILABLE)
        self.assertEqual((calls, self.fake.watch_froms), ([1], [1]))

    def test_backoff_delay(self):
        b = Backoff(initial=0.1, maximum=1.0, factor=2.0)
        self.assertEqual([b.delay(n) for n in (0, 1, 2, 4, 5, 5000)], [0.0, 0.1, 0.2, 0.8, 1.0, 1.0])
        self.assertEqual(Backoff(initial=0.0).delay(5000), 0.0)

    def test_file_checkpoint(self):
        with tempfile.TemporaryDirectory() as d:
            cp = FileCheckpoint(os.path.join(d, "rev"))
            self.assertEqual(cp.load(), 0)
            cp.save(42)
            self.assertEqual(FileCheckpoint(cp.path).load(), 42)
            self.assertEqual(os.listdir(d), ["rev"])


class UnaryTest(FakeServerTest):
    def test_confirm_and_fail_bind(self):
        bind = self.fake.log[0]
        self.client.confirm_bind(bind)
        self.client.fail_bind(bind, "image pull failed")
        with self.assertRaises(ValueError):
            self.client.confirm_bind(decision_pb2.Decision(revision=9, evict=decision_pb2.Evict(node="n1")))
        self.assertEqual([(r.pod.name, r.pod.uid, r.node, r.revision, r.outcome, r.reason) for r in self.fake.reports], [
            ("p1", "u1", "n1", 1, state_service_pb2.BIND_OUTCOME_CONFIRMED, ""),
            ("p1", "u1", "n1", 1, state_service_pb2.BIND_OUTCOME_FAILED, "image pull failed"),
        ])

    def test_token_on_every_call(self):
        client = self.new_client(token="s3cret")
        self.addCleanup(client.close)
        client.apply([node("n1")])
        client.confirm_bind(self.fake.log[0])
        with client.session(lambda: []):
            self.await_resync()
        watcher = client.watcher(MemoryCheckpoint(), lambda d: watcher.stop(), start_at=1)
        watcher.run()
        seen = [self.fake.metadata.get(timeout=WAIT) for _ in range(4)]
        self.assertEqual(seen, [["Bearer s3cret"]] * 4)
        self.client.apply([node("n2")])  # the client without a token sends none
        self.assertEqual(self.fake.metadata.get(timeout=WAIT), [])

    def test_apply_and_delete_split_above_max_batch(self):
        client = self.new_client(max_batch=2)
        self.addCleanup(client.close)
        with self.assertRaises(BatchError) as ctx:
            client.apply([node("a"), node("b"), node("c"), node(""), node("e")])
        self.assertEqual(ctx.exception.applied, 4)
        self.assertEqual([(e.index, e.code) for e in ctx.exception.errors], [(3, grpc.StatusCode.INVALID_ARGUMENT)])
        client.delete([pod_ref("x"), pod_ref("y"), pod_ref("z")])  # NOT_FOUND is success
        self.assertEqual(self.fake.unary_calls, 5)
        self.fake.max_mutations = 1
        with self.assertRaises(RequestTooLarge):
            client.apply([node("a"), node("b")])


class SessionTest(FakeServerTest):
    def session(self, store, **kwargs):
        kwargs.setdefault("max_batch", 2)
        s = self.client.session(store.list, **kwargs).start()
        self.addCleanup(s.close)
        return s

    def test_errors_mapped_to_the_callers_objects(self):
        resyncs = []
        with self.client.session(lambda: [node("n1")], on_resync=resyncs.append) as s:
            self.await_resync()  # else the re-list may supersede the call
            with self.assertRaises(BatchError) as ctx:
                s.upsert(pod("a"), pod(""), timeout=WAIT)
            err = ctx.exception
            self.assertEqual(err.applied, 1)
            self.assertEqual([(e.index, e.code, e.field_path) for e in err.errors],
                             [(1, grpc.StatusCode.INVALID_ARGUMENT, "name")])
            s.delete(pod_ref("gone"), timeout=WAIT)
        self.assertEqual(len(resyncs), 1)
        self.assertEqual(resyncs[0].sent, 1)
        self.assertEqual(self.fake.received(), ["B n1", "E", "- a ", "- del:gone"])

    def test_call_before_first_relist_is_sent_once(self):
        # A call made while the session starts, of an object the record
        # already holds, travels once: in the first re-list.
        s = self.client.session(Store(node("n1"), pod("a")).list)
        self.addCleanup(s.close)
        t = threading.Thread(target=s.upsert, args=(pod("a"),), kwargs={"timeout": WAIT})
        t.start()
        while not s._queue:
            time.sleep(0.001)
        s.start()
        t.join(WAIT)
        self.assertEqual(self.fake.received(), ["B n1 a", "E"])

    def test_splits_large_calls(self):
        s = self.session(Store())
        self.await_resync()  # else the re-list may supersede the call
        with self.assertRaises(BatchError) as ctx:
            s.upsert(pod("a"), pod("b"), pod(""), pod("d"), pod("e", priority_class="gold"), timeout=WAIT)
        self.assertEqual(ctx.exception.applied, 3)
        self.assertEqual([(e.index, e.code) for e in ctx.exception.errors],
                         [(2, grpc.StatusCode.INVALID_ARGUMENT), (4, grpc.StatusCode.FAILED_PRECONDITION)])
        self.assertEqual(self.fake.received(), ["B", "E", "- a b", "-  d", "- e"])

    def test_relists_on_reconnect_and_supersedes_unacknowledged_calls(self):
        # First stream: acks BEGIN+n1 / END / the upsert of a, breaks on b's.
        self.fake.sync_breaks = [3]
        store = Store(node("n1"))
        resyncs = queue.Queue()
        s = self.session(store, on_resync=resyncs.put)
        self.await_resync()  # else the first re-list may carry a and supersede its call
        store.add(pod("a"))
        s.upsert(pod("a"), timeout=WAIT)
        store.add(pod("b"))  # the record first, then Berth
        s.upsert(pod("b"), timeout=WAIT)  # answered by the re-list
        got = [resyncs.get(timeout=WAIT) for _ in range(2)]
        self.assertEqual([(r.sent, r.deleted, r.errors) for r in got], [(1, 0, []), (3, 0, [])])
        self.assertEqual(self.fake.held(), ["a", "b", "n1"])
        self.assertEqual(self.fake.received(), ["B n1", "E", "- a", "B n1 a", "- b", "E"])

    def test_relist_deletes_what_the_record_dropped(self):
        self.fake.sync_breaks = [2]
        store = Store(node("n1"), pod("gone"))
        s = self.session(store)
        self.await_resync()
        with store.lock:
            store.objects = [node("n1")]
        s.delete(pod_ref("gone"), timeout=WAIT)  # breaks the first stream; the re-list drops the pod
        self.await_resync()
        self.assertEqual(self.fake.held(), ["n1"])
        self.assertEqual(self.fake.received(), ["B n1 gone", "E", "B n1", "E"])

    def test_stale_call_does_not_undo_the_relist(self):
        self.fake.sync_breaks = [2]  # acks BEGIN / END, breaks on the first call
        store = Store()
        s = self.session(store)
        self.await_resync()
        store.add(pod("b", node_name="n1"))  # the record moved on before the call was answered
        s.upsert(pod("b"), timeout=WAIT)
        with self.fake.lock:
            self.assertEqual(self.fake.objects[identity(pod("b"))].pod.node_name, "n1")

    def test_superseded_call_gets_the_relists_refusal(self):
        self.fake.sync_breaks = [2]
        store = Store()
        s = self.session(store)
        self.await_resync()
        bad = pod("p", priority_class="gold")
        store.add(node("n1"), bad)
        with self.assertRaises(BatchError) as ctx:
            s.upsert(node("n1"), bad, timeout=WAIT)
        self.assertEqual((ctx.exception.applied, [(e.index, e.code) for e in ctx.exception.errors]),
                         (1, [(1, grpc.StatusCode.FAILED_PRECONDITION)]))

    def test_kinds_not_relisted_are_sent_again(self):
        self.fake.sync_breaks = [2]
        store = Store(pod("a"))
        s = self.session(store, resync_kinds=[object_pb2.OBJECT_KIND_POD])
        self.await_resync()
        store.add(pod("b"))
        s.upsert(pod("b"), node("n9"), timeout=WAIT)
        self.assertEqual(self.fake.received(), ["B a", "E", "B a b", "E", "- n9"])
        self.assertEqual(list(self.fake.requests[2].resync_kinds), [object_pb2.OBJECT_KIND_POD])

    def test_request_too_large_fails_the_call_not_the_session(self):
        self.fake.max_mutations = 3
        s = self.session(Store(), max_batch=4)
        # A call queued before the session's first re-list is superseded by
        # it (test_call_before_first_relist_is_sent_once): never sent, it
        # would be answered with success. Wait until the re-list is done.
        self.await_resync()
        with self.assertRaises(RequestTooLarge):
            s.upsert(pod("a"), pod("b"), pod("c"), pod("d"), timeout=WAIT)
        s.upsert(pod("e"), timeout=WAIT)
        self.assertIn("e", self.fake.held())

    def test_relist_too_large_ends_the_session(self):
        self.fake.max_mutations = 1
        s = self.session(Store(node("a"), node("b")))
        with self.assertRaises(SessionClosed):  # a call fails once the session stopped
            s.upsert(node("x"), timeout=WAIT)
        self.assertTrue(s.stopped)
        self.assertIsInstance(s.error, RequestTooLarge)


def _openssl(*args, cwd):
    subprocess.run(("openssl",) + args, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@unittest.skipUnless(shutil.which("openssl"), "needs the openssl command")
class MutualTLSTest(unittest.TestCase):
    """A fake berthd that requires a client certificate (--tls-client-ca)."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        d = cls.dir
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                 "-subj", "/CN=berth test CA", "-keyout", "ca.key", "-out", "ca.pem", cwd=d)
        for name, ext in (("server", "subjectAltName=DNS:berth.test\nextendedKeyUsage=serverAuth"),
                          ("client", "extendedKeyUsage=clientAuth")):
            _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=" + name,
                     "-keyout", name + ".key", "-out", name + ".csr", cwd=d)
            with open(os.path.join(d, name + ".ext"), "w") as f:
                f.write(ext + "\n")
            _openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                     "-days", "1", "-extfile", name + ".ext", "-out", name + ".pem", cwd=d)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def read(self, name):
        with open(os.path.join(self.dir, name), "rb") as f:
            return f.read()

    def setUp(self):
        self.fake = FakeBerth()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        state_service_pb2_grpc.add_StateServiceServicer_to_server(self.fake, self.server)
        creds = grpc.ssl_server_credentials([(self.read("server.key"), self.read("server.pem"))],
                                            root_certificates=self.read("ca.pem"), require_client_auth=True)
        self.port = self.server.add_secure_port("127.0.0.1:0", creds)
        self.server.start()

    def tearDown(self):
        self.server.stop(None)

    def client(self, **kwargs):
        c = Client("127.0.0.1:%d" % self.port, root_certificates=self.read("ca.pem"),
                   channel_options=[("grpc.ssl_target_name_override", "berth.test")], token="s3cret", **kwargs)
        self.addCleanup(c.close)
        return c

    def test_client_certificate(self):
        c = self.client(private_key=self.read("client.key"), certificate_chain=self.read("client.pem"))
        c.apply([node("n1")], timeout=WAIT)
        self.assertEqual(self.fake.held(), ["n1"])
        self.assertEqual(self.fake.metadata.get(timeout=WAIT), ["Bearer s3cret"])

    def test_no_client_certificate_is_refused(self):
        with self.assertRaises(grpc.RpcError) as ctx:
            self.client().apply([node("n1")], timeout=WAIT)
        self.assertEqual(ctx.exception.code(), grpc.StatusCode.UNAVAILABLE)

    def test_key_without_chain_is_an_error(self):
        with self.assertRaises(ValueError):
            Client("127.0.0.1:1", private_key=b"key")


if __name__ == "__main__":
    unittest.main()
