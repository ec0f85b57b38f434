from berth_client.v1 import object_pb2 as _object_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EvictPodRequest(_message.Message):
    __slots__ = ["dry_run", "grace_period_seconds", "pod"]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    GRACE_PERIOD_SECONDS_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    dry_run: bool
    grace_period_seconds: int
    pod: _object_pb2.PodRef
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., dry_run: bool = ..., grace_period_seconds: _Optional[int] = ...) -> None: ...

class EvictPodResponse(_message.Message):
    __slots__ = ["already_evicted", "budget", "disruptions_allowed", "revision"]
    ALREADY_EVICTED_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    DISRUPTIONS_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    already_evicted: bool
    budget: str
    disruptions_allowed: int
    revision: int
    def __init__(self, revision: _Optional[int] = ..., already_evicted: bool = ..., budget: _Optional[str] = ..., disruptions_allowed: _Optional[int] = ...) -> None: ...

class ListNodePodsRequest(_message.Message):
    __slots__ = ["node"]
    NODE_FIELD_NUMBER: _ClassVar[int]
    node: str
    def __init__(self, node: _Optional[str] = ...) -> None: ...

class ListNodePodsResponse(_message.Message):
    __slots__ = ["pods"]
    PODS_FIELD_NUMBER: _ClassVar[int]
    pods: _containers.RepeatedCompositeFieldContainer[NodePod]
    def __init__(self, pods: _Optional[_Iterable[_Union[NodePod, _Mapping]]] = ...) -> None: ...

class NodePod(_message.Message):
    __slots__ = ["binding", "daemon_set", "pod", "terminating"]
    BINDING_FIELD_NUMBER: _ClassVar[int]
    DAEMON_SET_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    TERMINATING_FIELD_NUMBER: _ClassVar[int]
    binding: bool
    daemon_set: bool
    pod: _object_pb2.PodRef
    terminating: bool
    def __init__(self, pod: _Optional[_Union[_object_pb2.PodRef, _Mapping]] = ..., terminating: bool = ..., daemon_set: bool = ..., binding: bool = ...) -> None: ...
