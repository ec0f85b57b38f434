from berth_client.v1 import object_pb2 as _object_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DescheduleMove(_message.Message):
    __slots__ = ["pod", "profile", "reason", "revision", "strategy", "to"]
    FROM_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    pod: _object_pb2.PodRef
    profile: str
    reason: str
    revision: int
    strategy: str
    to: str
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., to: _Optional[str] = ..., profile: _Optional[str] = ..., strategy: _Optional[str] = ..., reason: _Optional[str] = ..., revision: _Optional[int] = ..., **kwargs) -> None: ...

class DeschedulePlan(_message.Message):
    __slots__ = ["dry_run", "moves", "pass_skipped", "plan_seconds", "skipped", "time"]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    PASS_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    PLAN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    dry_run: bool
    moves: _containers.RepeatedCompositeFieldContainer[DescheduleMove]
    pass_skipped: bool
    plan_seconds: float
    skipped: _containers.RepeatedCompositeFieldContainer[DescheduleSkip]
    time: _timestamp_pb2.Timestamp
    def __init__(self, time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., dry_run: bool = ..., moves: _Optional[_Iterable[_Union[DescheduleMove, _Mapping]]] = ..., skipped: _Optional[_Iterable[_Union[DescheduleSkip, _Mapping]]] = ..., pass_skipped: bool = ..., plan_seconds: _Optional[float] = ...) -> None: ...

class DescheduleRequest(_message.Message):
    __slots__ = ["dry_run", "last"]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    dry_run: bool
    last: bool
    def __init__(self, dry_run: bool = ..., last: bool = ...) -> None: ...

class DescheduleResponse(_message.Message):
    __slots__ = ["plan"]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    plan: DeschedulePlan
    def __init__(self, plan: _Optional[_Union[DeschedulePlan, _Mapping]] = ...) -> None: ...

class DescheduleSkip(_message.Message):
    __slots__ = ["lands_back", "pod", "profile", "reason", "strategy"]
    FROM_FIELD_NUMBER: _ClassVar[int]
    LANDS_BACK_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    lands_back: bool
    pod: _object_pb2.PodRef
    profile: str
    reason: str
    strategy: str
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., profile: _Optional[str] = ..., strategy: _Optional[str] = ..., reason: _Optional[str] = ..., lands_back: bool = ..., **kwargs) -> None: ...
