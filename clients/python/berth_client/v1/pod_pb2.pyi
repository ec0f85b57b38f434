from berth_client.v1 import affinity_pb2 as _affinity_pb2
from berth_client.v1 import device_pb2 as _device_pb2
from berth_client.v1 import node_pb2 as _node_pb2
from berth_client.v1 import pod_runtime_pb2 as _pod_runtime_pb2
from berth_client.v1 import policy_pb2 as _policy_pb2
from berth_client.v1 import selector_pb2 as _selector_pb2
from berth_client.v1 import spread_pb2 as _spread_pb2
from berth_client.v1 import volume_pb2 as _volume_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

CONTAINER_RESTART_POLICY_ALWAYS: ContainerRestartPolicy
CONTAINER_RESTART_POLICY_UNSPECIFIED: ContainerRestartPolicy
DESCRIPTOR: _descriptor.FileDescriptor
PROTOCOL_SCTP: Protocol
PROTOCOL_TCP: Protocol
PROTOCOL_UDP: Protocol
PROTOCOL_UNSPECIFIED: Protocol
TOLERATION_OPERATOR_EQUAL: TolerationOperator
TOLERATION_OPERATOR_EXISTS: TolerationOperator
TOLERATION_OPERATOR_UNSPECIFIED: TolerationOperator

class Container(_message.Message):
    __slots__ = ["claims", "image", "name", "ports", "requests", "restart_policy"]
    class RequestsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    RESTART_POLICY_FIELD_NUMBER: _ClassVar[int]
    claims: _containers.RepeatedScalarFieldContainer[str]
    image: str
    name: str
    ports: _containers.RepeatedCompositeFieldContainer[ContainerPort]
    requests: _containers.ScalarMap[str, int]
    restart_policy: ContainerRestartPolicy
    def __init__(self, name: _Optional[str] = ..., requests: _Optional[_Mapping[str, int]] = ..., ports: _Optional[_Iterable[_Union[ContainerPort, _Mapping]]] = ..., restart_policy: _Optional[_Union[ContainerRestartPolicy, str]] = ..., claims: _Optional[_Iterable[str]] = ..., image: _Optional[str] = ...) -> None: ...

class ContainerPort(_message.Message):
    __slots__ = ["container_port", "host_ip", "host_port", "protocol"]
    CONTAINER_PORT_FIELD_NUMBER: _ClassVar[int]
    HOST_IP_FIELD_NUMBER: _ClassVar[int]
    HOST_PORT_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    container_port: int
    host_ip: str
    host_port: int
    protocol: Protocol
    def __init__(self, container_port: _Optional[int] = ..., host_port: _Optional[int] = ..., host_ip: _Optional[str] = ..., protocol: _Optional[_Union[Protocol, str]] = ...) -> None: ...

class Pod(_message.Message):
    __slots__ = ["affinity", "containers", "creation_time", "init_containers", "labels", "name", "namespace", "node_name", "node_selector", "nominated_node_name", "overhead", "pod_level_requests", "preempted", "preemption_policy", "priority", "priority_class_name", "ready", "resource_claims", "runtime", "scheduler_name", "scheduling_gates", "scheduling_group", "start_time", "terminating", "tolerations", "topology_spread_constraints", "uid", "volumes", "workload_selectors"]
    class LabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class NodeSelectorEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class OverheadEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class PodLevelRequestsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    AFFINITY_FIELD_NUMBER: _ClassVar[int]
    CONTAINERS_FIELD_NUMBER: _ClassVar[int]
    CREATION_TIME_FIELD_NUMBER: _ClassVar[int]
    INIT_CONTAINERS_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NODE_NAME_FIELD_NUMBER: _ClassVar[int]
    NODE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    NOMINATED_NODE_NAME_FIELD_NUMBER: _ClassVar[int]
    OVERHEAD_FIELD_NUMBER: _ClassVar[int]
    POD_LEVEL_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    PREEMPTED_FIELD_NUMBER: _ClassVar[int]
    PREEMPTION_POLICY_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_CLAIMS_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    SCHEDULER_NAME_FIELD_NUMBER: _ClassVar[int]
    SCHEDULING_GATES_FIELD_NUMBER: _ClassVar[int]
    SCHEDULING_GROUP_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    TERMINATING_FIELD_NUMBER: _ClassVar[int]
    TOLERATIONS_FIELD_NUMBER: _ClassVar[int]
    TOPOLOGY_SPREAD_CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    VOLUMES_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_SELECTORS_FIELD_NUMBER: _ClassVar[int]
    affinity: _affinity_pb2.Affinity
    containers: _containers.RepeatedCompositeFieldContainer[Container]
    creation_time: _timestamp_pb2.Timestamp
    init_containers: _containers.RepeatedCompositeFieldContainer[Container]
    labels: _containers.ScalarMap[str, str]
    name: str
    namespace: str
    node_name: str
    node_selector: _containers.ScalarMap[str, str]
    nominated_node_name: str
    overhead: _containers.ScalarMap[str, int]
    pod_level_requests: _containers.ScalarMap[str, int]
    preempted: bool
    preemption_policy: _policy_pb2.PreemptionPolicy
    priority: int
    priority_class_name: str
    ready: bool
    resource_claims: _containers.RepeatedCompositeFieldContainer[_device_pb2.PodResourceClaim]
    runtime: _pod_runtime_pb2.PodRuntime
    scheduler_name: str
    scheduling_gates: _containers.RepeatedScalarFieldContainer[str]
    scheduling_group: str
    start_time: _timestamp_pb2.Timestamp
    terminating: bool
    tolerations: _containers.RepeatedCompositeFieldContainer[Toleration]
    topology_spread_constraints: _containers.RepeatedCompositeFieldContainer[_spread_pb2.TopologySpreadConstraint]
    uid: str
    volumes: _containers.RepeatedCompositeFieldContainer[_volume_pb2.Volume]
    workload_selectors: _containers.RepeatedCompositeFieldContainer[_selector_pb2.LabelSelector]
    def __init__(self, uid: _Optional[str] = ..., namespace: _Optional[str] = ..., name: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., scheduler_name: _Optional[str] = ..., priority: _Optional[int] = ..., priority_class_name: _Optional[str] = ..., preemption_policy: _Optional[_Union[_policy_pb2.PreemptionPolicy, str]] = ..., containers: _Optional[_Iterable[_Union[Container, _Mapping]]] = ..., init_containers: _Optional[_Iterable[_Union[Container, _Mapping]]] = ..., overhead: _Optional[_Mapping[str, int]] = ..., node_selector: _Optional[_Mapping[str, str]] = ..., affinity: _Optional[_Union[_affinity_pb2.Affinity, _Mapping]] = ..., tolerations: _Optional[_Iterable[_Union[Toleration, _Mapping]]] = ..., topology_spread_constraints: _Optional[_Iterable[_Union[_spread_pb2.TopologySpreadConstraint, _Mapping]]] = ..., scheduling_gates: _Optional[_Iterable[str]] = ..., node_name: _Optional[str] = ..., nominated_node_name: _Optional[str] = ..., creation_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., start_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., ready: bool = ..., terminating: bool = ..., pod_level_requests: _Optional[_Mapping[str, int]] = ..., workload_selectors: _Optional[_Iterable[_Union[_selector_pb2.LabelSelector, _Mapping]]] = ..., preempted: bool = ..., resource_claims: _Optional[_Iterable[_Union[_device_pb2.PodResourceClaim, _Mapping]]] = ..., scheduling_group: _Optional[str] = ..., runtime: _Optional[_Union[_pod_runtime_pb2.PodRuntime, _Mapping]] = ..., volumes: _Optional[_Iterable[_Union[_volume_pb2.Volume, _Mapping]]] = ...) -> None: ...

class Toleration(_message.Message):
    __slots__ = ["effect", "key", "operator", "toleration_seconds", "value"]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    TOLERATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    effect: _node_pb2.TaintEffect
    key: str
    operator: TolerationOperator
    toleration_seconds: int
    value: str
    def __init__(self, key: _Optional[str] = ..., operator: _Optional[_Union[TolerationOperator, str]] = ..., value: _Optional[str] = ..., effect: _Optional[_Union[_node_pb2.TaintEffect, str]] = ..., toleration_seconds: _Optional[int] = ...) -> None: ...

class Protocol(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ContainerRestartPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class TolerationOperator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
