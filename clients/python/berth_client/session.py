"""The Sync session: one Sync stream kept open, re-listing on every connect."""

import collections
import threading
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import grpc

from berth_client._errors import (RETRYABLE, BatchError, ObjectError, RequestTooLarge, SessionClosed, is_not_found,
                                  object_error)
from berth_client._router import retry_delay
from berth_client.v1 import object_pb2, state_service_pb2

DEFAULT_MAX_BATCH = 500  # far below berthd's default --max-batch-objects (10000)

# Every kind of object: its ObjectKind, and whether berthd names its objects
# within a namespace.
_KINDS = {
    "node": (object_pb2.OBJECT_KIND_NODE, False),
    "pod": (object_pb2.OBJECT_KIND_POD, True),
    "priority_class": (object_pb2.OBJECT_KIND_PRIORITY_CLASS, False),
    "pod_disruption_budget": (object_pb2.OBJECT_KIND_POD_DISRUPTION_BUDGET, True),
    "namespace": (object_pb2.OBJECT_KIND_NAMESPACE, False),
    "pod_group": (object_pb2.OBJECT_KIND_POD_GROUP, True),
    "composite_pod_group": (object_pb2.OBJECT_KIND_COMPOSITE_POD_GROUP, True),
    "device_class": (object_pb2.OBJECT_KIND_DEVICE_CLASS, False),
    "resource_slice": (object_pb2.OBJECT_KIND_RESOURCE_SLICE, False),
    "resource_claim": (object_pb2.OBJECT_KIND_RESOURCE_CLAIM, True),
    "resource_claim_template": (object_pb2.OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE, True),
    "device_taint_rule": (object_pb2.OBJECT_KIND_DEVICE_TAINT_RULE, False),
    "persistent_volume": (object_pb2.OBJECT_KIND_PERSISTENT_VOLUME, False),
    "persistent_volume_claim": (object_pb2.OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, True),
    "storage_class": (object_pb2.OBJECT_KIND_STORAGE_CLASS, False),
    "csi_node": (object_pb2.OBJECT_KIND_CSI_NODE, False),
    "csi_driver": (object_pb2.OBJECT_KIND_CSI_DRIVER, False),
    "csi_storage_capacity": (object_pb2.OBJECT_KIND_CSI_STORAGE_CAPACITY, True),
    "resource_flavor": (object_pb2.OBJECT_KIND_RESOURCE_FLAVOR, False),
    "cluster_queue": (object_pb2.OBJECT_KIND_CLUSTER_QUEUE, False),
    "cohort": (object_pb2.OBJECT_KIND_COHORT, False),
    "local_queue": (object_pb2.OBJECT_KIND_LOCAL_QUEUE, True),
    "workload_priority_class": (object_pb2.OBJECT_KIND_WORKLOAD_PRIORITY_CLASS, False),
    "workload": (object_pb2.OBJECT_KIND_WORKLOAD, True),
}


def identity(o: object_pb2.Object) -> Tuple[int, str, str]:
    """An object's (kind, namespace, name)."""
    k = o.WhichOneof("kind")
    if k is None:
        return (object_pb2.OBJECT_KIND_UNSPECIFIED, "", "")
    kind, namespaced = _KINDS[k]
    v = getattr(o, k)
    return (kind, v.namespace if namespaced else "", v.name)


def _kind(m) -> int:
    return m.delete.kind if m.HasField("delete") else identity(m.upsert)[0]


@dataclass
class ResyncResult:
    """What one re-list did: objects sent, deleted by Berth for not being
    re-sent, and refused (index into the lister's objects)."""
    sent: int
    deleted: int = 0
    errors: List[ObjectError] = field(default_factory=list)


class _Call:
    """One upsert() or delete() waiting for its answer. Its fields are
    guarded by the session's condition."""

    def __init__(self, mutations) -> None:
        self.mutations = mutations
        self.todo = list(range(len(mutations)))  # indexes not yet sent (nor superseded)
        self.pending = len(mutations)  # indexes not yet answered
        self.applied = 0
        self.errors: List[ObjectError] = []
        self.finished = False
        self.done = threading.Event()
        self.error: Optional[BaseException] = None

    def answer(self, n: int, applied: int, errors: List[ObjectError]) -> None:
        if self.finished:
            return
        self.pending -= n
        self.applied += applied
        self.errors.extend(errors)
        if self.pending <= 0:
            self.finish(BatchError(self.applied, sorted(self.errors, key=lambda e: e.index)) if self.errors else None)

    def finish(self, error: Optional[BaseException]) -> None:
        if self.finished:
            return
        self.finished, self.todo, self.error = True, [], error
        self.done.set()


# A segment is some of one call's mutations, sent together in one request or
# superseded together by a re-list: (call, [indexes into call.mutations]).
Segment = Tuple[_Call, List[int]]


class _Batch:
    """One request sent and not yet acknowledged: a re-list request (segs
    None, offset into the lister's objects, end: carries RESYNC_END) or one
    of calls."""

    def __init__(self, batch_id: int, size: int, segs: Optional[List[Segment]] = None, offset: int = 0,
                 end: bool = False):
        self.id, self.size, self.segs, self.offset, self.end = batch_id, size, segs, offset, end


class Session:
    """Keeps one Sync stream open in a background thread.

    Each time it connects it re-lists everything lister() returns between
    resync markers, so Berth drops what the orchestrator no longer holds, then
    sends upsert()/delete() calls, several per request when they queue up, and
    a call of more than max_batch mutations over several requests (Berth may
    then apply part of it before the rest). upsert/delete block until answered
    and raise BatchError for refused objects, RequestTooLarge when berthd
    refused the request as too large (not retried), SessionClosed.

    The re-list is the truth. Upserts and deletes of a re-listed kind still
    waiting when lister() is called (never sent, or sent on a stream that
    broke before their acknowledgement) are not sent: the re-list supersedes
    them. They are answered once the re-list is acknowledged, with Berth's
    refusal of the re-listed object of the same identity if any, else
    success. Sending them after the re-list could undo newer state (a pod the
    re-list sent with node_name set, replaced by an older pending copy, is
    scheduled again); sending them before would show the scheduler stale
    state. This requires the orchestrator to update what lister() returns
    before calling upsert()/delete() for the same change. Calls made after
    lister() was called are sent after the re-list, in order. Mutations of
    kinds not in resync_kinds are never superseded: they are sent again.

    resync_kinds scopes the re-list; empty (the default) re-lists every kind:
    Berth then deletes every object, of every kind, that this session did not
    re-send, including other orchestrators' in a shared berthd. Within a kind
    a re-list is always global.
    """

    def __init__(self, client, lister: Callable[[], Iterable[object_pb2.Object]], *, resync_kinds=(),
                 max_batch: Optional[int] = None, on_resync: Optional[Callable[[ResyncResult], None]] = None):
        self._client, self._lister = client, lister
        self._kinds = list(resync_kinds)
        batch: int = max_batch or getattr(client, "max_batch", None) or DEFAULT_MAX_BATCH
        self._max_batch = max(batch, 1)
        self._on_resync = on_resync
        self._cond = threading.Condition()
        self._queue: collections.deque = collections.deque()  # _Calls with todo, in call order; guarded by _cond
        self._closed = threading.Event()
        self._grpc_call = None
        self._thread: Optional[threading.Thread] = None
        self._batch_id = 0
        self._resynced = False  # whether the last stream completed its re-list
        self.error: Optional[BaseException] = None  # why the session stopped, if not close()

    @property
    def stopped(self) -> bool:
        """Whether the session stopped: close(), or a failure not retried (error)."""
        return self._closed.is_set()

    def start(self) -> "Session":
        self._thread = threading.Thread(target=self._run, name="berth-sync", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._closed.set()
        with self._cond:
            self._cond.notify_all()
        call = self._grpc_call
        if call is not None:
            call.cancel()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> "Session":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def upsert(self, *objects: object_pb2.Object, timeout: Optional[float] = None) -> None:
        """Creates or replaces objects; raises BatchError for the refused ones.
        On timeout (TimeoutError) the objects may still be sent."""
        self._submit([state_service_pb2.Mutation(upsert=o) for o in objects], timeout)

    def delete(self, *refs: object_pb2.ObjectRef, timeout: Optional[float] = None) -> None:
        """Removes objects; one Berth does not hold counts as deleted."""
        self._submit([state_service_pb2.Mutation(delete=r) for r in refs], timeout)

    def _submit(self, mutations, timeout) -> None:
        if not mutations:
            return
        call = _Call(mutations)
        with self._cond:
            if self._closed.is_set():
                raise SessionClosed("session closed")
            self._queue.append(call)
            self._cond.notify_all()
        if not call.done.wait(timeout):
            raise TimeoutError("berth: no acknowledgement within %ss" % timeout)
        if call.error is not None:
            raise call.error

    def _run(self) -> None:
        attempt = hops = 0
        at_once = False  # the router moved past a replica that is down: no wait
        failure: Optional[BaseException] = None  # the previous stream's
        try:
            while not self._closed.is_set():
                if attempt and not at_once and self._closed.wait(retry_delay(self._client.backoff, failure, attempt)):
                    break
                failure = None
                try:
                    self._connect()
                except RequestTooLarge as e:
                    self.error = e
                    break
                except grpc.RpcError as e:
                    if self._closed.is_set():
                        break
                    if e.code() not in RETRYABLE:
                        self.error = e
                        break
                    failure = e
                except Exception as e:  # the lister failed: retry with backoff
                    if self._closed.is_set():
                        break
                    self.error = e
                attempt = 0 if self._resynced else attempt + 1
                at_once, hops = self._hop(failure, hops)
                if at_once and attempt:
                    attempt -= 1  # another replica, at once: not a failure of its own
        finally:
            self._closed.set()
            with self._cond:
                pending, self._queue = list(self._queue), collections.deque()
                for c in pending:
                    c.finish(SessionClosed(str(self.error or "session closed")))

    def _hop(self, e: Optional[BaseException], hops: int) -> Tuple[bool, int]:
        router = getattr(self._client, "_router", None)
        return router.hop(e, hops) if router is not None else (False, 0)

    def _next_id(self) -> int:
        self._batch_id += 1
        return self._batch_id

    def _relisted(self, kind: int) -> bool:
        return not self._kinds or kind in self._kinds

    def _supersede(self) -> List[Segment]:
        """Removes from the queue, before lister() is called, the mutations
        the re-list supersedes (those of re-listed kinds) and returns them."""
        out: List[Segment] = []
        keep: collections.deque = collections.deque()
        with self._cond:
            for c in self._queue:
                sup = [i for i in c.todo if self._relisted(_kind(c.mutations[i]))]
                c.todo = [i for i in c.todo if not self._relisted(_kind(c.mutations[i]))]
                if sup:
                    out.append((c, sup))
                if c.todo:
                    keep.append(c)
            self._queue = keep
        return out

    def _requeue(self, segs: List[Segment]) -> None:
        """Puts segments back at the head of the queue, in order. Under _cond."""
        head, seen = [], set()
        for c, idx in segs:
            if c.finished:
                continue
            c.todo = sorted(c.todo + idx)
            if id(c) not in seen:
                seen.add(id(c))
                head.append(c)
        self._queue = collections.deque(head + [c for c in self._queue if id(c) not in seen])

    def _take(self) -> List[Segment]:
        """The mutations of the next request: up to max_batch, from as many
        calls as fit, splitting one that does not. Under _cond."""
        segs, room = [], self._max_batch
        while room > 0 and self._queue:
            c = self._queue[0]
            n = min(len(c.todo), room)
            if n:
                segs.append((c, c.todo[:n]))
                c.todo = c.todo[n:]
                room -= n
            if not c.todo:
                self._queue.popleft()
        return segs

    def _connect(self) -> None:
        """Runs one stream: supersede, re-list, then the queue, until the
        stream ends. What was neither answered nor superseded goes back to
        the head of the queue."""
        self._resynced = False
        superseded = self._supersede()
        inflight: collections.deque = collections.deque()  # _Batch, guarded by _cond
        ended = threading.Event()
        try:
            objects = list(self._lister())
            result = ResyncResult(sent=len(objects))
            relist_errors: Dict[Tuple[int, str, str], object] = {}

            def requests():
                step = self._max_batch
                for off in range(0, max(len(objects), 1), step):
                    req = state_service_pb2.SyncRequest(batch_id=self._next_id(), mutations=[
                        state_service_pb2.Mutation(upsert=o) for o in objects[off:off + step]])
                    if off == 0:
                        req.resync = state_service_pb2.RESYNC_BEGIN
                        req.resync_kinds.extend(self._kinds)
                    with self._cond:
                        inflight.append(_Batch(req.batch_id, len(req.mutations), offset=off))
                    yield req
                end = state_service_pb2.SyncRequest(batch_id=self._next_id(), resync=state_service_pb2.RESYNC_END)
                with self._cond:
                    inflight.append(_Batch(end.batch_id, 0, end=True))
                yield end
                while True:
                    with self._cond:
                        while not self._queue and not ended.is_set() and not self._closed.is_set():
                            self._cond.wait()
                        if ended.is_set() or self._closed.is_set():
                            return
                        segs = self._take()
                        if not segs:
                            continue
                        req = state_service_pb2.SyncRequest(batch_id=self._next_id(), mutations=[
                            c.mutations[i] for c, idx in segs for i in idx])
                        inflight.append(_Batch(req.batch_id, len(req.mutations), segs))
                    yield req

            call = self._client.state.Sync(requests(), metadata=self._client.metadata, wait_for_ready=True)
            self._grpc_call = call
            if self._closed.is_set():
                call.cancel()
            try:
                for resp in call:
                    with self._cond:
                        b = inflight.popleft() if inflight else None
                    if b is None or b.id != resp.batch_id:
                        raise RuntimeError("berth: acknowledgement of batch %d does not match a request" % resp.batch_id)
                    if b.segs is not None:
                        with self._cond:
                            _answer(b, resp)
                        continue
                    for e in resp.errors:
                        i = b.offset + e.index
                        if 0 <= i < len(objects):
                            relist_errors[identity(objects[i])] = e
                        result.errors.append(object_error(i, e))
                    if b.end:
                        result.deleted = resp.resync_deleted
                        with self._cond:
                            self._resynced = True
                            for c, idx in superseded:
                                errs = [object_error(i, relist_errors[identity(c.mutations[i].upsert)]) for i in idx
                                        if c.mutations[i].HasField("upsert")
                                        and identity(c.mutations[i].upsert) in relist_errors]
                                c.answer(len(idx), len(idx) - len(errs), errs)
                        self.error = None
                        if self._on_resync:
                            self._on_resync(result)
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    with self._cond:
                        b = inflight[0] if inflight else None
                        if b is not None and b.segs is None:
                            raise RequestTooLarge("berth: a re-list request of %d objects was refused as too large "
                                                  "(lower max_batch): %s" % (b.size, e.details()), e) from e
                        if b is not None:
                            inflight.popleft()
                            err = RequestTooLarge("berth: a request of %d mutations carrying this call was refused "
                                                  "as too large (lower max_batch): %s" % (b.size, e.details()), e)
                            for c, _ in b.segs:
                                c.finish(err)
                            return  # reconnect: the calls concerned were answered
                raise
        finally:
            ended.set()
            with self._cond:
                if not self._resynced:
                    self._requeue(superseded)
                self._requeue([seg for b in inflight if b.segs for seg in b.segs])
                inflight.clear()
                self._cond.notify_all()
            self._grpc_call = None


def _answer(b: _Batch, resp) -> None:
    """Answers the calls of an acknowledged request."""
    by_index = {e.index: e for e in resp.errors}
    pos = 0
    for c, idx in b.segs or ():
        errs, applied = [], 0
        for j, i in enumerate(idx):
            e = by_index.get(pos + j)
            if e is None or (is_not_found(e) and c.mutations[i].HasField("delete")):
                applied += 1  # deleting what Berth does not hold is success
            else:
                errs.append(object_error(i, e))
        c.answer(len(idx), applied, errs)
        pos += len(idx)
