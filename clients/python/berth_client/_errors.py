"""The errors of berth_client, and which gRPC failures are retried."""

from dataclasses import dataclass
from typing import List, Optional

import grpc

from berth_client.v1 import object_pb2

# Stream failures worth reconnecting for; anything else (INVALID_ARGUMENT,
# UNAUTHENTICATED, UNIMPLEMENTED, ...) is returned to the caller.
# RESOURCE_EXHAUSTED is not retried: the same message would be refused again.
RETRYABLE = frozenset({
    grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL,
    grpc.StatusCode.ABORTED, grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED,
})

_CODES = {c.value[0]: c for c in grpc.StatusCode}


@dataclass
class ObjectError:
    """One object Berth refused. index counts from the caller's first object;
    code is a grpc.StatusCode (INVALID_ARGUMENT: malformed; FAILED_PRECONDITION:
    refers to something missing, may succeed later; NOT_FOUND; INTERNAL)."""
    index: int
    ref: object_pb2.ObjectRef
    code: grpc.StatusCode
    field_path: str
    message: str

    def __str__(self) -> str:
        where = "object %d" % self.index
        if self.ref.name:
            where += " (%s)" % "/".join(p for p in (self.ref.namespace, self.ref.name) if p)
        return ": ".join(p for p in (where, self.code.name, self.field_path, self.message) if p)


def object_error(index: int, e) -> ObjectError:
    """Converts a wire berth.v1.ObjectError about the caller's object index."""
    return ObjectError(index, e.ref, _CODES.get(e.code, grpc.StatusCode.UNKNOWN), e.field_path, e.message)


def is_not_found(e) -> bool:
    return _CODES.get(e.code) == grpc.StatusCode.NOT_FOUND


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


class RequestTooLarge(Exception):
    """berthd refused a request with RESOURCE_EXHAUSTED: more objects than its
    --max-batch-objects, or more bytes than its message size limit. Not
    retried; lower max_batch. cause is the grpc.RpcError."""

    def __init__(self, message: str, cause: Optional[BaseException] = None):
        super().__init__(message)
        self.cause = cause


class HandlerError(Exception):
    """A watcher's handler raised error on the decision at revision; run()
    stops with it, whatever the error (a grpc.RpcError from a call the
    handler made is not taken for a broken watch stream)."""

    def __init__(self, revision: int, error: BaseException):
        super().__init__("handle decision %d: %s" % (revision, error))
        self.revision = revision
        self.error = error
