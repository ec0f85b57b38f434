from berth_client.v1 import decision_pb2 as _decision_pb2
from berth_client.v1 import deschedule_pb2 as _deschedule_pb2
from berth_client.v1 import group_pb2 as _group_pb2
from berth_client.v1 import node_pb2 as _node_pb2
from berth_client.v1 import object_pb2 as _object_pb2
from berth_client.v1 import pod_pb2 as _pod_pb2
from berth_client.v1 import queueing_pb2 as _queueing_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
QUEUE_STATE_ACTIVE: QueueState
QUEUE_STATE_BACKOFF: QueueState
QUEUE_STATE_BINDING: QueueState
QUEUE_STATE_BOUND: QueueState
QUEUE_STATE_GATED: QueueState
QUEUE_STATE_IGNORED: QueueState
QUEUE_STATE_SCHEDULING: QueueState
QUEUE_STATE_UNSCHEDULABLE: QueueState
QUEUE_STATE_UNSPECIFIED: QueueState
REPLICA_ROLE_FOLLOWER: ReplicaRole
REPLICA_ROLE_LEADER: ReplicaRole
REPLICA_ROLE_UNSPECIFIED: ReplicaRole
SIMULATE_RESULT_BOUND: SimulateResult
SIMULATE_RESULT_DEALLOCATED: SimulateResult
SIMULATE_RESULT_ERROR: SimulateResult
SIMULATE_RESULT_GATED: SimulateResult
SIMULATE_RESULT_NOMINATED: SimulateResult
SIMULATE_RESULT_SKIPPED: SimulateResult
SIMULATE_RESULT_UNSCHEDULABLE: SimulateResult
SIMULATE_RESULT_UNSPECIFIED: SimulateResult

class ExplainRequest(_message.Message):
    __slots__ = ["pod"]
    POD_FIELD_NUMBER: _ClassVar[int]
    pod: _object_pb2.PodRef
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ...) -> None: ...

class ExplainResponse(_message.Message):
    __slots__ = ["attempts", "backoff_until", "bind_revision", "device_reasons", "enqueued_time", "eviction", "gating_message", "last_attempt_time", "last_bind_failure", "last_diagnosis", "node", "nominated_node", "pod", "pod_group", "priority", "rejecting_plugins", "requests", "scheduler_name", "shortfalls", "state", "workload"]
    class RequestsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_UNTIL_FIELD_NUMBER: _ClassVar[int]
    BIND_REVISION_FIELD_NUMBER: _ClassVar[int]
    DEVICE_REASONS_FIELD_NUMBER: _ClassVar[int]
    ENQUEUED_TIME_FIELD_NUMBER: _ClassVar[int]
    EVICTION_FIELD_NUMBER: _ClassVar[int]
    GATING_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    LAST_ATTEMPT_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_BIND_FAILURE_FIELD_NUMBER: _ClassVar[int]
    LAST_DIAGNOSIS_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    NOMINATED_NODE_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    POD_GROUP_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    REJECTING_PLUGINS_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULER_NAME_FIELD_NUMBER: _ClassVar[int]
    SHORTFALLS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_FIELD_NUMBER: _ClassVar[int]
    attempts: int
    backoff_until: _timestamp_pb2.Timestamp
    bind_revision: int
    device_reasons: _containers.RepeatedCompositeFieldContainer[NodeDeviceReasons]
    enqueued_time: _timestamp_pb2.Timestamp
    eviction: _decision_pb2.Evict
    gating_message: str
    last_attempt_time: _timestamp_pb2.Timestamp
    last_bind_failure: str
    last_diagnosis: _decision_pb2.Unschedulable
    node: str
    nominated_node: str
    pod: _object_pb2.PodRef
    pod_group: _group_pb2.PodGroupStatus
    priority: int
    rejecting_plugins: _containers.RepeatedScalarFieldContainer[str]
    requests: _containers.ScalarMap[str, int]
    scheduler_name: str
    shortfalls: _containers.RepeatedCompositeFieldContainer[NodeShortfall]
    state: QueueState
    workload: _queueing_pb2.WorkloadStatus
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., scheduler_name: _Optional[str] = ..., priority: _Optional[int] = ..., state: _Optional[_Union[QueueState, str]] = ..., attempts: _Optional[int] = ..., backoff_until: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., nominated_node: _Optional[str] = ..., node: _Optional[str] = ..., bind_revision: _Optional[int] = ..., last_diagnosis: _Optional[_Union[_decision_pb2.Unschedulable, _Mapping]] = ..., rejecting_plugins: _Optional[_Iterable[str]] = ..., last_attempt_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., enqueued_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_bind_failure: _Optional[str] = ..., gating_message: _Optional[str] = ..., pod_group: _Optional[_Union[_group_pb2.PodGroupStatus, _Mapping]] = ..., eviction: _Optional[_Union[_decision_pb2.Evict, _Mapping]] = ..., device_reasons: _Optional[_Iterable[_Union[NodeDeviceReasons, _Mapping]]] = ..., requests: _Optional[_Mapping[str, int]] = ..., shortfalls: _Optional[_Iterable[_Union[NodeShortfall, _Mapping]]] = ..., workload: _Optional[_Union[_queueing_pb2.WorkloadStatus, _Mapping]] = ...) -> None: ...

class ListDeviceObjectsRequest(_message.Message):
    __slots__ = ["kind", "namespace"]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    kind: _object_pb2.ObjectKind
    namespace: str
    def __init__(self, kind: _Optional[_Union[_object_pb2.ObjectKind, str]] = ..., namespace: _Optional[str] = ...) -> None: ...

class ListDeviceObjectsResponse(_message.Message):
    __slots__ = ["objects"]
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    objects: _containers.RepeatedCompositeFieldContainer[_object_pb2.Object]
    def __init__(self, objects: _Optional[_Iterable[_Union[_object_pb2.Object, _Mapping]]] = ...) -> None: ...

class ListNodesRequest(_message.Message):
    __slots__ = ["match_labels", "page_size", "page_token"]
    class MatchLabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_LABELS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_labels: _containers.ScalarMap[str, str]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., match_labels: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ListNodesResponse(_message.Message):
    __slots__ = ["next_page_token", "nodes"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    nodes: _containers.RepeatedCompositeFieldContainer[NodeUsage]
    def __init__(self, nodes: _Optional[_Iterable[_Union[NodeUsage, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListNominationsRequest(_message.Message):
    __slots__ = ["node", "page_size", "page_token"]
    NODE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    node: str
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., node: _Optional[str] = ...) -> None: ...

class ListNominationsResponse(_message.Message):
    __slots__ = ["next_page_token", "nominations"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    NOMINATIONS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    nominations: _containers.RepeatedCompositeFieldContainer[Nomination]
    def __init__(self, nominations: _Optional[_Iterable[_Union[Nomination, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListPendingRequest(_message.Message):
    __slots__ = ["page_size", "page_token", "scheduler_name", "states"]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SCHEDULER_NAME_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    scheduler_name: str
    states: _containers.RepeatedScalarFieldContainer[QueueState]
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., states: _Optional[_Iterable[_Union[QueueState, str]]] = ..., scheduler_name: _Optional[str] = ...) -> None: ...

class ListPendingResponse(_message.Message):
    __slots__ = ["next_page_token", "pods"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PODS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    pods: _containers.RepeatedCompositeFieldContainer[PendingPod]
    def __init__(self, pods: _Optional[_Iterable[_Union[PendingPod, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListPodsRequest(_message.Message):
    __slots__ = ["contains", "namespace", "node", "page_size", "page_token", "scheduler_name", "states"]
    CONTAINS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SCHEDULER_NAME_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    contains: str
    namespace: str
    node: str
    page_size: int
    page_token: str
    scheduler_name: str
    states: _containers.RepeatedScalarFieldContainer[QueueState]
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., states: _Optional[_Iterable[_Union[QueueState, str]]] = ..., scheduler_name: _Optional[str] = ..., namespace: _Optional[str] = ..., contains: _Optional[str] = ..., node: _Optional[str] = ...) -> None: ...

class ListPodsResponse(_message.Message):
    __slots__ = ["next_page_token", "pods"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PODS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    pods: _containers.RepeatedCompositeFieldContainer[PendingPod]
    def __init__(self, pods: _Optional[_Iterable[_Union[PendingPod, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListQueueObjectsRequest(_message.Message):
    __slots__ = ["kind", "namespace"]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    kind: _object_pb2.ObjectKind
    namespace: str
    def __init__(self, kind: _Optional[_Union[_object_pb2.ObjectKind, str]] = ..., namespace: _Optional[str] = ...) -> None: ...

class ListQueueObjectsResponse(_message.Message):
    __slots__ = ["cluster_queue_statuses", "objects", "workload_statuses"]
    CLUSTER_QUEUE_STATUSES_FIELD_NUMBER: _ClassVar[int]
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_STATUSES_FIELD_NUMBER: _ClassVar[int]
    cluster_queue_statuses: _containers.RepeatedCompositeFieldContainer[_queueing_pb2.ClusterQueueStatus]
    objects: _containers.RepeatedCompositeFieldContainer[_object_pb2.Object]
    workload_statuses: _containers.RepeatedCompositeFieldContainer[_queueing_pb2.WorkloadStatus]
    def __init__(self, objects: _Optional[_Iterable[_Union[_object_pb2.Object, _Mapping]]] = ..., cluster_queue_statuses: _Optional[_Iterable[_Union[_queueing_pb2.ClusterQueueStatus, _Mapping]]] = ..., workload_statuses: _Optional[_Iterable[_Union[_queueing_pb2.WorkloadStatus, _Mapping]]] = ...) -> None: ...

class ListVolumeObjectsRequest(_message.Message):
    __slots__ = ["kind", "namespace"]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    kind: _object_pb2.ObjectKind
    namespace: str
    def __init__(self, kind: _Optional[_Union[_object_pb2.ObjectKind, str]] = ..., namespace: _Optional[str] = ...) -> None: ...

class ListVolumeObjectsResponse(_message.Message):
    __slots__ = ["objects"]
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    objects: _containers.RepeatedCompositeFieldContainer[_object_pb2.Object]
    def __init__(self, objects: _Optional[_Iterable[_Union[_object_pb2.Object, _Mapping]]] = ...) -> None: ...

class NodeDeviceReasons(_message.Message):
    __slots__ = ["node", "reasons"]
    NODE_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    node: str
    reasons: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, node: _Optional[str] = ..., reasons: _Optional[_Iterable[str]] = ...) -> None: ...

class NodeShortfall(_message.Message):
    __slots__ = ["node", "resources"]
    NODE_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    node: str
    resources: _containers.RepeatedCompositeFieldContainer[ResourceShortfall]
    def __init__(self, node: _Optional[str] = ..., resources: _Optional[_Iterable[_Union[ResourceShortfall, _Mapping]]] = ...) -> None: ...

class NodeUsage(_message.Message):
    __slots__ = ["allocatable", "conditions", "derived_taints", "images", "labels", "name", "nominated_pod_count", "non_zero_requested", "pod_count", "requested", "taints", "unschedulable"]
    class AllocatableEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class LabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class NonZeroRequestedEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class RequestedEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ALLOCATABLE_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    DERIVED_TAINTS_FIELD_NUMBER: _ClassVar[int]
    IMAGES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NOMINATED_POD_COUNT_FIELD_NUMBER: _ClassVar[int]
    NON_ZERO_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    POD_COUNT_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_FIELD_NUMBER: _ClassVar[int]
    TAINTS_FIELD_NUMBER: _ClassVar[int]
    UNSCHEDULABLE_FIELD_NUMBER: _ClassVar[int]
    allocatable: _containers.ScalarMap[str, int]
    conditions: _containers.RepeatedCompositeFieldContainer[_node_pb2.NodeCondition]
    derived_taints: _containers.RepeatedCompositeFieldContainer[_node_pb2.Taint]
    images: _containers.RepeatedCompositeFieldContainer[_node_pb2.ContainerImage]
    labels: _containers.ScalarMap[str, str]
    name: str
    nominated_pod_count: int
    non_zero_requested: _containers.ScalarMap[str, int]
    pod_count: int
    requested: _containers.ScalarMap[str, int]
    taints: _containers.RepeatedCompositeFieldContainer[_node_pb2.Taint]
    unschedulable: bool
    def __init__(self, name: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., taints: _Optional[_Iterable[_Union[_node_pb2.Taint, _Mapping]]] = ..., unschedulable: bool = ..., allocatable: _Optional[_Mapping[str, int]] = ..., requested: _Optional[_Mapping[str, int]] = ..., non_zero_requested: _Optional[_Mapping[str, int]] = ..., pod_count: _Optional[int] = ..., nominated_pod_count: _Optional[int] = ..., conditions: _Optional[_Iterable[_Union[_node_pb2.NodeCondition, _Mapping]]] = ..., derived_taints: _Optional[_Iterable[_Union[_node_pb2.Taint, _Mapping]]] = ..., images: _Optional[_Iterable[_Union[_node_pb2.ContainerImage, _Mapping]]] = ...) -> None: ...

class NodeVerdict(_message.Message):
    __slots__ = ["feasible", "node", "plugin_scores", "reasons", "scored", "total_score", "unresolvable"]
    class PluginScoresEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    FEASIBLE_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_SCORES_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    SCORED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SCORE_FIELD_NUMBER: _ClassVar[int]
    UNRESOLVABLE_FIELD_NUMBER: _ClassVar[int]
    feasible: bool
    node: str
    plugin_scores: _containers.ScalarMap[str, int]
    reasons: _containers.RepeatedScalarFieldContainer[str]
    scored: bool
    total_score: int
    unresolvable: bool
    def __init__(self, node: _Optional[str] = ..., feasible: bool = ..., reasons: _Optional[_Iterable[str]] = ..., total_score: _Optional[int] = ..., plugin_scores: _Optional[_Mapping[str, int]] = ..., scored: bool = ..., unresolvable: bool = ...) -> None: ...

class Nomination(_message.Message):
    __slots__ = ["node", "pod", "priority", "restored", "revision"]
    NODE_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    RESTORED_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    node: str
    pod: _object_pb2.PodRef
    priority: int
    restored: bool
    revision: int
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., node: _Optional[str] = ..., priority: _Optional[int] = ..., revision: _Optional[int] = ..., restored: bool = ...) -> None: ...

class PendingPod(_message.Message):
    __slots__ = ["attempts", "bind_revision", "enqueued_time", "node", "nominated_node", "pod", "priority", "scheduler_name", "state"]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    BIND_REVISION_FIELD_NUMBER: _ClassVar[int]
    ENQUEUED_TIME_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    NOMINATED_NODE_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    SCHEDULER_NAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    attempts: int
    bind_revision: int
    enqueued_time: _timestamp_pb2.Timestamp
    node: str
    nominated_node: str
    pod: _object_pb2.PodRef
    priority: int
    scheduler_name: str
    state: QueueState
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., scheduler_name: _Optional[str] = ..., state: _Optional[_Union[QueueState, str]] = ..., priority: _Optional[int] = ..., attempts: _Optional[int] = ..., enqueued_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., nominated_node: _Optional[str] = ..., node: _Optional[str] = ..., bind_revision: _Optional[int] = ...) -> None: ...

class QueueStatsRequest(_message.Message):
    __slots__ = ["scheduler_name"]
    SCHEDULER_NAME_FIELD_NUMBER: _ClassVar[int]
    scheduler_name: str
    def __init__(self, scheduler_name: _Optional[str] = ...) -> None: ...

class QueueStatsResponse(_message.Message):
    __slots__ = ["active", "admission_round_pending", "attempts_error", "attempts_scheduled", "attempts_unschedulable", "backoff", "binding", "bound", "gated", "ignored", "in_flight", "unschedulable"]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    ADMISSION_ROUND_PENDING_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_ERROR_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_SCHEDULED_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_UNSCHEDULABLE_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_FIELD_NUMBER: _ClassVar[int]
    BINDING_FIELD_NUMBER: _ClassVar[int]
    BOUND_FIELD_NUMBER: _ClassVar[int]
    GATED_FIELD_NUMBER: _ClassVar[int]
    IGNORED_FIELD_NUMBER: _ClassVar[int]
    IN_FLIGHT_FIELD_NUMBER: _ClassVar[int]
    UNSCHEDULABLE_FIELD_NUMBER: _ClassVar[int]
    active: int
    admission_round_pending: bool
    attempts_error: int
    attempts_scheduled: int
    attempts_unschedulable: int
    backoff: int
    binding: int
    bound: int
    gated: int
    ignored: int
    in_flight: int
    unschedulable: int
    def __init__(self, active: _Optional[int] = ..., backoff: _Optional[int] = ..., unschedulable: _Optional[int] = ..., gated: _Optional[int] = ..., in_flight: _Optional[int] = ..., binding: _Optional[int] = ..., bound: _Optional[int] = ..., ignored: _Optional[int] = ..., attempts_scheduled: _Optional[int] = ..., attempts_unschedulable: _Optional[int] = ..., attempts_error: _Optional[int] = ..., admission_round_pending: bool = ...) -> None: ...

class ResourceShortfall(_message.Message):
    __slots__ = ["allocatable", "free", "requested", "resource"]
    ALLOCATABLE_FIELD_NUMBER: _ClassVar[int]
    FREE_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    allocatable: int
    free: int
    requested: int
    resource: str
    def __init__(self, resource: _Optional[str] = ..., requested: _Optional[int] = ..., free: _Optional[int] = ..., allocatable: _Optional[int] = ...) -> None: ...

class ServerInfoRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ServerInfoResponse(_message.Message):
    __slots__ = ["awaiting_relist", "leader", "role", "scheduling_held", "term", "version"]
    AWAITING_RELIST_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SCHEDULING_HELD_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    awaiting_relist: bool
    leader: str
    role: ReplicaRole
    scheduling_held: bool
    term: int
    version: str
    def __init__(self, version: _Optional[str] = ..., awaiting_relist: bool = ..., scheduling_held: bool = ..., role: _Optional[_Union[ReplicaRole, str]] = ..., leader: _Optional[str] = ..., term: _Optional[int] = ...) -> None: ...

class SimulateAttempt(_message.Message):
    __slots__ = ["claims", "deallocated", "message", "node", "nodes", "plugin", "pod", "result", "scores_report_only", "tie_break", "top_nodes", "via_nominated_node", "victims"]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    DEALLOCATED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    SCORES_REPORT_ONLY_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_FIELD_NUMBER: _ClassVar[int]
    TOP_NODES_FIELD_NUMBER: _ClassVar[int]
    VIA_NOMINATED_NODE_FIELD_NUMBER: _ClassVar[int]
    VICTIMS_FIELD_NUMBER: _ClassVar[int]
    claims: _containers.RepeatedCompositeFieldContainer[SimulateClaim]
    deallocated: _containers.RepeatedScalarFieldContainer[str]
    message: str
    node: str
    nodes: _containers.RepeatedCompositeFieldContainer[NodeVerdict]
    plugin: str
    pod: _object_pb2.PodRef
    result: SimulateResult
    scores_report_only: bool
    tie_break: str
    top_nodes: _containers.RepeatedScalarFieldContainer[str]
    via_nominated_node: bool
    victims: _containers.RepeatedCompositeFieldContainer[_object_pb2.PodRef]
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., result: _Optional[_Union[SimulateResult, str]] = ..., node: _Optional[str] = ..., victims: _Optional[_Iterable[_Union[_object_pb2.PodRef, _Mapping]]] = ..., nodes: _Optional[_Iterable[_Union[NodeVerdict, _Mapping]]] = ..., message: _Optional[str] = ..., top_nodes: _Optional[_Iterable[str]] = ..., tie_break: _Optional[str] = ..., via_nominated_node: bool = ..., scores_report_only: bool = ..., plugin: _Optional[str] = ..., claims: _Optional[_Iterable[_Union[SimulateClaim, _Mapping]]] = ..., deallocated: _Optional[_Iterable[str]] = ...) -> None: ...

class SimulateClaim(_message.Message):
    __slots__ = ["claim", "devices", "entry"]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    claim: str
    devices: _containers.RepeatedScalarFieldContainer[str]
    entry: str
    def __init__(self, entry: _Optional[str] = ..., claim: _Optional[str] = ..., devices: _Optional[_Iterable[str]] = ...) -> None: ...

class SimulateRequest(_message.Message):
    __slots__ = ["cluster_delta", "cluster_removals", "pods", "scheduler_name", "summary"]
    CLUSTER_DELTA_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_REMOVALS_FIELD_NUMBER: _ClassVar[int]
    PODS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULER_NAME_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    cluster_delta: _containers.RepeatedCompositeFieldContainer[_object_pb2.Object]
    cluster_removals: _containers.RepeatedCompositeFieldContainer[_object_pb2.ObjectRef]
    pods: _containers.RepeatedCompositeFieldContainer[_pod_pb2.Pod]
    scheduler_name: str
    summary: bool
    def __init__(self, cluster_delta: _Optional[_Iterable[_Union[_object_pb2.Object, _Mapping]]] = ..., cluster_removals: _Optional[_Iterable[_Union[_object_pb2.ObjectRef, _Mapping]]] = ..., pods: _Optional[_Iterable[_Union[_pod_pb2.Pod, _Mapping]]] = ..., scheduler_name: _Optional[str] = ..., summary: bool = ...) -> None: ...

class SimulateResponse(_message.Message):
    __slots__ = ["attempts"]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    attempts: _containers.RepeatedCompositeFieldContainer[SimulateAttempt]
    def __init__(self, attempts: _Optional[_Iterable[_Union[SimulateAttempt, _Mapping]]] = ...) -> None: ...

class QueueState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class SimulateResult(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ReplicaRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
