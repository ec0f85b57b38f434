"""The google.rpc.Status details of a gRPC error (trailer
grpc-status-details-bin), decoded with the generated google.rpc stubs."""

from typing import Optional

import grpc
from google.protobuf.message import DecodeError

try:
    # googleapis-common-protos registers the same proto files: when it is
    # installed, use it rather than load a second copy into the pool.
    from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-not-found,unused-ignore]
except ImportError:
    from berth_client.rpc import error_details_pb2, status_pb2  # type: ignore[no-redef,unused-ignore]

# ErrorInfo reasons of berth.v1's watch errors (decision_service.proto).
REVISION_COMPACTED = "REVISION_COMPACTED"
REVISION_NOT_WRITTEN = "REVISION_NOT_WRITTEN"
LOG_ID_MISMATCH = "LOG_ID_MISMATCH"


def status_details(e: grpc.RpcError) -> Optional["status_pb2.Status"]:
    """The google.rpc.Status an error carries, or None."""
    trailers = getattr(e, "trailing_metadata", None)
    for key, value in (trailers() if callable(trailers) else None) or ():
        if key == "grpc-status-details-bin":
            try:
                return status_pb2.Status.FromString(value)
            except DecodeError:
                return None
    return None


def error_info(e: grpc.RpcError) -> Optional["error_details_pb2.ErrorInfo"]:
    """The first google.rpc.ErrorInfo of an error's status details, or None."""
    st = status_details(e)
    for detail in st.details if st is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def error_reason(e: grpc.RpcError) -> str:
    """The ErrorInfo reason of an error ("REVISION_COMPACTED", ...), or ""."""
    info = error_info(e)
    return info.reason if info is not None else ""


DISRUPTION_BUDGET = "DISRUPTION_BUDGET"


class BudgetRefused(Exception):
    """An eviction refused by a disruption budget (RESOURCE_EXHAUSTED, reason
    DISRUPTION_BUDGET): budget names it (namespace/name); retry_after is the
    delay berthd suggests, in seconds."""

    def __init__(self, message: str, budget: str, retry_after: float, cause: grpc.RpcError):
        super().__init__(message)
        self.budget, self.retry_after, self.cause = budget, retry_after, cause


def budget_refused(e: grpc.RpcError) -> Optional[BudgetRefused]:
    """The BudgetRefused an eviction's error is, or None."""
    info = error_info(e)
    if e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or info is None or info.reason != DISRUPTION_BUDGET:
        return None
    retry_after = 0.0
    st = status_details(e)
    for detail in st.details if st is not None else ():
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            ri = error_details_pb2.RetryInfo()
            detail.Unpack(ri)
            retry_after = ri.retry_delay.ToTimedelta().total_seconds()
    return BudgetRefused(e.details(), info.metadata.get("budget", ""), retry_after, e)
