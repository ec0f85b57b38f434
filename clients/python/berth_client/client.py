"""The Berth client: unary calls, a Sync session and a resuming decision watcher."""

import collections
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, List, Optional, Sequence

import grpc

from berth_client import _wire
from berth_client.v1 import decision_pb2, decision_service_pb2, decision_service_pb2_grpc
from berth_client.v1 import admin_service_pb2_grpc, object_pb2, state_service_pb2, state_service_pb2_grpc

Object = object_pb2.Object
ObjectRef = object_pb2.ObjectRef
Decision = decision_pb2.Decision

# Stream failures worth reconnecting for; anything else (INVALID_ARGUMENT,
# UNAUTHENTICATED, UNIMPLEMENTED, ...) is returned to the caller.
_RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL,
    grpc.StatusCode.ABORTED, grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}


@dataclass
class ObjectError:
    """One object Berth refused. index counts from the caller's first object;
    code is a grpc.StatusCode (INVALID_ARGUMENT: malformed; FAILED_PRECONDITION:
    refers to something missing, may succeed later; NOT_FOUND; INTERNAL)."""
    index: int
    ref: ObjectRef
    code: grpc.StatusCode
    field_path: str
    message: str

    def __str__(self) -> str:
        where = "object %d" % self.index
        if self.ref.name:
            where += " (%s)" % "/".join(p for p in (self.ref.namespace, self.ref.name) if p)
        return ": ".join(p for p in (where, self.code.name, self.field_path, self.message) if p)


class BatchError(Exception):
    """The objects of one call that Berth refused; the others took effect."""

    def __init__(self, applied: int, errors: List[ObjectError]):
        super().__init__("%d object(s) refused: %s" % (len(errors), "; ".join(map(str, errors))))
        self.applied = applied
        self.errors = errors


class CompactedError(Exception):
    """The watch position was compacted out of Berth's log (OUT_OF_RANGE)."""

    def __init__(self, from_revision: int, oldest: int):
        super().__init__("watch from revision %d: compacted, oldest revision kept is %d" % (from_revision, oldest))
        self.from_revision = from_revision
        self.oldest = oldest


class SessionClosed(Exception):
    """Raised by Session.upsert/delete calls still waiting when the session closes."""


_CODES = {c.value[0]: c for c in grpc.StatusCode}


def _batch_error(offset: int, applied: int, errors, is_delete=None) -> Optional[BatchError]:
    out = []
    for e in errors:
        idx = e.index - offset
        code = _CODES.get(e.code, grpc.StatusCode.UNKNOWN)
        if code == grpc.StatusCode.NOT_FOUND and is_delete and is_delete(idx):
            applied += 1  # deleting what Berth does not hold is success
            continue
        out.append(ObjectError(idx, e.ref, code, e.field_path, e.message))
    return BatchError(applied, out) if out else None


@dataclass
class Backoff:
    """Exponential delay in seconds between reconnection attempts."""
    initial: float = 0.1
    maximum: float = 10.0
    factor: float = 2.0

    def delay(self, attempt: int) -> float:
        if attempt <= 0:
            return 0.0
        return min(self.initial * self.factor ** (attempt - 1), self.maximum)


class FileCheckpoint:
    """Keeps a watcher's revision in a file, replaced atomically."""

    def __init__(self, path: str):
        self.path = path

    def load(self) -> int:
        try:
            with open(self.path) as f:
                return int(f.read().strip())
        except FileNotFoundError:
            return 0

    def save(self, revision: int) -> None:
        d = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(dir=d, prefix=os.path.basename(self.path) + ".tmp")
        try:
            with os.fdopen(fd, "w") as f:
                f.write("%d\n" % revision)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


class MemoryCheckpoint:
    """Keeps a watcher's revision in memory (survives reconnects, not restarts)."""

    def __init__(self, revision: int = 0):
        self.revision = revision

    def load(self) -> int:
        return self.revision

    def save(self, revision: int) -> None:
        self.revision = revision


class Client:
    """A connection to berthd. target is "host:port" or "unix:///path".

    With token, every call carries "authorization: Bearer <token>". With tls
    (or root_certificates), the channel is TLS; otherwise plaintext, for a
    loopback sidecar. channel lets the caller bring its own grpc.Channel.
    """

    def __init__(self, target: str = "", *, token: Optional[str] = None, tls: bool = False,
                 root_certificates: Optional[bytes] = None, channel: Optional[grpc.Channel] = None,
                 backoff: Optional[Backoff] = None):
        if channel is None:
            if tls or root_certificates:
                channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates))
            else:
                channel = grpc.insecure_channel(target)
        self.channel = channel
        self.metadata = (("authorization", "Bearer " + token),) if token else ()
        self.backoff = backoff or Backoff()
        self.state = state_service_pb2_grpc.StateServiceStub(channel)
        self.decisions = decision_service_pb2_grpc.DecisionServiceStub(channel)
        self.admin = admin_service_pb2_grpc.AdminServiceStub(channel)

    def close(self) -> None:
        self.channel.close()

    def apply(self, objects: Sequence[Object], timeout: Optional[float] = None) -> None:
        """Upserts objects; raises BatchError for the refused ones."""
        resp = self.state.Apply(state_service_pb2.ApplyRequest(objects=objects), timeout=timeout, metadata=self.metadata)
        err = _batch_error(0, resp.applied, resp.errors)
        if err:
            raise err

    def delete(self, refs: Sequence[ObjectRef], timeout: Optional[float] = None) -> None:
        """Deletes objects; NOT_FOUND counts as deleted; raises BatchError otherwise."""
        resp = self.state.Delete(state_service_pb2.DeleteRequest(refs=refs), timeout=timeout, metadata=self.metadata)
        err = _batch_error(0, resp.deleted, resp.errors, lambda i: True)
        if err:
            raise err

    def confirm_bind(self, decision: Decision, timeout: Optional[float] = None) -> None:
        """Reports that the pod of a Bind decision runs on its node."""
        self._report(decision, state_service_pb2.BIND_OUTCOME_CONFIRMED, "", timeout)

    def fail_bind(self, decision: Decision, reason: str, timeout: Optional[float] = None) -> None:
        """Reports that a Bind could not be carried out; Berth requeues the pod."""
        self._report(decision, state_service_pb2.BIND_OUTCOME_FAILED, reason, timeout)

    def _report(self, d: Decision, outcome, reason: str, timeout) -> None:
        if d.WhichOneof("action") != "bind":
            raise ValueError("decision %d is not a Bind" % d.revision)
        self.state.ReportBindResult(state_service_pb2.ReportBindResultRequest(
            pod=d.pod, node=d.bind.node, revision=d.revision, outcome=outcome, reason=reason),
            timeout=timeout, metadata=self.metadata)

    def session(self, lister: Callable[[], Iterable[Object]], **kwargs) -> "Session":
        """A Sync session re-listing through lister; see Session."""
        return Session(self, lister, **kwargs)

    def watcher(self, checkpoint, handler: Callable[[Decision], None], **kwargs) -> "Watcher":
        """A resuming decision watcher; see Watcher."""
        return Watcher(self, checkpoint, handler, **kwargs)


@dataclass
class ResyncResult:
    """What one re-list did: objects sent, deleted by Berth for not being
    re-sent, and refused (index into the lister's objects)."""
    sent: int
    deleted: int = 0
    errors: List[ObjectError] = field(default_factory=list)


class _Call:
    def __init__(self, mutations):
        self.mutations = mutations
        self.done = threading.Event()
        self.error: Optional[BaseException] = None

    def finish(self, error: Optional[BaseException]) -> None:
        self.error = error
        self.done.set()


class Session:
    """Keeps one Sync stream open in a background thread.

    Each time it connects it re-lists everything lister() returns between
    resync markers, so Berth drops what the orchestrator no longer holds, then
    sends upsert()/delete() calls, several per request when they queue up.
    Calls sent on a stream that broke before their acknowledgement are sent
    again after the next re-list. upsert/delete block until acknowledged and
    raise BatchError for refused objects.
    """

    def __init__(self, client: Client, lister, *, resync_kinds=(), max_batch: int = 500,
                 on_resync: Optional[Callable[[ResyncResult], None]] = None):
        self._client, self._lister = client, lister
        self._kinds, self._max_batch, self._on_resync = list(resync_kinds), max(max_batch, 1), on_resync
        self._cond = threading.Condition()
        self._queue: collections.deque = collections.deque()  # guarded by _cond
        self._closed = threading.Event()
        self._grpc_call = None
        self._thread: Optional[threading.Thread] = None
        self._batch_id = 0
        self.error: Optional[BaseException] = None  # why the session stopped, if not close()

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

    def upsert(self, *objects: Object, timeout: Optional[float] = None) -> None:
        self._submit([state_service_pb2.Mutation(upsert=o) for o in objects], timeout)

    def delete(self, *refs: ObjectRef, timeout: Optional[float] = None) -> None:
        self._submit([state_service_pb2.Mutation(delete=r) for r in refs], timeout)

    def _submit(self, mutations, timeout) -> None:
        if not mutations:
            return
        call = _Call(mutations)
        with self._cond:
            if self._closed.is_set():
                raise SessionClosed()
            self._queue.append(call)
            self._cond.notify_all()
        if not call.done.wait(timeout):
            raise TimeoutError("berth: no acknowledgement within %ss" % timeout)
        if call.error is not None:
            raise call.error

    def _run(self) -> None:
        attempt = 0
        try:
            while not self._closed.is_set():
                if attempt and self._closed.wait(self._client.backoff.delay(attempt)):
                    break
                try:
                    resynced = self._connect()
                except grpc.RpcError as e:
                    if self._closed.is_set():
                        break
                    if e.code() not in _RETRYABLE:
                        self.error = e
                        break
                    resynced = False
                except Exception as e:  # the lister failed: retry with backoff
                    if self._closed.is_set():
                        break
                    resynced = False
                    self.error = e
                attempt = 0 if resynced else attempt + 1
        finally:
            self._closed.set()
            with self._cond:
                pending, self._queue = list(self._queue), collections.deque()
            for c in pending:
                c.finish(SessionClosed(str(self.error or "session closed")))

    def _next_id(self) -> int:
        self._batch_id += 1
        return self._batch_id

    def _connect(self) -> bool:
        objects = list(self._lister())
        inflight: collections.deque = collections.deque()  # (request, calls, relist offset or None)
        ended = threading.Event()
        result = ResyncResult(sent=len(objects))
        resynced = False

        def requests():
            step = self._max_batch
            for off in range(0, max(len(objects), 1), step):
                req = state_service_pb2.SyncRequest(batch_id=self._next_id(), mutations=[
                    state_service_pb2.Mutation(upsert=o) for o in objects[off:off + step]])
                if off == 0:
                    req.resync = state_service_pb2.RESYNC_BEGIN
                    req.resync_kinds.extend(self._kinds)
                with self._cond:
                    inflight.append((req.batch_id, None, off))
                yield req
            end = state_service_pb2.SyncRequest(batch_id=self._next_id(), resync=state_service_pb2.RESYNC_END)
            with self._cond:
                inflight.append((end.batch_id, None, -1))
            yield end
            while True:
                with self._cond:
                    while not self._queue and not ended.is_set() and not self._closed.is_set():
                        self._cond.wait()
                    if ended.is_set() or self._closed.is_set():
                        return
                    calls, size = [], 0
                    while self._queue and (not calls or size + len(self._queue[0].mutations) <= self._max_batch):
                        c = self._queue.popleft()
                        calls.append(c)
                        size += len(c.mutations)
                    req = state_service_pb2.SyncRequest(batch_id=self._next_id(),
                                                        mutations=[m for c in calls for m in c.mutations])
                    inflight.append((req.batch_id, calls, None))
                yield req

        call = self._client.state.Sync(requests(), metadata=self._client.metadata, wait_for_ready=True)
        self._grpc_call = call
        try:
            for resp in call:
                with self._cond:
                    batch_id, calls, off = inflight.popleft()
                if batch_id != resp.batch_id:
                    raise RuntimeError("berth: ack of batch %d does not match request %d" % (resp.batch_id, batch_id))
                if calls is None:
                    err = _batch_error(-max(off, 0), 0, resp.errors)
                    if err:
                        result.errors.extend(err.errors)
                    if off == -1:
                        result.deleted = resp.resync_deleted
                        resynced = True
                        self.error = None
                        if self._on_resync:
                            self._on_resync(result)
                    continue
                start = 0
                for c in calls:
                    n = len(c.mutations)
                    mine = [e for e in resp.errors if start <= e.index < start + n]
                    is_delete = (lambda i, c=c: 0 <= i < len(c.mutations) and c.mutations[i].HasField("delete"))
                    c.finish(_batch_error(start, n - len(mine), mine, is_delete))
                    start += n
        finally:
            ended.set()
            with self._cond:
                resend = [c for _, calls, _ in inflight if calls for c in calls]
                self._queue.extendleft(reversed(resend))
                self._cond.notify_all()
            self._grpc_call = None
        return resynced


class Watcher:
    """Streams decisions to handler(decision), in revision order, resuming
    from checkpoint.load() after a disconnect or a server restart.

    start_at is the revision used when the checkpoint holds none: 0 for only
    new decisions, 1 for the whole log Berth keeps. When the position was
    compacted away, on_compacted(CompactedError) is called; it should recover
    (list binds awaiting an outcome with AdminService.ListPending) and return
    the revision to watch from. Without it, run() raises CompactedError.
    Delivery is at least once: handlers must be idempotent. An exception from
    the handler stops run() (the checkpoint then holds that decision).
    """

    def __init__(self, client: Client, checkpoint, handler, *, start_at: int = 0,
                 on_compacted: Optional[Callable[[CompactedError], int]] = None,
                 scheduler_name: str = "", types: Sequence[int] = ()):
        self._client, self._checkpoint, self._handler = client, checkpoint, handler
        self._start_at, self._on_compacted = start_at, on_compacted
        self._scheduler_name, self._types = scheduler_name, list(types)
        self._stopped = threading.Event()
        self._call = None

    def stop(self) -> None:
        """Makes run() return."""
        self._stopped.set()
        call = self._call
        if call is not None:
            call.cancel()

    def run(self) -> None:
        """Watches until stop(); raises on a refused watch or a handler error."""
        rev = self._checkpoint.load() or self._start_at
        attempt = 0
        while not self._stopped.is_set():
            if attempt and self._stopped.wait(self._client.backoff.delay(attempt)):
                return
            req = decision_service_pb2.WatchRequest(from_revision=rev, scheduler_name=self._scheduler_name, types=self._types)
            call = self._client.decisions.Watch(req, metadata=self._client.metadata, wait_for_ready=True)
            self._call = call
            if self._stopped.is_set():
                call.cancel()
            progressed = False
            try:
                for resp in call:
                    progressed = True
                    for d in resp.decisions:
                        if rev and d.revision < rev:
                            continue  # never deliver a revision twice
                        try:
                            self._handler(d)
                        except BaseException:
                            self._checkpoint.save(d.revision)
                            raise
                        rev = d.revision + 1
                    rev = max(rev, resp.next_revision)
                    self._checkpoint.save(rev)
                attempt = 0 if progressed else attempt + 1  # the server closed the stream
            except grpc.RpcError as e:
                if self._stopped.is_set():
                    return
                if e.code() == grpc.StatusCode.OUT_OF_RANGE:
                    ce = CompactedError(rev, _oldest(e))
                    if self._on_compacted is None:
                        raise ce from e
                    rev = self._on_compacted(ce)
                    self._checkpoint.save(rev)
                    attempt = 0
                    continue
                if e.code() not in _RETRYABLE:
                    raise
                attempt = 0 if progressed else attempt + 1
            finally:
                self._call = None


def _oldest(e: grpc.RpcError) -> int:
    for key, value in (e.trailing_metadata() or ()):
        if key == "grpc-status-details-bin":
            info = _wire.error_info(value)
            if info and info[0] == "REVISION_COMPACTED":
                try:
                    return int(info[1].get("oldest_revision", "0"))
                except ValueError:
                    return 0
    return 0
