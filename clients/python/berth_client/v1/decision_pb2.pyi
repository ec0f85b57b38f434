from berth_client.v1 import device_pb2 as _device_pb2
from berth_client.v1 import object_pb2 as _object_pb2
from berth_client.v1 import queueing_pb2 as _queueing_pb2
from berth_client.v1 import volume_pb2 as _volume_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DECISION_TYPE_ADMIT: DecisionType
DECISION_TYPE_BIND: DecisionType
DECISION_TYPE_CLEAR_NOMINATION: DecisionType
DECISION_TYPE_DEALLOCATE_CLAIM: DecisionType
DECISION_TYPE_EVICT: DecisionType
DECISION_TYPE_EVICT_WORKLOAD: DecisionType
DECISION_TYPE_NOMINATE: DecisionType
DECISION_TYPE_UNSCHEDULABLE: DecisionType
DECISION_TYPE_UNSPECIFIED: DecisionType
DESCRIPTOR: _descriptor.FileDescriptor
EVICT_CAUSE_API: EvictCause
EVICT_CAUSE_DEFRAGMENT: EvictCause
EVICT_CAUSE_DESCHEDULE: EvictCause
EVICT_CAUSE_NODE_PRESSURE: EvictCause
EVICT_CAUSE_PREEMPTION: EvictCause
EVICT_CAUSE_QUOTA: EvictCause
EVICT_CAUSE_TAINT: EvictCause
EVICT_CAUSE_UNSPECIFIED: EvictCause

class Admit(_message.Message):
    __slots__ = ["cluster_queue", "pod_sets", "workload_name", "workload_namespace", "workload_uid"]
    CLUSTER_QUEUE_FIELD_NUMBER: _ClassVar[int]
    POD_SETS_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_NAME_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_UID_FIELD_NUMBER: _ClassVar[int]
    cluster_queue: str
    pod_sets: _containers.RepeatedCompositeFieldContainer[_queueing_pb2.PodSetAdmission]
    workload_name: str
    workload_namespace: str
    workload_uid: str
    def __init__(self, workload_namespace: _Optional[str] = ..., workload_name: _Optional[str] = ..., workload_uid: _Optional[str] = ..., cluster_queue: _Optional[str] = ..., pod_sets: _Optional[_Iterable[_Union[_queueing_pb2.PodSetAdmission, _Mapping]]] = ...) -> None: ...

class Bind(_message.Message):
    __slots__ = ["claims", "group", "held_pod", "node", "volumes"]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    HELD_POD_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    VOLUMES_FIELD_NUMBER: _ClassVar[int]
    claims: _containers.RepeatedCompositeFieldContainer[_device_pb2.ClaimAllocation]
    group: str
    held_pod: HeldPod
    node: str
    volumes: _containers.RepeatedCompositeFieldContainer[_volume_pb2.VolumeBinding]
    def __init__(self, node: _Optional[str] = ..., group: _Optional[str] = ..., claims: _Optional[_Iterable[_Union[_device_pb2.ClaimAllocation, _Mapping]]] = ..., volumes: _Optional[_Iterable[_Union[_volume_pb2.VolumeBinding, _Mapping]]] = ..., held_pod: _Optional[_Union[HeldPod, _Mapping]] = ...) -> None: ...

class ClearNomination(_message.Message):
    __slots__ = ["previous_node", "reason"]
    PREVIOUS_NODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    previous_node: str
    reason: str
    def __init__(self, previous_node: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ["admit", "bind", "clear_nomination", "deallocate_claim", "evict", "evict_workload", "nominate", "pod", "revision", "scheduler_name", "time", "unschedulable"]
    ADMIT_FIELD_NUMBER: _ClassVar[int]
    BIND_FIELD_NUMBER: _ClassVar[int]
    CLEAR_NOMINATION_FIELD_NUMBER: _ClassVar[int]
    DEALLOCATE_CLAIM_FIELD_NUMBER: _ClassVar[int]
    EVICT_FIELD_NUMBER: _ClassVar[int]
    EVICT_WORKLOAD_FIELD_NUMBER: _ClassVar[int]
    NOMINATE_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    SCHEDULER_NAME_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    UNSCHEDULABLE_FIELD_NUMBER: _ClassVar[int]
    admit: Admit
    bind: Bind
    clear_nomination: ClearNomination
    deallocate_claim: _device_pb2.DeallocateClaim
    evict: Evict
    evict_workload: WorkloadEviction
    nominate: Nominate
    pod: _object_pb2.PodRef
    revision: int
    scheduler_name: str
    time: _timestamp_pb2.Timestamp
    unschedulable: Unschedulable
    def __init__(self, revision: _Optional[int] = ..., time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., scheduler_name: _Optional[str] = ..., pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., bind: _Optional[_Union[Bind, _Mapping]] = ..., evict: _Optional[_Union[Evict, _Mapping]] = ..., nominate: _Optional[_Union[Nominate, _Mapping]] = ..., clear_nomination: _Optional[_Union[ClearNomination, _Mapping]] = ..., unschedulable: _Optional[_Union[Unschedulable, _Mapping]] = ..., deallocate_claim: _Optional[_Union[_device_pb2.DeallocateClaim, _Mapping]] = ..., admit: _Optional[_Union[Admit, _Mapping]] = ..., evict_workload: _Optional[_Union[WorkloadEviction, _Mapping]] = ...) -> None: ...

class Evict(_message.Message):
    __slots__ = ["cause", "grace_period_seconds", "node", "preemptor", "reason", "victim"]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    GRACE_PERIOD_SECONDS_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    PREEMPTOR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VICTIM_FIELD_NUMBER: _ClassVar[int]
    cause: EvictCause
    grace_period_seconds: int
    node: str
    preemptor: _object_pb2.PodRef
    reason: str
    victim: _object_pb2.PodRef
    def __init__(self, victim: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., node: _Optional[str] = ..., preemptor: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., reason: _Optional[str] = ..., cause: _Optional[_Union[EvictCause, str]] = ..., grace_period_seconds: _Optional[int] = ...) -> None: ...

class HeldPod(_message.Message):
    __slots__ = ["index", "pod_set", "workload_name", "workload_uid"]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    POD_SET_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_NAME_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_UID_FIELD_NUMBER: _ClassVar[int]
    index: int
    pod_set: str
    workload_name: str
    workload_uid: str
    def __init__(self, workload_name: _Optional[str] = ..., workload_uid: _Optional[str] = ..., pod_set: _Optional[str] = ..., index: _Optional[int] = ...) -> None: ...

class NodeReasons(_message.Message):
    __slots__ = ["node", "reasons", "unresolvable"]
    NODE_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    UNRESOLVABLE_FIELD_NUMBER: _ClassVar[int]
    node: str
    reasons: _containers.RepeatedScalarFieldContainer[str]
    unresolvable: bool
    def __init__(self, node: _Optional[str] = ..., reasons: _Optional[_Iterable[str]] = ..., unresolvable: bool = ...) -> None: ...

class Nominate(_message.Message):
    __slots__ = ["node"]
    NODE_FIELD_NUMBER: _ClassVar[int]
    node: str
    def __init__(self, node: _Optional[str] = ...) -> None: ...

class Unschedulable(_message.Message):
    __slots__ = ["message", "node_reasons", "omitted_nodes"]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    NODE_REASONS_FIELD_NUMBER: _ClassVar[int]
    OMITTED_NODES_FIELD_NUMBER: _ClassVar[int]
    message: str
    node_reasons: _containers.RepeatedCompositeFieldContainer[NodeReasons]
    omitted_nodes: int
    def __init__(self, message: _Optional[str] = ..., node_reasons: _Optional[_Iterable[_Union[NodeReasons, _Mapping]]] = ..., omitted_nodes: _Optional[int] = ...) -> None: ...

class WorkloadEviction(_message.Message):
    __slots__ = ["cluster_queue", "message", "preempted_by", "reason", "workload_name", "workload_namespace", "workload_uid"]
    CLUSTER_QUEUE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PREEMPTED_BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_NAME_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_UID_FIELD_NUMBER: _ClassVar[int]
    cluster_queue: str
    message: str
    preempted_by: str
    reason: str
    workload_name: str
    workload_namespace: str
    workload_uid: str
    def __init__(self, workload_namespace: _Optional[str] = ..., workload_name: _Optional[str] = ..., workload_uid: _Optional[str] = ..., cluster_queue: _Optional[str] = ..., reason: _Optional[str] = ..., preempted_by: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class DecisionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class EvictCause(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
