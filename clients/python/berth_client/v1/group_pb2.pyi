from berth_client.v1 import policy_pb2 as _policy_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
DISRUPTION_MODE_ALL: DisruptionMode
DISRUPTION_MODE_SINGLE: DisruptionMode
DISRUPTION_MODE_UNSPECIFIED: DisruptionMode

class CompositePodGroup(_message.Message):
    __slots__ = ["min_group_count", "name", "namespace", "parent_composite_pod_group_name", "priority", "priority_class_name"]
    MIN_GROUP_COUNT_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARENT_COMPOSITE_POD_GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    min_group_count: int
    name: str
    namespace: str
    parent_composite_pod_group_name: str
    priority: int
    priority_class_name: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., parent_composite_pod_group_name: _Optional[str] = ..., min_group_count: _Optional[int] = ..., priority_class_name: _Optional[str] = ..., priority: _Optional[int] = ...) -> None: ...

class PodGroup(_message.Message):
    __slots__ = ["disruption_mode", "labels", "min_count", "name", "namespace", "parent_composite_pod_group_name", "preemption_policy", "priority", "priority_class_name", "topology_key"]
    class LabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    DISRUPTION_MODE_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    MIN_COUNT_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARENT_COMPOSITE_POD_GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
    PREEMPTION_POLICY_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    TOPOLOGY_KEY_FIELD_NUMBER: _ClassVar[int]
    disruption_mode: DisruptionMode
    labels: _containers.ScalarMap[str, str]
    min_count: int
    name: str
    namespace: str
    parent_composite_pod_group_name: str
    preemption_policy: _policy_pb2.PreemptionPolicy
    priority: int
    priority_class_name: str
    topology_key: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., min_count: _Optional[int] = ..., topology_key: _Optional[str] = ..., priority_class_name: _Optional[str] = ..., priority: _Optional[int] = ..., disruption_mode: _Optional[_Union[DisruptionMode, str]] = ..., preemption_policy: _Optional[_Union[_policy_pb2.PreemptionPolicy, str]] = ..., labels: _Optional[_Mapping[str, str]] = ..., parent_composite_pod_group_name: _Optional[str] = ...) -> None: ...

class PodGroupStatus(_message.Message):
    __slots__ = ["exists", "members", "min_count", "name", "placed"]
    EXISTS_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    MIN_COUNT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    exists: bool
    members: int
    min_count: int
    name: str
    placed: int
    def __init__(self, name: _Optional[str] = ..., exists: bool = ..., min_count: _Optional[int] = ..., members: _Optional[int] = ..., placed: _Optional[int] = ...) -> None: ...

class DisruptionMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
