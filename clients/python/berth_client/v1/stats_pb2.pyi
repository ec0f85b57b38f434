from berth_client.v1 import decision_pb2 as _decision_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetNodePressureRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetNodePressureResponse(_message.Message):
    __slots__ = ["nodes"]
    NODES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[NodePressure]
    def __init__(self, nodes: _Optional[_Iterable[_Union[NodePressure, _Mapping]]] = ...) -> None: ...

class NodePressure(_message.Message):
    __slots__ = ["conditions", "last_report_unix_seconds", "node", "thresholds_met"]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    LAST_REPORT_UNIX_SECONDS_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    THRESHOLDS_MET_FIELD_NUMBER: _ClassVar[int]
    conditions: _containers.RepeatedScalarFieldContainer[str]
    last_report_unix_seconds: int
    node: str
    thresholds_met: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, node: _Optional[str] = ..., conditions: _Optional[_Iterable[str]] = ..., thresholds_met: _Optional[_Iterable[str]] = ..., last_report_unix_seconds: _Optional[int] = ...) -> None: ...

class ReportNodeStatsRequest(_message.Message):
    __slots__ = ["summary_json"]
    SUMMARY_JSON_FIELD_NUMBER: _ClassVar[int]
    summary_json: bytes
    def __init__(self, summary_json: _Optional[bytes] = ...) -> None: ...

class ReportNodeStatsResponse(_message.Message):
    __slots__ = ["ambiguous", "evict", "pressure", "stale"]
    AMBIGUOUS_FIELD_NUMBER: _ClassVar[int]
    EVICT_FIELD_NUMBER: _ClassVar[int]
    PRESSURE_FIELD_NUMBER: _ClassVar[int]
    STALE_FIELD_NUMBER: _ClassVar[int]
    ambiguous: bool
    evict: _decision_pb2.Evict
    pressure: NodePressure
    stale: bool
    def __init__(self, pressure: _Optional[_Union[NodePressure, _Mapping]] = ..., evict: _Optional[_Union[_decision_pb2.Evict, _Mapping]] = ..., stale: bool = ..., ambiguous: bool = ...) -> None: ...
