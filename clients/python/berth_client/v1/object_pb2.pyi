from berth_client.v1 import device_pb2 as _device_pb2
from berth_client.v1 import group_pb2 as _group_pb2
from berth_client.v1 import namespace_pb2 as _namespace_pb2
from berth_client.v1 import node_pb2 as _node_pb2
from berth_client.v1 import pod_pb2 as _pod_pb2
from berth_client.v1 import policy_pb2 as _policy_pb2
from berth_client.v1 import queueing_pb2 as _queueing_pb2
from berth_client.v1 import volume_pb2 as _volume_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
OBJECT_KIND_CLUSTER_QUEUE: ObjectKind
OBJECT_KIND_COHORT: ObjectKind
OBJECT_KIND_COMPOSITE_POD_GROUP: ObjectKind
OBJECT_KIND_CSI_DRIVER: ObjectKind
OBJECT_KIND_CSI_NODE: ObjectKind
OBJECT_KIND_CSI_STORAGE_CAPACITY: ObjectKind
OBJECT_KIND_DEVICE_CLASS: ObjectKind
OBJECT_KIND_DEVICE_TAINT_RULE: ObjectKind
OBJECT_KIND_LOCAL_QUEUE: ObjectKind
OBJECT_KIND_NAMESPACE: ObjectKind
OBJECT_KIND_NODE: ObjectKind
OBJECT_KIND_PERSISTENT_VOLUME: ObjectKind
OBJECT_KIND_PERSISTENT_VOLUME_CLAIM: ObjectKind
OBJECT_KIND_POD: ObjectKind
OBJECT_KIND_POD_DISRUPTION_BUDGET: ObjectKind
OBJECT_KIND_POD_GROUP: ObjectKind
OBJECT_KIND_PRIORITY_CLASS: ObjectKind
OBJECT_KIND_RESOURCE_CLAIM: ObjectKind
OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE: ObjectKind
OBJECT_KIND_RESOURCE_FLAVOR: ObjectKind
OBJECT_KIND_RESOURCE_SLICE: ObjectKind
OBJECT_KIND_STORAGE_CLASS: ObjectKind
OBJECT_KIND_UNSPECIFIED: ObjectKind
OBJECT_KIND_WORKLOAD: ObjectKind
OBJECT_KIND_WORKLOAD_PRIORITY_CLASS: ObjectKind

class Object(_message.Message):
    __slots__ = ["cluster_queue", "cohort", "composite_pod_group", "csi_driver", "csi_node", "csi_storage_capacity", "device_class", "device_taint_rule", "local_queue", "namespace", "node", "persistent_volume", "persistent_volume_claim", "pod", "pod_disruption_budget", "pod_group", "priority_class", "resource_claim", "resource_claim_template", "resource_flavor", "resource_slice", "storage_class", "workload", "workload_priority_class"]
    CLUSTER_QUEUE_FIELD_NUMBER: _ClassVar[int]
    COHORT_FIELD_NUMBER: _ClassVar[int]
    COMPOSITE_POD_GROUP_FIELD_NUMBER: _ClassVar[int]
    CSI_DRIVER_FIELD_NUMBER: _ClassVar[int]
    CSI_NODE_FIELD_NUMBER: _ClassVar[int]
    CSI_STORAGE_CAPACITY_FIELD_NUMBER: _ClassVar[int]
    DEVICE_CLASS_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TAINT_RULE_FIELD_NUMBER: _ClassVar[int]
    LOCAL_QUEUE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    PERSISTENT_VOLUME_CLAIM_FIELD_NUMBER: _ClassVar[int]
    PERSISTENT_VOLUME_FIELD_NUMBER: _ClassVar[int]
    POD_DISRUPTION_BUDGET_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    POD_GROUP_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_CLASS_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_CLAIM_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_CLAIM_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FLAVOR_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_SLICE_FIELD_NUMBER: _ClassVar[int]
    STORAGE_CLASS_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_FIELD_NUMBER: _ClassVar[int]
    WORKLOAD_PRIORITY_CLASS_FIELD_NUMBER: _ClassVar[int]
    cluster_queue: _queueing_pb2.ClusterQueue
    cohort: _queueing_pb2.Cohort
    composite_pod_group: _group_pb2.CompositePodGroup
    csi_driver: _volume_pb2.CSIDriver
    csi_node: _volume_pb2.CSINode
    csi_storage_capacity: _volume_pb2.CSIStorageCapacity
    device_class: _device_pb2.DeviceClass
    device_taint_rule: _device_pb2.DeviceTaintRule
    local_queue: _queueing_pb2.LocalQueue
    namespace: _namespace_pb2.Namespace
    node: _node_pb2.Node
    persistent_volume: _volume_pb2.PersistentVolume
    persistent_volume_claim: _volume_pb2.PersistentVolumeClaim
    pod: _pod_pb2.Pod
    pod_disruption_budget: _policy_pb2.PodDisruptionBudget
    pod_group: _group_pb2.PodGroup
    priority_class: _policy_pb2.PriorityClass
    resource_claim: _device_pb2.ResourceClaim
    resource_claim_template: _device_pb2.ResourceClaimTemplate
    resource_flavor: _queueing_pb2.ResourceFlavor
    resource_slice: _device_pb2.ResourceSlice
    storage_class: _volume_pb2.StorageClass
    workload: _queueing_pb2.Workload
    workload_priority_class: _queueing_pb2.WorkloadPriorityClass
    def __init__(self, node: _Optional[_Union[_node_pb2.Node, _Mapping]] = ..., pod: _Optional[_Union[_pod_pb2.Pod, _Mapping]] = ..., priority_class: _Optional[_Union[_policy_pb2.PriorityClass, _Mapping]] = ..., pod_disruption_budget: _Optional[_Union[_policy_pb2.PodDisruptionBudget, _Mapping]] = ..., namespace: _Optional[_Union[_namespace_pb2.Namespace, _Mapping]] = ..., pod_group: _Optional[_Union[_group_pb2.PodGroup, _Mapping]] = ..., composite_pod_group: _Optional[_Union[_group_pb2.CompositePodGroup, _Mapping]] = ..., device_class: _Optional[_Union[_device_pb2.DeviceClass, _Mapping]] = ..., resource_slice: _Optional[_Union[_device_pb2.ResourceSlice, _Mapping]] = ..., resource_claim: _Optional[_Union[_device_pb2.ResourceClaim, _Mapping]] = ..., resource_claim_template: _Optional[_Union[_device_pb2.ResourceClaimTemplate, _Mapping]] = ..., device_taint_rule: _Optional[_Union[_device_pb2.DeviceTaintRule, _Mapping]] = ..., persistent_volume: _Optional[_Union[_volume_pb2.PersistentVolume, _Mapping]] = ..., persistent_volume_claim: _Optional[_Union[_volume_pb2.PersistentVolumeClaim, _Mapping]] = ..., storage_class: _Optional[_Union[_volume_pb2.StorageClass, _Mapping]] = ..., csi_node: _Optional[_Union[_volume_pb2.CSINode, _Mapping]] = ..., csi_driver: _Optional[_Union[_volume_pb2.CSIDriver, _Mapping]] = ..., csi_storage_capacity: _Optional[_Union[_volume_pb2.CSIStorageCapacity, _Mapping]] = ..., resource_flavor: _Optional[_Union[_queueing_pb2.ResourceFlavor, _Mapping]] = ..., cluster_queue: _Optional[_Union[_queueing_pb2.ClusterQueue, _Mapping]] = ..., cohort: _Optional[_Union[_queueing_pb2.Cohort, _Mapping]] = ..., local_queue: _Optional[_Union[_queueing_pb2.LocalQueue, _Mapping]] = ..., workload_priority_class: _Optional[_Union[_queueing_pb2.WorkloadPriorityClass, _Mapping]] = ..., workload: _Optional[_Union[_queueing_pb2.Workload, _Mapping]] = ...) -> None: ...

class ObjectRef(_message.Message):
    __slots__ = ["kind", "name", "namespace", "uid"]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    kind: ObjectKind
    name: str
    namespace: str
    uid: str
    def __init__(self, kind: _Optional[_Union[ObjectKind, str]] = ..., namespace: _Optional[str] = ..., name: _Optional[str] = ..., uid: _Optional[str] = ...) -> None: ...

class PodRef(_message.Message):
    __slots__ = ["name", "namespace", "uid"]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    name: str
    namespace: str
    uid: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., uid: _Optional[str] = ...) -> None: ...

class ObjectKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
