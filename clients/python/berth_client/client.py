"""The Berth client: unary calls, bind reports and a resuming decision watcher."""

import os
import tempfile
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence, Union

import grpc

from berth_client._errors import (RETRYABLE, BatchError, CompactedError, HandlerError, RequestTooLarge, is_not_found,
                                  object_error)
from berth_client._router import RoutedStub, Router, split_endpoints
from berth_client._status import REVISION_COMPACTED, budget_refused, error_info
from berth_client.session import DEFAULT_MAX_BATCH, Session
from berth_client.v1 import decision_pb2, decision_service_pb2, decision_service_pb2_grpc
from berth_client.v1 import admin_service_pb2_grpc, object_pb2, state_service_pb2, state_service_pb2_grpc
from berth_client.v1 import eviction_service_pb2, eviction_service_pb2_grpc

Object = object_pb2.Object
ObjectRef = object_pb2.ObjectRef
Decision = decision_pb2.Decision


@dataclass
class Backoff:
    """Exponential delay in seconds between reconnection attempts."""
    initial: float = 0.1
    maximum: float = 10.0
    factor: float = 2.0

    def delay(self, attempt: int) -> float:
        """The wait before attempt (0 for the first, which does not wait)."""
        d = self.initial
        if attempt <= 0 or d <= 0:
            return 0.0
        for _ in range(attempt - 1):  # not factor ** attempt: it overflows after ~1000 attempts
            if d >= self.maximum:
                break
            d *= self.factor
        return min(d, self.maximum)


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
    """A connection to berthd. target is "host:port" or "unix:///path", or,
    for the replicas of a highly available berthd, several of them: a
    sequence, or one string with commas between them.

    With several replicas, calls go to one at a time, the first at start. A
    write refused by a replica that is not the leader (UNAVAILABLE, ErrorInfo
    reason NOT_LEADER) moves the client to the leader the replica names
    (connected to the first time, with the same credentials), or to the next
    endpoint when it names none; a replica that cannot be reached
    (UNAVAILABLE) moves it to the next endpoint. Unary calls are retried
    there (at most 10 redirects, with backoff, within their timeout); a
    Session reconnects there and re-lists; a Watcher resumes there from its
    revision with its log id. Reads go to the endpoint of the last call that
    answered: followers serve them. With several endpoints calls fail fast on
    a replica that is down instead of waiting for it. target tells where
    calls go now.

    With token, every call carries "authorization: Bearer <token>". With tls,
    root_certificates, private_key or certificate_chain the channel is TLS
    (PEM bytes; root_certificates None: the system roots): private_key and
    certificate_chain are the client certificate berthd asks for when it runs
    with --tls-client-ca (mutual TLS). Otherwise the channel is plaintext, for
    a loopback sidecar. channel_options are grpc channel arguments (for
    example ("grpc.ssl_target_name_override", "berth.example")). channel lets
    the caller bring its own grpc.Channel (one endpoint; a leader named by a
    follower is then not followed). max_batch caps the objects per request of
    apply(), delete() and sessions: berthd refuses a request of more than its
    --max-batch-objects (10000 by default).
    """

    def __init__(self, target: Union[str, Sequence[str]] = "", *, token: Optional[str] = None, tls: bool = False,
                 root_certificates: Optional[bytes] = None, private_key: Optional[bytes] = None,
                 certificate_chain: Optional[bytes] = None, channel_options: Sequence[tuple] = (),
                 channel: Optional[grpc.Channel] = None, backoff: Optional[Backoff] = None,
                 max_batch: int = DEFAULT_MAX_BATCH):
        if (private_key is None) != (certificate_chain is None):
            raise ValueError("private_key and certificate_chain go together")
        self.backoff = backoff or Backoff()

        def dial(addr: str) -> grpc.Channel:
            if tls or root_certificates or private_key:
                creds = grpc.ssl_channel_credentials(root_certificates, private_key, certificate_chain)
                return grpc.secure_channel(addr, creds, options=list(channel_options))
            return grpc.insecure_channel(addr, options=list(channel_options))

        if channel is not None:
            self._router = Router([(", ".join(split_endpoints(target)), channel)], None, self.backoff)
        else:
            endpoints = split_endpoints(target) or [""]
            self._router = Router([(a, dial(a)) for a in dict.fromkeys(endpoints)], dial, self.backoff)
        self.channel = self._router.current()[0].channel  # the first endpoint's
        self.metadata = (("authorization", "Bearer " + token),) if token else ()
        self.max_batch = max(max_batch, 1)
        self.state = RoutedStub(self._router, state_service_pb2_grpc.StateServiceStub)
        self.decisions = RoutedStub(self._router, decision_service_pb2_grpc.DecisionServiceStub)
        self.admin = RoutedStub(self._router, admin_service_pb2_grpc.AdminServiceStub)
        self.eviction = RoutedStub(self._router, eviction_service_pb2_grpc.EvictionServiceStub)

    @property
    def target(self) -> str:
        """The address calls go to now: the first endpoint, or the replica a
        redirect or failover chose since."""
        return self._router.target

    def close(self) -> None:
        self._router.close()

    def apply(self, objects: Sequence[Object], timeout: Optional[float] = None) -> None:
        """Upserts objects, max_batch per call; raises BatchError for the refused
        ones. A call that fails as a whole raises (grpc.RpcError, or
        RequestTooLarge) with the calls before it applied."""
        def one(lo, hi):
            resp = self.state.Apply(state_service_pb2.ApplyRequest(objects=objects[lo:hi]), timeout=timeout,
                                    metadata=self.metadata)
            return resp.applied, resp.errors
        self._chunked(len(objects), one, False)

    def delete(self, refs: Sequence[ObjectRef], timeout: Optional[float] = None) -> None:
        """Deletes objects, max_batch per call; NOT_FOUND counts as deleted;
        raises BatchError otherwise, and as apply() for failed calls."""
        def one(lo, hi):
            resp = self.state.Delete(state_service_pb2.DeleteRequest(refs=refs[lo:hi]), timeout=timeout,
                                     metadata=self.metadata)
            return resp.deleted, resp.errors
        self._chunked(len(refs), one, True)

    def _chunked(self, n: int, one, deletes: bool) -> None:
        applied, refused = 0, []
        for lo in range(0, n, self.max_batch):
            hi = min(lo + self.max_batch, n)
            try:
                ok, errors = one(lo, hi)
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise RequestTooLarge("berth: objects %d..%d refused as too large (lower max_batch): %s"
                                          % (lo, hi - 1, e.details()), e) from e
                raise
            applied += ok
            for oe in errors:
                if deletes and is_not_found(oe):
                    applied += 1  # deleting what Berth does not hold is success
                else:
                    refused.append(object_error(lo + oe.index, oe))
        if refused:
            raise BatchError(applied, refused)

    def evict(self, namespace: str, name: str, *, dry_run: bool = False,
              grace_period_seconds: Optional[int] = None, timeout: Optional[float] = None):
        """Evicts a pod through berthd's eviction API (disruption budgets
        enforced) and returns the EvictPodResponse; raises BudgetRefused when
        the pod's budget allows no disruption now, grpc.RpcError otherwise."""
        req = eviction_service_pb2.EvictPodRequest(pod=object_pb2.PodRef(namespace=namespace, name=name),
                                                   dry_run=dry_run)
        if grace_period_seconds is not None:
            req.grace_period_seconds = grace_period_seconds
        try:
            return self.eviction.EvictPod(req, timeout=timeout, metadata=self.metadata)
        except grpc.RpcError as e:
            refused = budget_refused(e)
            if refused is not None:
                raise refused from e
            raise

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


class Watcher:
    """Streams decisions to handler(decision), in revision order, resuming
    from checkpoint.load() after a disconnect or a server restart.

    start_at is the revision used when the checkpoint holds none: 0 for only
    new decisions, 1 for the whole log Berth keeps. When the position was
    compacted away, on_compacted(CompactedError) is called; it should recover
    (list binds awaiting an outcome with AdminService.ListPending) and return
    the revision to watch from. Without it, run() raises CompactedError.
    Only a compacted position is a CompactedError: a revision beyond the end
    of the log (OUT_OF_RANGE, reason REVISION_NOT_WRITTEN) or a log_id of
    another log (FAILED_PRECONDITION, LOG_ID_MISMATCH) means the checkpoint
    belongs to a log berthd no longer has; run() raises that grpc.RpcError
    (berth_client.error_reason tells which).

    log_id names the log the checkpoint's revision belongs to (a
    WatchResponse.log_id kept by the caller); without it the watcher learns
    it from the first response. It is sent on every (re)connect, so that a
    berthd that lost its log refuses the watch rather than skip decisions.
    Delivery is at least once: handlers must be idempotent. An exception from
    the handler stops run(), which raises it wrapped in a HandlerError (even a
    grpc.RpcError, say from confirm_bind, which is not retried as a broken
    stream would be); the checkpoint then holds that decision.
    """

    def __init__(self, client: Client, checkpoint, handler, *, start_at: int = 0,
                 on_compacted: Optional[Callable[[CompactedError], int]] = None,
                 scheduler_name: str = "", types: Sequence[int] = (), log_id: str = ""):
        self._client, self._checkpoint, self._handler = client, checkpoint, handler
        self.log_id = log_id
        self._start_at, self._on_compacted = start_at, on_compacted
        self._scheduler_name = scheduler_name
        self._types: list = list(types)  # DecisionType values
        self._stopped = threading.Event()
        self._call = None

    def stop(self) -> None:
        """Makes run() return."""
        self._stopped.set()
        call = self._call
        if call is not None:
            call.cancel()

    def run(self) -> None:
        """Watches until stop(); raises on a refused watch (grpc.RpcError),
        a compacted position without on_compacted (CompactedError), a
        position in another log (grpc.RpcError: REVISION_NOT_WRITTEN,
        LOG_ID_MISMATCH) or a handler error (HandlerError)."""
        rev = self._checkpoint.load() or self._start_at
        attempt = hops = 0
        at_once = False  # the router moved past a replica that is down: no wait
        while not self._stopped.is_set():
            if attempt and not at_once and self._stopped.wait(self._client.backoff.delay(attempt)):
                return
            at_once = False
            req = decision_service_pb2.WatchRequest(from_revision=rev, scheduler_name=self._scheduler_name, types=self._types,
                                                    log_id=self.log_id)
            call = self._client.decisions.Watch(req, metadata=self._client.metadata, wait_for_ready=True)
            self._call = call
            if self._stopped.is_set():
                call.cancel()
            progressed = False
            try:
                for resp in call:
                    progressed = True
                    if resp.log_id:
                        self.log_id = resp.log_id
                    for d in resp.decisions:
                        if rev and d.revision < rev:
                            continue  # never deliver a revision twice
                        try:
                            self._handler(d)
                        except Exception as e:
                            self._checkpoint.save(d.revision)
                            raise HandlerError(d.revision, e) from e
                        rev = d.revision + 1
                    rev = max(rev, resp.next_revision)
                    self._checkpoint.save(rev)
                attempt = 0 if progressed else attempt + 1  # the server closed the stream
            except grpc.RpcError as e:
                if self._stopped.is_set():
                    return
                ce = _compacted(rev, e)
                if ce is not None:
                    if self._on_compacted is None:
                        raise ce from e
                    rev = self._on_compacted(ce)
                    self._checkpoint.save(rev)
                    attempt = 0
                    continue
                if e.code() not in RETRYABLE:
                    raise
                attempt = 0 if progressed else attempt + 1
                at_once, hops = self._client._router.hop(e, hops)
                if at_once and attempt:
                    attempt -= 1  # another replica, at once: not a failure of its own
            finally:
                call.cancel()  # ends the stream when a handler error leaves it
                self._call = None


def _compacted(rev: int, e: grpc.RpcError) -> Optional[CompactedError]:
    """The CompactedError of a watch error: OUT_OF_RANGE with reason
    REVISION_COMPACTED, or without an ErrorInfo (a berthd older than the
    reason); None for any other error, REVISION_NOT_WRITTEN included."""
    if e.code() != grpc.StatusCode.OUT_OF_RANGE:
        return None
    info = error_info(e)
    if info is None:
        return CompactedError(rev, 0)
    if info.reason != REVISION_COMPACTED:
        return None
    try:
        return CompactedError(rev, int(info.metadata.get("oldest_revision", "0")))
    except ValueError:
        return CompactedError(rev, 0)
