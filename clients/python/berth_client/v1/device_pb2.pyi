from berth_client.v1 import selector_pb2 as _selector_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
DEVICE_ALLOCATION_MODE_ALL: DeviceAllocationMode
DEVICE_ALLOCATION_MODE_EXACT_COUNT: DeviceAllocationMode
DEVICE_ALLOCATION_MODE_UNSPECIFIED: DeviceAllocationMode
DEVICE_TAINT_EFFECT_NONE: DeviceTaintEffect
DEVICE_TAINT_EFFECT_NO_EXECUTE: DeviceTaintEffect
DEVICE_TAINT_EFFECT_NO_SCHEDULE: DeviceTaintEffect
DEVICE_TAINT_EFFECT_UNSPECIFIED: DeviceTaintEffect
DEVICE_TOLERATION_OPERATOR_EQUAL: DeviceTolerationOperator
DEVICE_TOLERATION_OPERATOR_EXISTS: DeviceTolerationOperator
DEVICE_TOLERATION_OPERATOR_UNSPECIFIED: DeviceTolerationOperator

class AllocationResult(_message.Message):
    __slots__ = ["devices", "node_selector"]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    NODE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    devices: _containers.RepeatedCompositeFieldContainer[DeviceRequestAllocationResult]
    node_selector: _selector_pb2.NodeSelector
    def __init__(self, devices: _Optional[_Iterable[_Union[DeviceRequestAllocationResult, _Mapping]]] = ..., node_selector: _Optional[_Union[_selector_pb2.NodeSelector, _Mapping]] = ...) -> None: ...

class ClaimAllocation(_message.Message):
    __slots__ = ["allocation", "name", "namespace", "pod_claim_names", "reserved_for", "uid"]
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    POD_CLAIM_NAMES_FIELD_NUMBER: _ClassVar[int]
    RESERVED_FOR_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    allocation: AllocationResult
    name: str
    namespace: str
    pod_claim_names: _containers.RepeatedScalarFieldContainer[str]
    reserved_for: _containers.RepeatedCompositeFieldContainer[ResourceClaimConsumer]
    uid: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., uid: _Optional[str] = ..., pod_claim_names: _Optional[_Iterable[str]] = ..., allocation: _Optional[_Union[AllocationResult, _Mapping]] = ..., reserved_for: _Optional[_Iterable[_Union[ResourceClaimConsumer, _Mapping]]] = ...) -> None: ...

class DeallocateClaim(_message.Message):
    __slots__ = ["allocation", "claim_deleted", "name", "namespace", "reason", "uid"]
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    CLAIM_DELETED_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    allocation: AllocationResult
    claim_deleted: bool
    name: str
    namespace: str
    reason: str
    uid: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., uid: _Optional[str] = ..., allocation: _Optional[_Union[AllocationResult, _Mapping]] = ..., reason: _Optional[str] = ..., claim_deleted: bool = ...) -> None: ...

class Device(_message.Message):
    __slots__ = ["attributes", "capacity", "name", "taints"]
    class AttributesEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: DeviceAttribute
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[DeviceAttribute, _Mapping]] = ...) -> None: ...
    class CapacityEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAINTS_FIELD_NUMBER: _ClassVar[int]
    attributes: _containers.MessageMap[str, DeviceAttribute]
    capacity: _containers.ScalarMap[str, str]
    name: str
    taints: _containers.RepeatedCompositeFieldContainer[DeviceTaint]
    def __init__(self, name: _Optional[str] = ..., attributes: _Optional[_Mapping[str, DeviceAttribute]] = ..., capacity: _Optional[_Mapping[str, str]] = ..., taints: _Optional[_Iterable[_Union[DeviceTaint, _Mapping]]] = ...) -> None: ...

class DeviceAttribute(_message.Message):
    __slots__ = ["bool", "int", "string", "version"]
    BOOL_FIELD_NUMBER: _ClassVar[int]
    INT_FIELD_NUMBER: _ClassVar[int]
    STRING_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    bool: bool
    int: int
    string: str
    version: str
    def __init__(self, int: _Optional[int] = ..., bool: bool = ..., string: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class DeviceClass(_message.Message):
    __slots__ = ["name", "selectors"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SELECTORS_FIELD_NUMBER: _ClassVar[int]
    name: str
    selectors: _containers.RepeatedCompositeFieldContainer[DeviceSelector]
    def __init__(self, name: _Optional[str] = ..., selectors: _Optional[_Iterable[_Union[DeviceSelector, _Mapping]]] = ...) -> None: ...

class DeviceConstraint(_message.Message):
    __slots__ = ["match_attribute", "requests"]
    MATCH_ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    match_attribute: str
    requests: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, requests: _Optional[_Iterable[str]] = ..., match_attribute: _Optional[str] = ...) -> None: ...

class DeviceRequest(_message.Message):
    __slots__ = ["exactly", "first_available", "name"]
    EXACTLY_FIELD_NUMBER: _ClassVar[int]
    FIRST_AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    exactly: ExactDeviceRequest
    first_available: _containers.RepeatedCompositeFieldContainer[DeviceSubRequest]
    name: str
    def __init__(self, name: _Optional[str] = ..., exactly: _Optional[_Union[ExactDeviceRequest, _Mapping]] = ..., first_available: _Optional[_Iterable[_Union[DeviceSubRequest, _Mapping]]] = ...) -> None: ...

class DeviceRequestAllocationResult(_message.Message):
    __slots__ = ["admin_access", "device", "driver", "pool", "request"]
    ADMIN_ACCESS_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    DRIVER_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    admin_access: bool
    device: str
    driver: str
    pool: str
    request: str
    def __init__(self, request: _Optional[str] = ..., driver: _Optional[str] = ..., pool: _Optional[str] = ..., device: _Optional[str] = ..., admin_access: bool = ...) -> None: ...

class DeviceSelector(_message.Message):
    __slots__ = ["cel"]
    CEL_FIELD_NUMBER: _ClassVar[int]
    cel: str
    def __init__(self, cel: _Optional[str] = ...) -> None: ...

class DeviceSubRequest(_message.Message):
    __slots__ = ["allocation_mode", "count", "device_class_name", "name", "selectors", "tolerations"]
    ALLOCATION_MODE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    DEVICE_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SELECTORS_FIELD_NUMBER: _ClassVar[int]
    TOLERATIONS_FIELD_NUMBER: _ClassVar[int]
    allocation_mode: DeviceAllocationMode
    count: int
    device_class_name: str
    name: str
    selectors: _containers.RepeatedCompositeFieldContainer[DeviceSelector]
    tolerations: _containers.RepeatedCompositeFieldContainer[DeviceToleration]
    def __init__(self, name: _Optional[str] = ..., device_class_name: _Optional[str] = ..., selectors: _Optional[_Iterable[_Union[DeviceSelector, _Mapping]]] = ..., allocation_mode: _Optional[_Union[DeviceAllocationMode, str]] = ..., count: _Optional[int] = ..., tolerations: _Optional[_Iterable[_Union[DeviceToleration, _Mapping]]] = ...) -> None: ...

class DeviceTaint(_message.Message):
    __slots__ = ["effect", "key", "time_added", "value"]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    TIME_ADDED_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    effect: DeviceTaintEffect
    key: str
    time_added: _timestamp_pb2.Timestamp
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ..., effect: _Optional[_Union[DeviceTaintEffect, str]] = ..., time_added: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class DeviceTaintRule(_message.Message):
    __slots__ = ["device_selector", "name", "taint"]
    DEVICE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAINT_FIELD_NUMBER: _ClassVar[int]
    device_selector: DeviceTaintSelector
    name: str
    taint: DeviceTaint
    def __init__(self, name: _Optional[str] = ..., device_selector: _Optional[_Union[DeviceTaintSelector, _Mapping]] = ..., taint: _Optional[_Union[DeviceTaint, _Mapping]] = ...) -> None: ...

class DeviceTaintSelector(_message.Message):
    __slots__ = ["device", "driver", "pool"]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    DRIVER_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    device: str
    driver: str
    pool: str
    def __init__(self, driver: _Optional[str] = ..., pool: _Optional[str] = ..., device: _Optional[str] = ...) -> None: ...

class DeviceToleration(_message.Message):
    __slots__ = ["effect", "key", "operator", "toleration_seconds", "value"]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    TOLERATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    effect: DeviceTaintEffect
    key: str
    operator: DeviceTolerationOperator
    toleration_seconds: int
    value: str
    def __init__(self, key: _Optional[str] = ..., operator: _Optional[_Union[DeviceTolerationOperator, str]] = ..., value: _Optional[str] = ..., effect: _Optional[_Union[DeviceTaintEffect, str]] = ..., toleration_seconds: _Optional[int] = ...) -> None: ...

class ExactDeviceRequest(_message.Message):
    __slots__ = ["admin_access", "allocation_mode", "count", "device_class_name", "selectors", "tolerations"]
    ADMIN_ACCESS_FIELD_NUMBER: _ClassVar[int]
    ALLOCATION_MODE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    DEVICE_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    SELECTORS_FIELD_NUMBER: _ClassVar[int]
    TOLERATIONS_FIELD_NUMBER: _ClassVar[int]
    admin_access: bool
    allocation_mode: DeviceAllocationMode
    count: int
    device_class_name: str
    selectors: _containers.RepeatedCompositeFieldContainer[DeviceSelector]
    tolerations: _containers.RepeatedCompositeFieldContainer[DeviceToleration]
    def __init__(self, device_class_name: _Optional[str] = ..., selectors: _Optional[_Iterable[_Union[DeviceSelector, _Mapping]]] = ..., allocation_mode: _Optional[_Union[DeviceAllocationMode, str]] = ..., count: _Optional[int] = ..., admin_access: bool = ..., tolerations: _Optional[_Iterable[_Union[DeviceToleration, _Mapping]]] = ...) -> None: ...

class PodResourceClaim(_message.Message):
    __slots__ = ["name", "resource_claim_name", "resource_claim_template_name"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_CLAIM_NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_CLAIM_TEMPLATE_NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    resource_claim_name: str
    resource_claim_template_name: str
    def __init__(self, name: _Optional[str] = ..., resource_claim_name: _Optional[str] = ..., resource_claim_template_name: _Optional[str] = ...) -> None: ...

class ResourceClaim(_message.Message):
    __slots__ = ["name", "namespace", "spec", "status", "uid"]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    name: str
    namespace: str
    spec: ResourceClaimSpec
    status: ResourceClaimStatus
    uid: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., uid: _Optional[str] = ..., spec: _Optional[_Union[ResourceClaimSpec, _Mapping]] = ..., status: _Optional[_Union[ResourceClaimStatus, _Mapping]] = ...) -> None: ...

class ResourceClaimConsumer(_message.Message):
    __slots__ = ["name", "uid"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    name: str
    uid: str
    def __init__(self, name: _Optional[str] = ..., uid: _Optional[str] = ...) -> None: ...

class ResourceClaimSpec(_message.Message):
    __slots__ = ["constraints", "requests"]
    CONSTRAINTS_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    constraints: _containers.RepeatedCompositeFieldContainer[DeviceConstraint]
    requests: _containers.RepeatedCompositeFieldContainer[DeviceRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[DeviceRequest, _Mapping]]] = ..., constraints: _Optional[_Iterable[_Union[DeviceConstraint, _Mapping]]] = ...) -> None: ...

class ResourceClaimStatus(_message.Message):
    __slots__ = ["allocation", "reserved_for"]
    ALLOCATION_FIELD_NUMBER: _ClassVar[int]
    RESERVED_FOR_FIELD_NUMBER: _ClassVar[int]
    allocation: AllocationResult
    reserved_for: _containers.RepeatedCompositeFieldContainer[ResourceClaimConsumer]
    def __init__(self, allocation: _Optional[_Union[AllocationResult, _Mapping]] = ..., reserved_for: _Optional[_Iterable[_Union[ResourceClaimConsumer, _Mapping]]] = ...) -> None: ...

class ResourceClaimTemplate(_message.Message):
    __slots__ = ["name", "namespace", "spec"]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    name: str
    namespace: str
    spec: ResourceClaimSpec
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., spec: _Optional[_Union[ResourceClaimSpec, _Mapping]] = ...) -> None: ...

class ResourcePool(_message.Message):
    __slots__ = ["generation", "name", "resource_slice_count"]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_SLICE_COUNT_FIELD_NUMBER: _ClassVar[int]
    generation: int
    name: str
    resource_slice_count: int
    def __init__(self, name: _Optional[str] = ..., generation: _Optional[int] = ..., resource_slice_count: _Optional[int] = ...) -> None: ...

class ResourceSlice(_message.Message):
    __slots__ = ["all_nodes", "devices", "driver", "name", "node_name", "node_selector", "pool"]
    ALL_NODES_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    DRIVER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NODE_NAME_FIELD_NUMBER: _ClassVar[int]
    NODE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    all_nodes: bool
    devices: _containers.RepeatedCompositeFieldContainer[Device]
    driver: str
    name: str
    node_name: str
    node_selector: _selector_pb2.NodeSelector
    pool: ResourcePool
    def __init__(self, name: _Optional[str] = ..., driver: _Optional[str] = ..., pool: _Optional[_Union[ResourcePool, _Mapping]] = ..., node_name: _Optional[str] = ..., node_selector: _Optional[_Union[_selector_pb2.NodeSelector, _Mapping]] = ..., all_nodes: bool = ..., devices: _Optional[_Iterable[_Union[Device, _Mapping]]] = ...) -> None: ...

class DeviceTaintEffect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class DeviceTolerationOperator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class DeviceAllocationMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
