from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
TAINT_EFFECT_NO_EXECUTE: TaintEffect
TAINT_EFFECT_NO_SCHEDULE: TaintEffect
TAINT_EFFECT_PREFER_NO_SCHEDULE: TaintEffect
TAINT_EFFECT_UNSPECIFIED: TaintEffect

class Node(_message.Message):
    __slots__ = ["allocatable", "labels", "name", "taints", "unschedulable"]
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
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAINTS_FIELD_NUMBER: _ClassVar[int]
    UNSCHEDULABLE_FIELD_NUMBER: _ClassVar[int]
    allocatable: _containers.ScalarMap[str, int]
    labels: _containers.ScalarMap[str, str]
    name: str
    taints: _containers.RepeatedCompositeFieldContainer[Taint]
    unschedulable: bool
    def __init__(self, name: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., taints: _Optional[_Iterable[_Union[Taint, _Mapping]]] = ..., allocatable: _Optional[_Mapping[str, int]] = ..., unschedulable: bool = ...) -> None: ...

class Taint(_message.Message):
    __slots__ = ["effect", "key", "value"]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    effect: TaintEffect
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ..., effect: _Optional[_Union[TaintEffect, str]] = ...) -> None: ...

class TaintEffect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
