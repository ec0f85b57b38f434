from berth_client.v1 import object_pb2 as _object_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

BIND_OUTCOME_CONFIRMED: BindOutcome
BIND_OUTCOME_FAILED: BindOutcome
BIND_OUTCOME_UNSPECIFIED: BindOutcome
DESCRIPTOR: _descriptor.FileDescriptor
ERROR_CODE_CANCELLED: ErrorCode
ERROR_CODE_DEADLINE_EXCEEDED: ErrorCode
ERROR_CODE_FAILED_PRECONDITION: ErrorCode
ERROR_CODE_INTERNAL: ErrorCode
ERROR_CODE_INVALID_ARGUMENT: ErrorCode
ERROR_CODE_NOT_FOUND: ErrorCode
ERROR_CODE_UNSPECIFIED: ErrorCode
RESYNC_BEGIN: Resync
RESYNC_END: Resync
RESYNC_UNSPECIFIED: Resync

class ApplyRequest(_message.Message):
    __slots__ = ["objects"]
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    objects: _containers.RepeatedCompositeFieldContainer[_object_pb2.Object]
    def __init__(self, objects: _Optional[_Iterable[_Union[_object_pb2.Object, _Mapping]]] = ...) -> None: ...

class ApplyResponse(_message.Message):
    __slots__ = ["applied", "errors"]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    applied: int
    errors: _containers.RepeatedCompositeFieldContainer[ObjectError]
    def __init__(self, applied: _Optional[int] = ..., errors: _Optional[_Iterable[_Union[ObjectError, _Mapping]]] = ...) -> None: ...

class DeleteRequest(_message.Message):
    __slots__ = ["refs"]
    REFS_FIELD_NUMBER: _ClassVar[int]
    refs: _containers.RepeatedCompositeFieldContainer[_object_pb2.ObjectRef]
    def __init__(self, refs: _Optional[_Iterable[_Union[_object_pb2.ObjectRef, _Mapping]]] = ...) -> None: ...

class DeleteResponse(_message.Message):
    __slots__ = ["deleted", "errors"]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    deleted: int
    errors: _containers.RepeatedCompositeFieldContainer[ObjectError]
    def __init__(self, deleted: _Optional[int] = ..., errors: _Optional[_Iterable[_Union[ObjectError, _Mapping]]] = ...) -> None: ...

class Mutation(_message.Message):
    __slots__ = ["delete", "upsert"]
    DELETE_FIELD_NUMBER: _ClassVar[int]
    UPSERT_FIELD_NUMBER: _ClassVar[int]
    delete: _object_pb2.ObjectRef
    upsert: _object_pb2.Object
    def __init__(self, upsert: _Optional[_Union[_object_pb2.Object, _Mapping]] = ..., delete: _Optional[_Union[_object_pb2.ObjectRef, _Mapping]] = ...) -> None: ...

class ObjectError(_message.Message):
    __slots__ = ["code", "field_path", "index", "message", "ref"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    FIELD_PATH_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    field_path: str
    index: int
    message: str
    ref: _object_pb2.ObjectRef
    def __init__(self, index: _Optional[int] = ..., ref: _Optional[_Union[_object_pb2.ObjectRef, _Mapping]] = ..., code: _Optional[_Union[ErrorCode, str]] = ..., field_path: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class ReportBindResultRequest(_message.Message):
    __slots__ = ["node", "outcome", "pod", "reason", "revision"]
    NODE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    node: str
    outcome: BindOutcome
    pod: _object_pb2.PodRef
    reason: str
    revision: int
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., node: _Optional[str] = ..., revision: _Optional[int] = ..., outcome: _Optional[_Union[BindOutcome, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class ReportBindResultResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class SyncRequest(_message.Message):
    __slots__ = ["batch_id", "mutations", "resync", "resync_kinds"]
    BATCH_ID_FIELD_NUMBER: _ClassVar[int]
    MUTATIONS_FIELD_NUMBER: _ClassVar[int]
    RESYNC_FIELD_NUMBER: _ClassVar[int]
    RESYNC_KINDS_FIELD_NUMBER: _ClassVar[int]
    batch_id: int
    mutations: _containers.RepeatedCompositeFieldContainer[Mutation]
    resync: Resync
    resync_kinds: _containers.RepeatedScalarFieldContainer[_object_pb2.ObjectKind]
    def __init__(self, batch_id: _Optional[int] = ..., mutations: _Optional[_Iterable[_Union[Mutation, _Mapping]]] = ..., resync: _Optional[_Union[Resync, str]] = ..., resync_kinds: _Optional[_Iterable[_Union[_object_pb2.ObjectKind, str]]] = ...) -> None: ...

class SyncResponse(_message.Message):
    __slots__ = ["applied", "batch_id", "errors", "resync_deleted"]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    BATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    RESYNC_DELETED_FIELD_NUMBER: _ClassVar[int]
    applied: int
    batch_id: int
    errors: _containers.RepeatedCompositeFieldContainer[ObjectError]
    resync_deleted: int
    def __init__(self, batch_id: _Optional[int] = ..., applied: _Optional[int] = ..., errors: _Optional[_Iterable[_Union[ObjectError, _Mapping]]] = ..., resync_deleted: _Optional[int] = ...) -> None: ...

class Resync(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class BindOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
