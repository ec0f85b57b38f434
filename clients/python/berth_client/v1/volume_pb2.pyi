from berth_client.v1 import selector_pb2 as _selector_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
PERSISTENT_VOLUME_ACCESS_MODE_READ_ONLY_MANY: PersistentVolumeAccessMode
PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_MANY: PersistentVolumeAccessMode
PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE: PersistentVolumeAccessMode
PERSISTENT_VOLUME_ACCESS_MODE_READ_WRITE_ONCE_POD: PersistentVolumeAccessMode
PERSISTENT_VOLUME_ACCESS_MODE_UNSPECIFIED: PersistentVolumeAccessMode
PERSISTENT_VOLUME_CLAIM_PHASE_BOUND: PersistentVolumeClaimPhase
PERSISTENT_VOLUME_CLAIM_PHASE_LOST: PersistentVolumeClaimPhase
PERSISTENT_VOLUME_CLAIM_PHASE_PENDING: PersistentVolumeClaimPhase
PERSISTENT_VOLUME_CLAIM_PHASE_UNSPECIFIED: PersistentVolumeClaimPhase
PERSISTENT_VOLUME_MODE_BLOCK: PersistentVolumeMode
PERSISTENT_VOLUME_MODE_FILESYSTEM: PersistentVolumeMode
PERSISTENT_VOLUME_MODE_UNSPECIFIED: PersistentVolumeMode
PERSISTENT_VOLUME_PHASE_AVAILABLE: PersistentVolumePhase
PERSISTENT_VOLUME_PHASE_BOUND: PersistentVolumePhase
PERSISTENT_VOLUME_PHASE_FAILED: PersistentVolumePhase
PERSISTENT_VOLUME_PHASE_PENDING: PersistentVolumePhase
PERSISTENT_VOLUME_PHASE_RELEASED: PersistentVolumePhase
PERSISTENT_VOLUME_PHASE_UNSPECIFIED: PersistentVolumePhase
VOLUME_BINDING_MODE_IMMEDIATE: VolumeBindingMode
VOLUME_BINDING_MODE_UNSPECIFIED: VolumeBindingMode
VOLUME_BINDING_MODE_WAIT_FOR_FIRST_CONSUMER: VolumeBindingMode

class CSIDriver(_message.Message):
    __slots__ = ["attach_required", "name", "prevent_pod_scheduling_if_missing", "storage_capacity"]
    ATTACH_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PREVENT_POD_SCHEDULING_IF_MISSING_FIELD_NUMBER: _ClassVar[int]
    STORAGE_CAPACITY_FIELD_NUMBER: _ClassVar[int]
    attach_required: bool
    name: str
    prevent_pod_scheduling_if_missing: bool
    storage_capacity: bool
    def __init__(self, name: _Optional[str] = ..., attach_required: bool = ..., storage_capacity: bool = ..., prevent_pod_scheduling_if_missing: bool = ...) -> None: ...

class CSINode(_message.Message):
    __slots__ = ["drivers", "name"]
    DRIVERS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    drivers: _containers.RepeatedCompositeFieldContainer[CSINodeDriver]
    name: str
    def __init__(self, name: _Optional[str] = ..., drivers: _Optional[_Iterable[_Union[CSINodeDriver, _Mapping]]] = ...) -> None: ...

class CSINodeDriver(_message.Message):
    __slots__ = ["allocatable_count", "name", "node_id", "topology_keys"]
    ALLOCATABLE_COUNT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    TOPOLOGY_KEYS_FIELD_NUMBER: _ClassVar[int]
    allocatable_count: int
    name: str
    node_id: str
    topology_keys: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., node_id: _Optional[str] = ..., topology_keys: _Optional[_Iterable[str]] = ..., allocatable_count: _Optional[int] = ...) -> None: ...

class CSIPersistentVolumeSource(_message.Message):
    __slots__ = ["driver", "volume_handle"]
    DRIVER_FIELD_NUMBER: _ClassVar[int]
    VOLUME_HANDLE_FIELD_NUMBER: _ClassVar[int]
    driver: str
    volume_handle: str
    def __init__(self, driver: _Optional[str] = ..., volume_handle: _Optional[str] = ...) -> None: ...

class CSIStorageCapacity(_message.Message):
    __slots__ = ["capacity_bytes", "maximum_volume_size_bytes", "name", "namespace", "node_topology", "storage_class_name"]
    CAPACITY_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_VOLUME_SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NODE_TOPOLOGY_FIELD_NUMBER: _ClassVar[int]
    STORAGE_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    capacity_bytes: int
    maximum_volume_size_bytes: int
    name: str
    namespace: str
    node_topology: _selector_pb2.LabelSelector
    storage_class_name: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., storage_class_name: _Optional[str] = ..., node_topology: _Optional[_Union[_selector_pb2.LabelSelector, _Mapping]] = ..., capacity_bytes: _Optional[int] = ..., maximum_volume_size_bytes: _Optional[int] = ...) -> None: ...

class CSIVolumeSource(_message.Message):
    __slots__ = ["driver"]
    DRIVER_FIELD_NUMBER: _ClassVar[int]
    driver: str
    def __init__(self, driver: _Optional[str] = ...) -> None: ...

class ClaimReference(_message.Message):
    __slots__ = ["name", "namespace", "uid"]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    name: str
    namespace: str
    uid: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., uid: _Optional[str] = ...) -> None: ...

class EphemeralVolumeSource(_message.Message):
    __slots__ = ["volume_claim_template"]
    VOLUME_CLAIM_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    volume_claim_template: PersistentVolumeClaim
    def __init__(self, volume_claim_template: _Optional[_Union[PersistentVolumeClaim, _Mapping]] = ...) -> None: ...

class PersistentVolume(_message.Message):
    __slots__ = ["access_modes", "capacity_bytes", "claim_ref", "csi", "labels", "name", "node_affinity", "phase", "storage_class_name", "terminating", "volume_mode"]
    class LabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ACCESS_MODES_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_BYTES_FIELD_NUMBER: _ClassVar[int]
    CLAIM_REF_FIELD_NUMBER: _ClassVar[int]
    CSI_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NODE_AFFINITY_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    STORAGE_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    TERMINATING_FIELD_NUMBER: _ClassVar[int]
    VOLUME_MODE_FIELD_NUMBER: _ClassVar[int]
    access_modes: _containers.RepeatedScalarFieldContainer[PersistentVolumeAccessMode]
    capacity_bytes: int
    claim_ref: ClaimReference
    csi: CSIPersistentVolumeSource
    labels: _containers.ScalarMap[str, str]
    name: str
    node_affinity: _selector_pb2.NodeSelector
    phase: PersistentVolumePhase
    storage_class_name: str
    terminating: bool
    volume_mode: PersistentVolumeMode
    def __init__(self, name: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., capacity_bytes: _Optional[int] = ..., access_modes: _Optional[_Iterable[_Union[PersistentVolumeAccessMode, str]]] = ..., storage_class_name: _Optional[str] = ..., claim_ref: _Optional[_Union[ClaimReference, _Mapping]] = ..., node_affinity: _Optional[_Union[_selector_pb2.NodeSelector, _Mapping]] = ..., volume_mode: _Optional[_Union[PersistentVolumeMode, str]] = ..., phase: _Optional[_Union[PersistentVolumePhase, str]] = ..., csi: _Optional[_Union[CSIPersistentVolumeSource, _Mapping]] = ..., terminating: bool = ...) -> None: ...

class PersistentVolumeClaim(_message.Message):
    __slots__ = ["access_modes", "bind_completed", "labels", "name", "namespace", "phase", "request_bytes", "selected_node", "selector", "storage_class_name", "terminating", "uid", "volume_mode", "volume_name"]
    class LabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ACCESS_MODES_FIELD_NUMBER: _ClassVar[int]
    BIND_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_BYTES_FIELD_NUMBER: _ClassVar[int]
    SELECTED_NODE_FIELD_NUMBER: _ClassVar[int]
    SELECTOR_FIELD_NUMBER: _ClassVar[int]
    STORAGE_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    TERMINATING_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    VOLUME_MODE_FIELD_NUMBER: _ClassVar[int]
    VOLUME_NAME_FIELD_NUMBER: _ClassVar[int]
    access_modes: _containers.RepeatedScalarFieldContainer[PersistentVolumeAccessMode]
    bind_completed: bool
    labels: _containers.ScalarMap[str, str]
    name: str
    namespace: str
    phase: PersistentVolumeClaimPhase
    request_bytes: int
    selected_node: str
    selector: _selector_pb2.LabelSelector
    storage_class_name: str
    terminating: bool
    uid: str
    volume_mode: PersistentVolumeMode
    volume_name: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., uid: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., request_bytes: _Optional[int] = ..., access_modes: _Optional[_Iterable[_Union[PersistentVolumeAccessMode, str]]] = ..., storage_class_name: _Optional[str] = ..., volume_name: _Optional[str] = ..., selector: _Optional[_Union[_selector_pb2.LabelSelector, _Mapping]] = ..., volume_mode: _Optional[_Union[PersistentVolumeMode, str]] = ..., phase: _Optional[_Union[PersistentVolumeClaimPhase, str]] = ..., bind_completed: bool = ..., selected_node: _Optional[str] = ..., terminating: bool = ...) -> None: ...

class PersistentVolumeClaimVolumeSource(_message.Message):
    __slots__ = ["claim_name", "read_only"]
    CLAIM_NAME_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_FIELD_NUMBER: _ClassVar[int]
    claim_name: str
    read_only: bool
    def __init__(self, claim_name: _Optional[str] = ..., read_only: bool = ...) -> None: ...

class StorageClass(_message.Message):
    __slots__ = ["allowed_topologies", "is_default", "name", "provisioner", "volume_binding_mode"]
    ALLOWED_TOPOLOGIES_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PROVISIONER_FIELD_NUMBER: _ClassVar[int]
    VOLUME_BINDING_MODE_FIELD_NUMBER: _ClassVar[int]
    allowed_topologies: _containers.RepeatedCompositeFieldContainer[TopologySelectorTerm]
    is_default: bool
    name: str
    provisioner: str
    volume_binding_mode: VolumeBindingMode
    def __init__(self, name: _Optional[str] = ..., provisioner: _Optional[str] = ..., volume_binding_mode: _Optional[_Union[VolumeBindingMode, str]] = ..., allowed_topologies: _Optional[_Iterable[_Union[TopologySelectorTerm, _Mapping]]] = ..., is_default: bool = ...) -> None: ...

class TopologySelectorLabelRequirement(_message.Message):
    __slots__ = ["key", "values"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    key: str
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, key: _Optional[str] = ..., values: _Optional[_Iterable[str]] = ...) -> None: ...

class TopologySelectorTerm(_message.Message):
    __slots__ = ["match_label_expressions"]
    MATCH_LABEL_EXPRESSIONS_FIELD_NUMBER: _ClassVar[int]
    match_label_expressions: _containers.RepeatedCompositeFieldContainer[TopologySelectorLabelRequirement]
    def __init__(self, match_label_expressions: _Optional[_Iterable[_Union[TopologySelectorLabelRequirement, _Mapping]]] = ...) -> None: ...

class Volume(_message.Message):
    __slots__ = ["csi", "ephemeral", "name", "other", "persistent_volume_claim"]
    CSI_FIELD_NUMBER: _ClassVar[int]
    EPHEMERAL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    PERSISTENT_VOLUME_CLAIM_FIELD_NUMBER: _ClassVar[int]
    csi: CSIVolumeSource
    ephemeral: EphemeralVolumeSource
    name: str
    other: str
    persistent_volume_claim: PersistentVolumeClaimVolumeSource
    def __init__(self, name: _Optional[str] = ..., persistent_volume_claim: _Optional[_Union[PersistentVolumeClaimVolumeSource, _Mapping]] = ..., ephemeral: _Optional[_Union[EphemeralVolumeSource, _Mapping]] = ..., csi: _Optional[_Union[CSIVolumeSource, _Mapping]] = ..., other: _Optional[str] = ...) -> None: ...

class VolumeBinding(_message.Message):
    __slots__ = ["claim", "selected_node", "volume"]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    SELECTED_NODE_FIELD_NUMBER: _ClassVar[int]
    VOLUME_FIELD_NUMBER: _ClassVar[int]
    claim: str
    selected_node: str
    volume: str
    def __init__(self, claim: _Optional[str] = ..., volume: _Optional[str] = ..., selected_node: _Optional[str] = ...) -> None: ...

class PersistentVolumeAccessMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class PersistentVolumeMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class PersistentVolumePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class PersistentVolumeClaimPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class VolumeBindingMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
