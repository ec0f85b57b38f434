from berth_client.v1 import decision_pb2 as _decision_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WatchRequest(_message.Message):
    __slots__ = ["from_revision", "log_id", "scheduler_name", "types"]
    FROM_REVISION_FIELD_NUMBER: _ClassVar[int]
    LOG_ID_FIELD_NUMBER: _ClassVar[int]
    SCHEDULER_NAME_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    from_revision: int
    log_id: str
    scheduler_name: str
    types: _containers.RepeatedScalarFieldContainer[_decision_pb2.DecisionType]
    def __init__(self, from_revision: _Optional[int] = ..., scheduler_name: _Optional[str] = ..., types: _Optional[_Iterable[_Union[_decision_pb2.DecisionType, str]]] = ..., log_id: _Optional[str] = ...) -> None: ...

class WatchResponse(_message.Message):
    __slots__ = ["decisions", "log_id", "next_revision"]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    LOG_ID_FIELD_NUMBER: _ClassVar[int]
    NEXT_REVISION_FIELD_NUMBER: _ClassVar[int]
    decisions: _containers.RepeatedCompositeFieldContainer[_decision_pb2.Decision]
    log_id: str
    next_revision: int
    def __init__(self, decisions: _Optional[_Iterable[_Union[_decision_pb2.Decision, _Mapping]]] = ..., next_revision: _Optional[int] = ..., log_id: _Optional[str] = ...) -> None: ...
