from berth_client.v1 import selector_pb2 as _selector_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Affinity(_message.Message):
    __slots__ = ["node_affinity", "pod_affinity", "pod_anti_affinity"]
    NODE_AFFINITY_FIELD_NUMBER: _ClassVar[int]
    POD_AFFINITY_FIELD_NUMBER: _ClassVar[int]
    POD_ANTI_AFFINITY_FIELD_NUMBER: _ClassVar[int]
    node_affinity: NodeAffinity
    pod_affinity: PodAffinity
    pod_anti_affinity: PodAntiAffinity
    def __init__(self, node_affinity: _Optional[_Union[NodeAffinity, _Mapping]] = ..., pod_affinity: _Optional[_Union[PodAffinity, _Mapping]] = ..., pod_anti_affinity: _Optional[_Union[PodAntiAffinity, _Mapping]] = ...) -> None: ...

class NodeAffinity(_message.Message):
    __slots__ = ["preferred_during_scheduling_ignored_during_execution", "required_during_scheduling_ignored_during_execution"]
    PREFERRED_DURING_SCHEDULING_IGNORED_DURING_EXECUTION_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_DURING_SCHEDULING_IGNORED_DURING_EXECUTION_FIELD_NUMBER: _ClassVar[int]
    preferred_during_scheduling_ignored_during_execution: _containers.RepeatedCompositeFieldContainer[PreferredSchedulingTerm]
    required_during_scheduling_ignored_during_execution: _selector_pb2.NodeSelector
    def __init__(self, required_during_scheduling_ignored_during_execution: _Optional[_Union[_selector_pb2.NodeSelector, _Mapping]] = ..., preferred_during_scheduling_ignored_during_execution: _Optional[_Iterable[_Union[PreferredSchedulingTerm, _Mapping]]] = ...) -> None: ...

class PodAffinity(_message.Message):
    __slots__ = ["preferred_during_scheduling_ignored_during_execution", "required_during_scheduling_ignored_during_execution"]
    PREFERRED_DURING_SCHEDULING_IGNORED_DURING_EXECUTION_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_DURING_SCHEDULING_IGNORED_DURING_EXECUTION_FIELD_NUMBER: _ClassVar[int]
    preferred_during_scheduling_ignored_during_execution: _containers.RepeatedCompositeFieldContainer[WeightedPodAffinityTerm]
    required_during_scheduling_ignored_during_execution: _containers.RepeatedCompositeFieldContainer[PodAffinityTerm]
    def __init__(self, required_during_scheduling_ignored_during_execution: _Optional[_Iterable[_Union[PodAffinityTerm, _Mapping]]] = ..., preferred_during_scheduling_ignored_during_execution: _Optional[_Iterable[_Union[WeightedPodAffinityTerm, _Mapping]]] = ...) -> None: ...

class PodAffinityTerm(_message.Message):
    __slots__ = ["label_selector", "match_label_keys", "mismatch_label_keys", "namespace_selector", "namespaces", "topology_key"]
    LABEL_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    MATCH_LABEL_KEYS_FIELD_NUMBER: _ClassVar[int]
    MISMATCH_LABEL_KEYS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    TOPOLOGY_KEY_FIELD_NUMBER: _ClassVar[int]
    label_selector: _selector_pb2.LabelSelector
    match_label_keys: _containers.RepeatedScalarFieldContainer[str]
    mismatch_label_keys: _containers.RepeatedScalarFieldContainer[str]
    namespace_selector: _selector_pb2.LabelSelector
    namespaces: _containers.RepeatedScalarFieldContainer[str]
    topology_key: str
    def __init__(self, label_selector: _Optional[_Union[_selector_pb2.LabelSelector, _Mapping]] = ..., namespaces: _Optional[_Iterable[str]] = ..., topology_key: _Optional[str] = ..., namespace_selector: _Optional[_Union[_selector_pb2.LabelSelector, _Mapping]] = ..., match_label_keys: _Optional[_Iterable[str]] = ..., mismatch_label_keys: _Optional[_Iterable[str]] = ...) -> None: ...

class PodAntiAffinity(_message.Message):
    __slots__ = ["preferred_during_scheduling_ignored_during_execution", "required_during_scheduling_ignored_during_execution"]
    PREFERRED_DURING_SCHEDULING_IGNORED_DURING_EXECUTION_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_DURING_SCHEDULING_IGNORED_DURING_EXECUTION_FIELD_NUMBER: _ClassVar[int]
    preferred_during_scheduling_ignored_during_execution: _containers.RepeatedCompositeFieldContainer[WeightedPodAffinityTerm]
    required_during_scheduling_ignored_during_execution: _containers.RepeatedCompositeFieldContainer[PodAffinityTerm]
    def __init__(self, required_during_scheduling_ignored_during_execution: _Optional[_Iterable[_Union[PodAffinityTerm, _Mapping]]] = ..., preferred_during_scheduling_ignored_during_execution: _Optional[_Iterable[_Union[WeightedPodAffinityTerm, _Mapping]]] = ...) -> None: ...

class PreferredSchedulingTerm(_message.Message):
    __slots__ = ["preference", "weight"]
    PREFERENCE_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    preference: _selector_pb2.NodeSelectorTerm
    weight: int
    def __init__(self, weight: _Optional[int] = ..., preference: _Optional[_Union[_selector_pb2.NodeSelectorTerm, _Mapping]] = ...) -> None: ...

class WeightedPodAffinityTerm(_message.Message):
    __slots__ = ["pod_affinity_term", "weight"]
    POD_AFFINITY_TERM_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    pod_affinity_term: PodAffinityTerm
    weight: int
    def __init__(self, weight: _Optional[int] = ..., pod_affinity_term: _Optional[_Union[PodAffinityTerm, _Mapping]] = ...) -> None: ...
