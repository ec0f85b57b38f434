from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
POD_PHASE_FAILED: PodPhase
POD_PHASE_PENDING: PodPhase
POD_PHASE_RUNNING: PodPhase
POD_PHASE_SUCCEEDED: PodPhase
POD_PHASE_UNKNOWN: PodPhase
POD_PHASE_UNSPECIFIED: PodPhase
QOS_CLASS_BEST_EFFORT: QOSClass
QOS_CLASS_BURSTABLE: QOSClass
QOS_CLASS_GUARANTEED: QOSClass
QOS_CLASS_UNSPECIFIED: QOSClass

class ContainerStatus(_message.Message):
    __slots__ = ["exit_code", "init", "name", "restart_count", "terminated_reason", "waiting_reason"]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    INIT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    RESTART_COUNT_FIELD_NUMBER: _ClassVar[int]
    TERMINATED_REASON_FIELD_NUMBER: _ClassVar[int]
    WAITING_REASON_FIELD_NUMBER: _ClassVar[int]
    exit_code: int
    init: bool
    name: str
    restart_count: int
    terminated_reason: str
    waiting_reason: str
    def __init__(self, name: _Optional[str] = ..., init: bool = ..., restart_count: _Optional[int] = ..., waiting_reason: _Optional[str] = ..., terminated_reason: _Optional[str] = ..., exit_code: _Optional[int] = ...) -> None: ...

class OwnerReference(_message.Message):
    __slots__ = ["controller", "kind", "name", "uid"]
    CONTROLLER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    controller: bool
    kind: str
    name: str
    uid: str
    def __init__(self, kind: _Optional[str] = ..., name: _Optional[str] = ..., uid: _Optional[str] = ..., controller: bool = ...) -> None: ...

class PodRuntime(_message.Message):
    __slots__ = ["annotations", "containers", "images", "local_storage", "owners", "phase", "pvc_claims", "qos_class", "reason"]
    class AnnotationsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    CONTAINERS_FIELD_NUMBER: _ClassVar[int]
    IMAGES_FIELD_NUMBER: _ClassVar[int]
    LOCAL_STORAGE_FIELD_NUMBER: _ClassVar[int]
    OWNERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    PVC_CLAIMS_FIELD_NUMBER: _ClassVar[int]
    QOS_CLASS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    annotations: _containers.ScalarMap[str, str]
    containers: _containers.RepeatedCompositeFieldContainer[ContainerStatus]
    images: _containers.RepeatedScalarFieldContainer[str]
    local_storage: bool
    owners: _containers.RepeatedCompositeFieldContainer[OwnerReference]
    phase: PodPhase
    pvc_claims: _containers.RepeatedScalarFieldContainer[str]
    qos_class: QOSClass
    reason: str
    def __init__(self, owners: _Optional[_Iterable[_Union[OwnerReference, _Mapping]]] = ..., annotations: _Optional[_Mapping[str, str]] = ..., images: _Optional[_Iterable[str]] = ..., local_storage: bool = ..., pvc_claims: _Optional[_Iterable[str]] = ..., qos_class: _Optional[_Union[QOSClass, str]] = ..., phase: _Optional[_Union[PodPhase, str]] = ..., reason: _Optional[str] = ..., containers: _Optional[_Iterable[_Union[ContainerStatus, _Mapping]]] = ...) -> None: ...

class QOSClass(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class PodPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
