from berth_client.v1 import selector_pb2 as _selector_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
NODE_INCLUSION_POLICY_HONOR: NodeInclusionPolicy
NODE_INCLUSION_POLICY_IGNORE: NodeInclusionPolicy
NODE_INCLUSION_POLICY_UNSPECIFIED: NodeInclusionPolicy
UNSATISFIABLE_CONSTRAINT_ACTION_DO_NOT_SCHEDULE: UnsatisfiableConstraintAction
UNSATISFIABLE_CONSTRAINT_ACTION_SCHEDULE_ANYWAY: UnsatisfiableConstraintAction
UNSATISFIABLE_CONSTRAINT_ACTION_UNSPECIFIED: UnsatisfiableConstraintAction

class TopologySpreadConstraint(_message.Message):
    __slots__ = ["label_selector", "match_label_keys", "max_skew", "min_domains", "node_affinity_policy", "node_taints_policy", "topology_key", "when_unsatisfiable"]
    LABEL_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    MATCH_LABEL_KEYS_FIELD_NUMBER: _ClassVar[int]
    MAX_SKEW_FIELD_NUMBER: _ClassVar[int]
    MIN_DOMAINS_FIELD_NUMBER: _ClassVar[int]
    NODE_AFFINITY_POLICY_FIELD_NUMBER: _ClassVar[int]
    NODE_TAINTS_POLICY_FIELD_NUMBER: _ClassVar[int]
    TOPOLOGY_KEY_FIELD_NUMBER: _ClassVar[int]
    WHEN_UNSATISFIABLE_FIELD_NUMBER: _ClassVar[int]
    label_selector: _selector_pb2.LabelSelector
    match_label_keys: _containers.RepeatedScalarFieldContainer[str]
    max_skew: int
    min_domains: int
    node_affinity_policy: NodeInclusionPolicy
    node_taints_policy: NodeInclusionPolicy
    topology_key: str
    when_unsatisfiable: UnsatisfiableConstraintAction
    def __init__(self, max_skew: _Optional[int] = ..., topology_key: _Optional[str] = ..., when_unsatisfiable: _Optional[_Union[UnsatisfiableConstraintAction, str]] = ..., label_selector: _Optional[_Union[_selector_pb2.LabelSelector, _Mapping]] = ..., min_domains: _Optional[int] = ..., node_affinity_policy: _Optional[_Union[NodeInclusionPolicy, str]] = ..., node_taints_policy: _Optional[_Union[NodeInclusionPolicy, str]] = ..., match_label_keys: _Optional[_Iterable[str]] = ...) -> None: ...

class UnsatisfiableConstraintAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class NodeInclusionPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
