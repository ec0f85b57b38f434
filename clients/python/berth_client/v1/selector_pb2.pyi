from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
LABEL_SELECTOR_OPERATOR_DOES_NOT_EXIST: LabelSelectorOperator
LABEL_SELECTOR_OPERATOR_EXISTS: LabelSelectorOperator
LABEL_SELECTOR_OPERATOR_IN: LabelSelectorOperator
LABEL_SELECTOR_OPERATOR_NOT_IN: LabelSelectorOperator
LABEL_SELECTOR_OPERATOR_UNSPECIFIED: LabelSelectorOperator
NODE_SELECTOR_OPERATOR_DOES_NOT_EXIST: NodeSelectorOperator
NODE_SELECTOR_OPERATOR_EXISTS: NodeSelectorOperator
NODE_SELECTOR_OPERATOR_GT: NodeSelectorOperator
NODE_SELECTOR_OPERATOR_IN: NodeSelectorOperator
NODE_SELECTOR_OPERATOR_LT: NodeSelectorOperator
NODE_SELECTOR_OPERATOR_NOT_IN: NodeSelectorOperator
NODE_SELECTOR_OPERATOR_UNSPECIFIED: NodeSelectorOperator

class LabelSelector(_message.Message):
    __slots__ = ["match_expressions", "match_labels"]
    class MatchLabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_EXPRESSIONS_FIELD_NUMBER: _ClassVar[int]
    MATCH_LABELS_FIELD_NUMBER: _ClassVar[int]
    match_expressions: _containers.RepeatedCompositeFieldContainer[LabelSelectorRequirement]
    match_labels: _containers.ScalarMap[str, str]
    def __init__(self, match_labels: _Optional[_Mapping[str, str]] = ..., match_expressions: _Optional[_Iterable[_Union[LabelSelectorRequirement, _Mapping]]] = ...) -> None: ...

class LabelSelectorRequirement(_message.Message):
    __slots__ = ["key", "operator", "values"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    key: str
    operator: LabelSelectorOperator
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, key: _Optional[str] = ..., operator: _Optional[_Union[LabelSelectorOperator, str]] = ..., values: _Optional[_Iterable[str]] = ...) -> None: ...

class NodeSelector(_message.Message):
    __slots__ = ["node_selector_terms"]
    NODE_SELECTOR_TERMS_FIELD_NUMBER: _ClassVar[int]
    node_selector_terms: _containers.RepeatedCompositeFieldContainer[NodeSelectorTerm]
    def __init__(self, node_selector_terms: _Optional[_Iterable[_Union[NodeSelectorTerm, _Mapping]]] = ...) -> None: ...

class NodeSelectorRequirement(_message.Message):
    __slots__ = ["key", "operator", "values"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    key: str
    operator: NodeSelectorOperator
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, key: _Optional[str] = ..., operator: _Optional[_Union[NodeSelectorOperator, str]] = ..., values: _Optional[_Iterable[str]] = ...) -> None: ...

class NodeSelectorTerm(_message.Message):
    __slots__ = ["match_expressions", "match_fields"]
    MATCH_EXPRESSIONS_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELDS_FIELD_NUMBER: _ClassVar[int]
    match_expressions: _containers.RepeatedCompositeFieldContainer[NodeSelectorRequirement]
    match_fields: _containers.RepeatedCompositeFieldContainer[NodeSelectorRequirement]
    def __init__(self, match_expressions: _Optional[_Iterable[_Union[NodeSelectorRequirement, _Mapping]]] = ..., match_fields: _Optional[_Iterable[_Union[NodeSelectorRequirement, _Mapping]]] = ...) -> None: ...

class LabelSelectorOperator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class NodeSelectorOperator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
