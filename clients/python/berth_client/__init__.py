"""Python client of Berth's berth.v1 gRPC API.

The generated stubs are in berth_client.v1 (regenerate with clients/generate);
this package adds what an orchestrator needs around them: a Sync session that
batches upserts and re-lists on reconnect, a decision watcher that resumes from
a checkpointed revision, and bind reporting. See clients/README.md.
"""

from berth_client._errors import (
    BatchError, CompactedError, HandlerError, ObjectError, RequestTooLarge, SessionClosed,
)
from berth_client._router import LEADER_POLL, MAX_REDIRECTS, NOT_LEADER, not_leader, split_endpoints
from berth_client._status import (
    DISRUPTION_BUDGET, BudgetRefused, LOG_ID_MISMATCH, REVISION_COMPACTED, REVISION_NOT_WRITTEN, error_info, error_reason, status_details,
)
from berth_client.client import Backoff, Client, FileCheckpoint, MemoryCheckpoint, Watcher
from berth_client.quantity import QuantityError, format_quantity, parse_quantity, parse_resources
from berth_client.session import DEFAULT_MAX_BATCH, ResyncResult, Session
from berth_client.v1 import (
    decision_pb2, decision_service_pb2, node_pb2, object_pb2, pod_pb2, policy_pb2, state_service_pb2,
)

__all__ = [
    "BatchError", "CompactedError", "HandlerError", "ObjectError", "RequestTooLarge", "SessionClosed",
    "LEADER_POLL", "MAX_REDIRECTS", "NOT_LEADER", "not_leader", "split_endpoints",
    "DISRUPTION_BUDGET", "BudgetRefused", "LOG_ID_MISMATCH", "REVISION_COMPACTED", "REVISION_NOT_WRITTEN", "error_info", "error_reason", "status_details",
    "Backoff", "Client", "FileCheckpoint", "MemoryCheckpoint", "Watcher",
    "QuantityError", "format_quantity", "parse_quantity", "parse_resources",
    "DEFAULT_MAX_BATCH", "ResyncResult", "Session",
    "decision_pb2", "decision_service_pb2", "node_pb2", "object_pb2", "pod_pb2", "policy_pb2", "state_service_pb2",
]
