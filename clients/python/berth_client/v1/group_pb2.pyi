from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class PodGroup(_message.Message):
    __slots__ = ["min_count", "name", "namespace", "topology_key"]
    MIN_COUNT_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOPOLOGY_KEY_FIELD_NUMBER: _ClassVar[int]
    min_count: int
    name: str
    namespace: str
    topology_key: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., min_count: _Optional[int] = ..., topology_key: _Optional[str] = ...) -> None: ...

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
