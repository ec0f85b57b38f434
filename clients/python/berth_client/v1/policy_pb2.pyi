from berth_client.v1 import selector_pb2 as _selector_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
PREEMPTION_POLICY_NEVER: PreemptionPolicy
PREEMPTION_POLICY_PREEMPT_LOWER_PRIORITY: PreemptionPolicy
PREEMPTION_POLICY_UNSPECIFIED: PreemptionPolicy
UNHEALTHY_POD_EVICTION_POLICY_ALWAYS_ALLOW: UnhealthyPodEvictionPolicy
UNHEALTHY_POD_EVICTION_POLICY_IF_HEALTHY_BUDGET: UnhealthyPodEvictionPolicy
UNHEALTHY_POD_EVICTION_POLICY_UNSPECIFIED: UnhealthyPodEvictionPolicy

class IntOrPercent(_message.Message):
    __slots__ = ["count", "percent"]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    PERCENT_FIELD_NUMBER: _ClassVar[int]
    count: int
    percent: int
    def __init__(self, count: _Optional[int] = ..., percent: _Optional[int] = ...) -> None: ...

class PodDisruptionBudget(_message.Message):
    __slots__ = ["disrupted_pods", "disruptions_allowed", "max_unavailable", "min_available", "name", "namespace", "selector", "unhealthy_pod_eviction_policy"]
    class DisruptedPodsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _timestamp_pb2.Timestamp
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
    DISRUPTED_PODS_FIELD_NUMBER: _ClassVar[int]
    DISRUPTIONS_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    MAX_UNAVAILABLE_FIELD_NUMBER: _ClassVar[int]
    MIN_AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SELECTOR_FIELD_NUMBER: _ClassVar[int]
    UNHEALTHY_POD_EVICTION_POLICY_FIELD_NUMBER: _ClassVar[int]
    disrupted_pods: _containers.MessageMap[str, _timestamp_pb2.Timestamp]
    disruptions_allowed: int
    max_unavailable: IntOrPercent
    min_available: IntOrPercent
    name: str
    namespace: str
    selector: _selector_pb2.LabelSelector
    unhealthy_pod_eviction_policy: UnhealthyPodEvictionPolicy
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., selector: _Optional[_Union[_selector_pb2.LabelSelector, _Mapping]] = ..., min_available: _Optional[_Union[IntOrPercent, _Mapping]] = ..., max_unavailable: _Optional[_Union[IntOrPercent, _Mapping]] = ..., disruptions_allowed: _Optional[int] = ..., disrupted_pods: _Optional[_Mapping[str, _timestamp_pb2.Timestamp]] = ..., unhealthy_pod_eviction_policy: _Optional[_Union[UnhealthyPodEvictionPolicy, str]] = ...) -> None: ...

class PriorityClass(_message.Message):
    __slots__ = ["description", "global_default", "name", "preemption_policy", "value"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PREEMPTION_POLICY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    description: str
    global_default: bool
    name: str
    preemption_policy: PreemptionPolicy
    value: int
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ..., global_default: bool = ..., preemption_policy: _Optional[_Union[PreemptionPolicy, str]] = ..., description: _Optional[str] = ...) -> None: ...

class PreemptionPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class UnhealthyPodEvictionPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
