from berth_client.v1 import node_pb2 as _node_pb2
from berth_client.v1 import pod_pb2 as _pod_pb2
from berth_client.v1 import selector_pb2 as _selector_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
FLAVOR_FUNGIBILITY_POLICY_MAY_STOP_SEARCH: FlavorFungibilityPolicy
FLAVOR_FUNGIBILITY_POLICY_TRY_NEXT_FLAVOR: FlavorFungibilityPolicy
FLAVOR_FUNGIBILITY_POLICY_UNSPECIFIED: FlavorFungibilityPolicy
FLAVOR_FUNGIBILITY_PREFERENCE_BORROWING_OVER_PREEMPTION: FlavorFungibilityPreference
FLAVOR_FUNGIBILITY_PREFERENCE_PREEMPTION_OVER_BORROWING: FlavorFungibilityPreference
FLAVOR_FUNGIBILITY_PREFERENCE_UNSPECIFIED: FlavorFungibilityPreference
QUEUEING_STRATEGY_BEST_EFFORT_FIFO: QueueingStrategy
QUEUEING_STRATEGY_STRICT_FIFO: QueueingStrategy
QUEUEING_STRATEGY_UNSPECIFIED: QueueingStrategy
QUEUE_PREEMPTION_POLICY_ANY: QueuePreemptionPolicy
QUEUE_PREEMPTION_POLICY_LOWER_OR_NEWER_EQUAL_PRIORITY: QueuePreemptionPolicy
QUEUE_PREEMPTION_POLICY_LOWER_PRIORITY: QueuePreemptionPolicy
QUEUE_PREEMPTION_POLICY_NEVER: QueuePreemptionPolicy
QUEUE_PREEMPTION_POLICY_UNSPECIFIED: QueuePreemptionPolicy
STOP_POLICY_HOLD: StopPolicy
STOP_POLICY_HOLD_AND_DRAIN: StopPolicy
STOP_POLICY_NONE: StopPolicy
STOP_POLICY_UNSPECIFIED: StopPolicy
WORKLOAD_ORIGIN_EXPLICIT: WorkloadOrigin
WORKLOAD_ORIGIN_OWNER: WorkloadOrigin
WORKLOAD_ORIGIN_POD: WorkloadOrigin
WORKLOAD_ORIGIN_POD_GROUP: WorkloadOrigin
WORKLOAD_ORIGIN_UNSPECIFIED: WorkloadOrigin
WORKLOAD_STATE_ADMITTED: WorkloadState
WORKLOAD_STATE_EVICTING: WorkloadState
WORKLOAD_STATE_INADMISSIBLE: WorkloadState
WORKLOAD_STATE_PENDING: WorkloadState
WORKLOAD_STATE_UNSPECIFIED: WorkloadState

class BorrowWithinCohort(_message.Message):
    __slots__ = ["max_priority_threshold", "policy"]
    MAX_PRIORITY_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    max_priority_threshold: int
    policy: QueuePreemptionPolicy
    def __init__(self, policy: _Optional[_Union[QueuePreemptionPolicy, str]] = ..., max_priority_threshold: _Optional[int] = ...) -> None: ...

class ClusterQueue(_message.Message):
    __slots__ = ["admission_placement", "cohort", "fair_sharing", "flavor_fungibility", "name", "namespace_selector", "preemption", "queueing_strategy", "resource_groups", "stop_policy"]
    ADMISSION_PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    COHORT_FIELD_NUMBER: _ClassVar[int]
    FAIR_SHARING_FIELD_NUMBER: _ClassVar[int]
    FLAVOR_FUNGIBILITY_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PREEMPTION_FIELD_NUMBER: _ClassVar[int]
    QUEUEING_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_GROUPS_FIELD_NUMBER: _ClassVar[int]
    STOP_POLICY_FIELD_NUMBER: _ClassVar[int]
    admission_placement: bool
    cohort: str
    fair_sharing: FairSharing
    flavor_fungibility: FlavorFungibility
    name: str
    namespace_selector: _selector_pb2.LabelSelector
    preemption: ClusterQueuePreemption
    queueing_strategy: QueueingStrategy
    resource_groups: _containers.RepeatedCompositeFieldContainer[ResourceGroup]
    stop_policy: StopPolicy
    def __init__(self, name: _Optional[str] = ..., namespace_selector: _Optional[_Union[_selector_pb2.LabelSelector, _Mapping]] = ..., cohort: _Optional[str] = ..., resource_groups: _Optional[_Iterable[_Union[ResourceGroup, _Mapping]]] = ..., queueing_strategy: _Optional[_Union[QueueingStrategy, str]] = ..., flavor_fungibility: _Optional[_Union[FlavorFungibility, _Mapping]] = ..., preemption: _Optional[_Union[ClusterQueuePreemption, _Mapping]] = ..., stop_policy: _Optional[_Union[StopPolicy, str]] = ..., fair_sharing: _Optional[_Union[FairSharing, _Mapping]] = ..., admission_placement: bool = ...) -> None: ...

class ClusterQueuePreemption(_message.Message):
    __slots__ = ["borrow_within_cohort", "reclaim_within_cohort", "within_cluster_queue"]
    BORROW_WITHIN_COHORT_FIELD_NUMBER: _ClassVar[int]
    RECLAIM_WITHIN_COHORT_FIELD_NUMBER: _ClassVar[int]
    WITHIN_CLUSTER_QUEUE_FIELD_NUMBER: _ClassVar[int]
    borrow_within_cohort: BorrowWithinCohort
    reclaim_within_cohort: QueuePreemptionPolicy
    within_cluster_queue: QueuePreemptionPolicy
    def __init__(self, within_cluster_queue: _Optional[_Union[QueuePreemptionPolicy, str]] = ..., reclaim_within_cohort: _Optional[_Union[QueuePreemptionPolicy, str]] = ..., borrow_within_cohort: _Optional[_Union[BorrowWithinCohort, _Mapping]] = ...) -> None: ...

class ClusterQueueStatus(_message.Message):
    __slots__ = ["admitted_workloads", "cohort", "inadmissible_workloads", "name", "pending_workloads", "resources"]
    ADMITTED_WORKLOADS_FIELD_NUMBER: _ClassVar[int]
    COHORT_FIELD_NUMBER: _ClassVar[int]
    INADMISSIBLE_WORKLOADS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PENDING_WORKLOADS_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    admitted_workloads: int
    cohort: str
    inadmissible_workloads: int
    name: str
    pending_workloads: int
    resources: _containers.RepeatedCompositeFieldContainer[FlavorResourceUsage]
    def __init__(self, name: _Optional[str] = ..., resources: _Optional[_Iterable[_Union[FlavorResourceUsage, _Mapping]]] = ..., admitted_workloads: _Optional[int] = ..., pending_workloads: _Optional[int] = ..., cohort: _Optional[str] = ..., inadmissible_workloads: _Optional[int] = ...) -> None: ...

class Cohort(_message.Message):
    __slots__ = ["fair_sharing", "name", "parent", "resource_groups"]
    FAIR_SHARING_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARENT_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_GROUPS_FIELD_NUMBER: _ClassVar[int]
    fair_sharing: FairSharing
    name: str
    parent: str
    resource_groups: _containers.RepeatedCompositeFieldContainer[ResourceGroup]
    def __init__(self, name: _Optional[str] = ..., parent: _Optional[str] = ..., resource_groups: _Optional[_Iterable[_Union[ResourceGroup, _Mapping]]] = ..., fair_sharing: _Optional[_Union[FairSharing, _Mapping]] = ...) -> None: ...

class FairSharing(_message.Message):
    __slots__ = ["weight"]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    weight: float
    def __init__(self, weight: _Optional[float] = ...) -> None: ...

class FlavorFungibility(_message.Message):
    __slots__ = ["preference", "when_can_borrow", "when_can_preempt"]
    PREFERENCE_FIELD_NUMBER: _ClassVar[int]
    WHEN_CAN_BORROW_FIELD_NUMBER: _ClassVar[int]
    WHEN_CAN_PREEMPT_FIELD_NUMBER: _ClassVar[int]
    preference: FlavorFungibilityPreference
    when_can_borrow: FlavorFungibilityPolicy
    when_can_preempt: FlavorFungibilityPolicy
    def __init__(self, when_can_borrow: _Optional[_Union[FlavorFungibilityPolicy, str]] = ..., when_can_preempt: _Optional[_Union[FlavorFungibilityPolicy, str]] = ..., preference: _Optional[_Union[FlavorFungibilityPreference, str]] = ...) -> None: ...

class FlavorQuotas(_message.Message):
    __slots__ = ["name", "resources"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    name: str
    resources: _containers.RepeatedCompositeFieldContainer[ResourceQuota]
    def __init__(self, name: _Optional[str] = ..., resources: _Optional[_Iterable[_Union[ResourceQuota, _Mapping]]] = ...) -> None: ...

class FlavorResourceUsage(_message.Message):
    __slots__ = ["borrowed", "borrowing_limit", "flavor", "nominal", "resource", "usage"]
    BORROWED_FIELD_NUMBER: _ClassVar[int]
    BORROWING_LIMIT_FIELD_NUMBER: _ClassVar[int]
    FLAVOR_FIELD_NUMBER: _ClassVar[int]
    NOMINAL_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    borrowed: int
    borrowing_limit: int
    flavor: str
    nominal: int
    resource: str
    usage: int
    def __init__(self, flavor: _Optional[str] = ..., resource: _Optional[str] = ..., nominal: _Optional[int] = ..., borrowing_limit: _Optional[int] = ..., usage: _Optional[int] = ..., borrowed: _Optional[int] = ...) -> None: ...

class LocalQueue(_message.Message):
    __slots__ = ["cluster_queue", "name", "namespace", "stop_policy"]
    CLUSTER_QUEUE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STOP_POLICY_FIELD_NUMBER: _ClassVar[int]
    cluster_queue: str
    name: str
    namespace: str
    stop_policy: StopPolicy
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., cluster_queue: _Optional[str] = ..., stop_policy: _Optional[_Union[StopPolicy, str]] = ...) -> None: ...

class PodSet(_message.Message):
    __slots__ = ["count", "min_count", "name", "template"]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    MIN_COUNT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    count: int
    min_count: int
    name: str
    template: PodSetTemplate
    def __init__(self, name: _Optional[str] = ..., count: _Optional[int] = ..., min_count: _Optional[int] = ..., template: _Optional[_Union[PodSetTemplate, _Mapping]] = ...) -> None: ...

class PodSetAdmission(_message.Message):
    __slots__ = ["count", "flavors", "name"]
    class FlavorsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FLAVORS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    count: int
    flavors: _containers.ScalarMap[str, str]
    name: str
    def __init__(self, name: _Optional[str] = ..., count: _Optional[int] = ..., flavors: _Optional[_Mapping[str, str]] = ...) -> None: ...

class PodSetTemplate(_message.Message):
    __slots__ = ["node_selector", "requests", "tolerations"]
    class NodeSelectorEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class RequestsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    NODE_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    TOLERATIONS_FIELD_NUMBER: _ClassVar[int]
    node_selector: _containers.ScalarMap[str, str]
    requests: _containers.ScalarMap[str, int]
    tolerations: _containers.RepeatedCompositeFieldContainer[_pod_pb2.Toleration]
    def __init__(self, requests: _Optional[_Mapping[str, int]] = ..., node_selector: _Optional[_Mapping[str, str]] = ..., tolerations: _Optional[_Iterable[_Union[_pod_pb2.Toleration, _Mapping]]] = ...) -> None: ...

class ResourceFlavor(_message.Message):
    __slots__ = ["name", "node_labels", "node_taints", "tolerations"]
    class NodeLabelsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    NODE_LABELS_FIELD_NUMBER: _ClassVar[int]
    NODE_TAINTS_FIELD_NUMBER: _ClassVar[int]
    TOLERATIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    node_labels: _containers.ScalarMap[str, str]
    node_taints: _containers.RepeatedCompositeFieldContainer[_node_pb2.Taint]
    tolerations: _containers.RepeatedCompositeFieldContainer[_pod_pb2.Toleration]
    def __init__(self, name: _Optional[str] = ..., node_labels: _Optional[_Mapping[str, str]] = ..., node_taints: _Optional[_Iterable[_Union[_node_pb2.Taint, _Mapping]]] = ..., tolerations: _Optional[_Iterable[_Union[_pod_pb2.Toleration, _Mapping]]] = ...) -> None: ...

class ResourceGroup(_message.Message):
    __slots__ = ["covered_resources", "flavors"]
    COVERED_RESOURCES_FIELD_NUMBER: _ClassVar[int]
    FLAVORS_FIELD_NUMBER: _ClassVar[int]
    covered_resources: _containers.RepeatedScalarFieldContainer[str]
    flavors: _containers.RepeatedCompositeFieldContainer[FlavorQuotas]
    def __init__(self, covered_resources: _Optional[_Iterable[str]] = ..., flavors: _Optional[_Iterable[_Union[FlavorQuotas, _Mapping]]] = ...) -> None: ...

class ResourceQuota(_message.Message):
    __slots__ = ["borrowing_limit", "lending_limit", "name", "nominal_quota"]
    BORROWING_LIMIT_FIELD_NUMBER: _ClassVar[int]
    LENDING_LIMIT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NOMINAL_QUOTA_FIELD_NUMBER: _ClassVar[int]
    borrowing_limit: int
    lending_limit: int
    name: str
    nominal_quota: int
    def __init__(self, name: _Optional[str] = ..., nominal_quota: _Optional[int] = ..., borrowing_limit: _Optional[int] = ..., lending_limit: _Optional[int] = ...) -> None: ...

class Workload(_message.Message):
    __slots__ = ["active", "admission", "creation_time", "hold_pods", "name", "namespace", "pod_sets", "priority", "priority_class_name", "queue_name", "uid"]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    ADMISSION_FIELD_NUMBER: _ClassVar[int]
    CREATION_TIME_FIELD_NUMBER: _ClassVar[int]
    HOLD_PODS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    POD_SETS_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    QUEUE_NAME_FIELD_NUMBER: _ClassVar[int]
    UID_FIELD_NUMBER: _ClassVar[int]
    active: bool
    admission: WorkloadAdmission
    creation_time: _timestamp_pb2.Timestamp
    hold_pods: bool
    name: str
    namespace: str
    pod_sets: _containers.RepeatedCompositeFieldContainer[PodSet]
    priority: int
    priority_class_name: str
    queue_name: str
    uid: str
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., uid: _Optional[str] = ..., queue_name: _Optional[str] = ..., priority_class_name: _Optional[str] = ..., priority: _Optional[int] = ..., active: bool = ..., creation_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., pod_sets: _Optional[_Iterable[_Union[PodSet, _Mapping]]] = ..., admission: _Optional[_Union[WorkloadAdmission, _Mapping]] = ..., hold_pods: bool = ...) -> None: ...

class WorkloadAdmission(_message.Message):
    __slots__ = ["cluster_queue", "pod_sets", "reserved_time"]
    CLUSTER_QUEUE_FIELD_NUMBER: _ClassVar[int]
    POD_SETS_FIELD_NUMBER: _ClassVar[int]
    RESERVED_TIME_FIELD_NUMBER: _ClassVar[int]
    cluster_queue: str
    pod_sets: _containers.RepeatedCompositeFieldContainer[PodSetAdmission]
    reserved_time: _timestamp_pb2.Timestamp
    def __init__(self, cluster_queue: _Optional[str] = ..., pod_sets: _Optional[_Iterable[_Union[PodSetAdmission, _Mapping]]] = ..., reserved_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WorkloadPriorityClass(_message.Message):
    __slots__ = ["description", "name", "value"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    description: str
    name: str
    value: int
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ..., description: _Optional[str] = ...) -> None: ...

class WorkloadStatus(_message.Message):
    __slots__ = ["cluster_queue", "creation_time", "message", "name", "namespace", "origin", "pod_sets", "pods", "priority", "queue_name", "state", "victims"]
    CLUSTER_QUEUE_FIELD_NUMBER: _ClassVar[int]
    CREATION_TIME_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    PODS_FIELD_NUMBER: _ClassVar[int]
    POD_SETS_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    QUEUE_NAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VICTIMS_FIELD_NUMBER: _ClassVar[int]
    cluster_queue: str
    creation_time: _timestamp_pb2.Timestamp
    message: str
    name: str
    namespace: str
    origin: WorkloadOrigin
    pod_sets: _containers.RepeatedCompositeFieldContainer[PodSetAdmission]
    pods: int
    priority: int
    queue_name: str
    state: WorkloadState
    victims: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, namespace: _Optional[str] = ..., name: _Optional[str] = ..., queue_name: _Optional[str] = ..., state: _Optional[_Union[WorkloadState, str]] = ..., cluster_queue: _Optional[str] = ..., pod_sets: _Optional[_Iterable[_Union[PodSetAdmission, _Mapping]]] = ..., message: _Optional[str] = ..., origin: _Optional[_Union[WorkloadOrigin, str]] = ..., priority: _Optional[int] = ..., creation_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., victims: _Optional[_Iterable[str]] = ..., pods: _Optional[int] = ...) -> None: ...

class QueueingStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class StopPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class FlavorFungibilityPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class FlavorFungibilityPreference(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class QueuePreemptionPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class WorkloadState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class WorkloadOrigin(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
