from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

CONDITION_STATUS_FALSE: ConditionStatus
CONDITION_STATUS_TRUE: ConditionStatus
CONDITION_STATUS_UNKNOWN: ConditionStatus
CONDITION_STATUS_UNSPECIFIED: ConditionStatus
DESCRIPTOR: _descriptor.FileDescriptor
NODE_CONDITION_TYPE_DISK_PRESSURE: NodeConditionType
NODE_CONDITION_TYPE_MEMORY_PRESSURE: NodeConditionType
NODE_CONDITION_TYPE_NETWORK_UNAVAILABLE: NodeConditionType
NODE_CONDITION_TYPE_PID_PRESSURE: NodeConditionType
NODE_CONDITION_TYPE_READY: NodeConditionType
NODE_CONDITION_TYPE_UNSPECIFIED: NodeConditionType
TAINT_EFFECT_NO_EXECUTE: TaintEffect
TAINT_EFFECT_NO_SCHEDULE: TaintEffect
TAINT_EFFECT_PREFER_NO_SCHEDULE: TaintEffect
TAINT_EFFECT_UNSPECIFIED: TaintEffect

class ContainerImage(_message.Message):
    __slots__ = ["names", "size_bytes"]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    names: _containers.RepeatedScalarFieldContainer[str]
    size_bytes: int
    def __init__(self, names: _Optional[_Iterable[str]] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class Node(_message.Message):
    __slots__ = ["allocatable", "conditions", "images", "labels", "name", "taints", "unschedulable"]
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
    ALLOCATABLE_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    IMAGES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAINTS_FIELD_NUMBER: _ClassVar[int]
    UNSCHEDULABLE_FIELD_NUMBER: _ClassVar[int]
    allocatable: _containers.ScalarMap[str, int]
    conditions: _containers.RepeatedCompositeFieldContainer[NodeCondition]
    images: _containers.RepeatedCompositeFieldContainer[ContainerImage]
    labels: _containers.ScalarMap[str, str]
    name: str
    taints: _containers.RepeatedCompositeFieldContainer[Taint]
    unschedulable: bool
    def __init__(self, name: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., taints: _Optional[_Iterable[_Union[Taint, _Mapping]]] = ..., allocatable: _Optional[_Mapping[str, int]] = ..., unschedulable: bool = ..., conditions: _Optional[_Iterable[_Union[NodeCondition, _Mapping]]] = ..., images: _Optional[_Iterable[_Union[ContainerImage, _Mapping]]] = ...) -> None: ...

class NodeCondition(_message.Message):
    __slots__ = ["last_transition_time", "message", "reason", "status", "type"]
    LAST_TRANSITION_TIME_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    last_transition_time: _timestamp_pb2.Timestamp
    message: str
    reason: str
    status: ConditionStatus
    type: NodeConditionType
    def __init__(self, type: _Optional[_Union[NodeConditionType, str]] = ..., status: _Optional[_Union[ConditionStatus, str]] = ..., last_transition_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class Taint(_message.Message):
    __slots__ = ["effect", "key", "value"]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    effect: TaintEffect
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ..., effect: _Optional[_Union[TaintEffect, str]] = ...) -> None: ...

class NodeConditionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ConditionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class TaintEffect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
