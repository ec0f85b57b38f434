package convert

import (
	"cmp"

	resourceapi "k8s.io/api/resource/v1"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/core/volume"
)

// Object is one converted object: exactly one field is set.
type Object struct {
	Node          *model.Node
	Pod           *model.Pod
	PriorityClass *model.PriorityClass
	PDB           *model.PodDisruptionBudget
	Namespace     *model.Namespace
	PodGroup      *model.PodGroup
	// CompositePodGroup is a tree of pod groups (kube 1.37's alpha kind).
	CompositePodGroup *model.CompositePodGroup
	// Dynamic resource allocation objects, in Kubernetes' types (core/dra).
	DeviceClass           *resourceapi.DeviceClass
	ResourceSlice         *resourceapi.ResourceSlice
	ResourceClaim         *resourceapi.ResourceClaim
	ResourceClaimTemplate *resourceapi.ResourceClaimTemplate
	DeviceTaintRule       *dra.DeviceTaintRule
	// Volume is a storage object in Kubernetes' type (core/volume): a
	// *corev1.PersistentVolume, PersistentVolumeClaim or a
	// *storagev1.StorageClass, CSINode, CSIDriver, CSIStorageCapacity.
	Volume any
	// Queueing is a queueing object (Kueue's) in core/quota's type: a
	// *quota.ResourceFlavor, ClusterQueue, Cohort, LocalQueue,
	// WorkloadPriorityClass or Workload.
	Queueing any
}

// Kind is the kind of the object set, OBJECT_KIND_UNSPECIFIED for none.
func (o Object) Kind() berthv1.ObjectKind {
	switch {
	case o.Node != nil:
		return berthv1.ObjectKind_OBJECT_KIND_NODE
	case o.Pod != nil:
		return berthv1.ObjectKind_OBJECT_KIND_POD
	case o.PriorityClass != nil:
		return berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS
	case o.PDB != nil:
		return berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET
	case o.Namespace != nil:
		return berthv1.ObjectKind_OBJECT_KIND_NAMESPACE
	case o.PodGroup != nil:
		return berthv1.ObjectKind_OBJECT_KIND_POD_GROUP
	case o.CompositePodGroup != nil:
		return berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP
	case o.DeviceClass != nil:
		return berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS
	case o.ResourceSlice != nil:
		return berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE
	case o.ResourceClaim != nil:
		return berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM
	case o.ResourceClaimTemplate != nil:
		return berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE
	case o.DeviceTaintRule != nil:
		return berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE
	case o.Volume != nil:
		return volumeKindOf(o.Volume)
	case o.Queueing != nil:
		return queueKindOf(o.Queueing)
	}
	return berthv1.ObjectKind_OBJECT_KIND_UNSPECIFIED
}

// DeviceKind reports whether kind is one of the dynamic resource
// allocation kinds.
func DeviceKind(kind berthv1.ObjectKind) bool {
	return kind >= berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS && kind <= berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE
}

// Ref identifies the object.
func (o Object) Ref() Ref {
	switch {
	case o.Node != nil:
		return Ref{Kind: o.Kind(), Name: o.Node.Name}
	case o.Pod != nil:
		return Ref{Kind: o.Kind(), Namespace: o.Pod.Namespace, Name: o.Pod.Name, UID: o.Pod.UID}
	case o.PriorityClass != nil:
		return Ref{Kind: o.Kind(), Name: o.PriorityClass.Name}
	case o.PDB != nil:
		return Ref{Kind: o.Kind(), Namespace: o.PDB.Namespace, Name: o.PDB.Name}
	case o.Namespace != nil:
		return Ref{Kind: o.Kind(), Name: o.Namespace.Name}
	case o.PodGroup != nil:
		return Ref{Kind: o.Kind(), Namespace: o.PodGroup.Namespace, Name: o.PodGroup.Name}
	case o.CompositePodGroup != nil:
		return Ref{Kind: o.Kind(), Namespace: o.CompositePodGroup.Namespace, Name: o.CompositePodGroup.Name}
	case o.DeviceClass != nil:
		return Ref{Kind: o.Kind(), Name: o.DeviceClass.Name}
	case o.ResourceSlice != nil:
		return Ref{Kind: o.Kind(), Name: o.ResourceSlice.Name}
	case o.ResourceClaim != nil:
		return Ref{Kind: o.Kind(), Namespace: o.ResourceClaim.Namespace, Name: o.ResourceClaim.Name}
	case o.ResourceClaimTemplate != nil:
		return Ref{Kind: o.Kind(), Namespace: o.ResourceClaimTemplate.Namespace, Name: o.ResourceClaimTemplate.Name}
	case o.DeviceTaintRule != nil:
		return Ref{Kind: o.Kind(), Name: o.DeviceTaintRule.Name}
	case o.Volume != nil:
		m := volumeMeta(o.Volume)
		return Ref{Kind: o.Kind(), Namespace: m.Namespace, Name: m.Name}
	case o.Queueing != nil:
		return QueueRef(o.Queueing)
	}
	return Ref{}
}

// Field names of the kinds in Object and in paths.
const (
	fieldNode          = "node"
	fieldPod           = "pod"
	fieldPriorityClass = "priority_class"
	fieldPDB           = "pod_disruption_budget"
	fieldNamespace     = "namespace"
	fieldPodGroup      = "pod_group"
	fieldComposite     = "composite_pod_group"
	fieldDeviceClass   = "device_class"
	fieldSlice         = "resource_slice"
	fieldClaim         = "resource_claim"
	fieldClaimTemplate = "resource_claim_template"
	fieldTaintRule     = "device_taint_rule"
)

// ObjectFromProto validates a wire object and converts it. A *FieldError's
// path starts at the Object ("pod.containers[1].requests[cpu]").
func ObjectFromProto(in *berthv1.Object) (Object, error) {
	return ObjectFromProtoHeld(in, nil)
}

// ObjectFromProtoHeld is ObjectFromProto for an upsert of what may be an
// update of held, the version of a pod Berth holds (nil: none). When in is
// that pod (same uid), its labels, containers and tolerations equal to
// held's are shared with held rather than validated and copied again: held
// passed validation, and objects Berth holds are not modified. The result
// and any error are those ObjectFromProto gives.
func ObjectFromProtoHeld(in *berthv1.Object, held *model.Pod) (Object, error) {
	var (
		out Object
		fe  *FieldError
	)
	switch k := in.GetKind().(type) {
	case *berthv1.Object_Node:
		out.Node, fe = node(rootPath(fieldNode), k.Node)
	case *berthv1.Object_Pod:
		out.Pod, fe = pod(rootPath(fieldPod), k.Pod, held)
	case *berthv1.Object_PriorityClass:
		out.PriorityClass, fe = priorityClass(rootPath(fieldPriorityClass), k.PriorityClass)
	case *berthv1.Object_PodDisruptionBudget:
		out.PDB, fe = pdb(rootPath(fieldPDB), k.PodDisruptionBudget)
	case *berthv1.Object_Namespace:
		out.Namespace, fe = namespace(rootPath(fieldNamespace), k.Namespace)
	case *berthv1.Object_DeviceClass:
		out.DeviceClass, fe = deviceClass(rootPath(fieldDeviceClass), k.DeviceClass)
	case *berthv1.Object_ResourceSlice:
		out.ResourceSlice, fe = resourceSlice(rootPath(fieldSlice), k.ResourceSlice)
	case *berthv1.Object_ResourceClaim:
		out.ResourceClaim, fe = resourceClaim(rootPath(fieldClaim), k.ResourceClaim)
	case *berthv1.Object_ResourceClaimTemplate:
		out.ResourceClaimTemplate, fe = resourceClaimTemplate(rootPath(fieldClaimTemplate), k.ResourceClaimTemplate)
	case *berthv1.Object_DeviceTaintRule:
		out.DeviceTaintRule, fe = deviceTaintRule(rootPath(fieldTaintRule), k.DeviceTaintRule)
	case *berthv1.Object_PodGroup:
		out.PodGroup, fe = podGroup(rootPath(fieldPodGroup), k.PodGroup)
	case *berthv1.Object_CompositePodGroup:
		out.CompositePodGroup, fe = compositePodGroup(rootPath(fieldComposite), k.CompositePodGroup)
	case *berthv1.Object_PersistentVolume:
		out.Volume, fe = nonNil(persistentVolume(rootPath(fieldPV), k.PersistentVolume))
	case *berthv1.Object_PersistentVolumeClaim:
		out.Volume, fe = nonNil(persistentVolumeClaim(rootPath(fieldPVC), k.PersistentVolumeClaim))
	case *berthv1.Object_StorageClass:
		out.Volume, fe = nonNil(storageClass(rootPath(fieldClass), k.StorageClass))
	case *berthv1.Object_CsiNode:
		out.Volume, fe = nonNil(csiNode(rootPath(fieldCSINode), k.CsiNode))
	case *berthv1.Object_CsiDriver:
		out.Volume, fe = nonNil(csiDriver(rootPath(fieldCSIDriver), k.CsiDriver))
	case *berthv1.Object_CsiStorageCapacity:
		out.Volume, fe = nonNil(csiStorageCapacity(rootPath(fieldCapacity), k.CsiStorageCapacity))
	case *berthv1.Object_ResourceFlavor:
		out.Queueing, fe = nonNil(resourceFlavor(rootPath(fieldResourceFlavor), k.ResourceFlavor))
	case *berthv1.Object_ClusterQueue:
		out.Queueing, fe = nonNil(clusterQueue(rootPath(fieldClusterQueue), k.ClusterQueue))
	case *berthv1.Object_Cohort:
		out.Queueing, fe = nonNil(cohort(rootPath(fieldCohort), k.Cohort))
	case *berthv1.Object_LocalQueue:
		out.Queueing, fe = nonNil(localQueue(rootPath(fieldLocalQueue), k.LocalQueue))
	case *berthv1.Object_WorkloadPriorityClass:
		out.Queueing, fe = nonNil(workloadPriorityClass(rootPath(fieldWorkloadClass), k.WorkloadPriorityClass))
	case *berthv1.Object_Workload:
		out.Queueing, fe = nonNil(workload(rootPath(fieldWorkload), k.Workload))
	default:
		fe = &FieldError{Reason: "the object has no kind: exactly one of node, pod, priority_class, pod_disruption_budget, namespace, " +
			"pod_group, composite_pod_group, device_class, resource_slice, resource_claim, resource_claim_template, device_taint_rule, persistent_volume, persistent_volume_claim, " +
			"storage_class, csi_node, csi_driver, csi_storage_capacity, resource_flavor, cluster_queue, cohort, local_queue, " +
			"workload_priority_class and workload is required"}
	}
	if fe != nil {
		return Object{}, fe
	}
	return out, nil
}

// ObjectToProto converts an object to its wire form; nil when none is set.
func ObjectToProto(o Object) *berthv1.Object {
	switch {
	case o.Node != nil:
		return &berthv1.Object{Kind: &berthv1.Object_Node{Node: NodeToProto(o.Node)}}
	case o.Pod != nil:
		return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: PodToProto(o.Pod)}}
	case o.PriorityClass != nil:
		return &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: PriorityClassToProto(o.PriorityClass)}}
	case o.PDB != nil:
		return &berthv1.Object{Kind: &berthv1.Object_PodDisruptionBudget{PodDisruptionBudget: PodDisruptionBudgetToProto(o.PDB)}}
	case o.Namespace != nil:
		return &berthv1.Object{Kind: &berthv1.Object_Namespace{Namespace: NamespaceToProto(o.Namespace)}}
	case o.PodGroup != nil:
		return &berthv1.Object{Kind: &berthv1.Object_PodGroup{PodGroup: PodGroupToProto(o.PodGroup)}}
	case o.CompositePodGroup != nil:
		return &berthv1.Object{Kind: &berthv1.Object_CompositePodGroup{CompositePodGroup: CompositePodGroupToProto(o.CompositePodGroup)}}
	case o.DeviceClass != nil:
		return &berthv1.Object{Kind: &berthv1.Object_DeviceClass{DeviceClass: DeviceClassToProto(o.DeviceClass)}}
	case o.ResourceSlice != nil:
		return &berthv1.Object{Kind: &berthv1.Object_ResourceSlice{ResourceSlice: ResourceSliceToProto(o.ResourceSlice)}}
	case o.ResourceClaim != nil:
		return &berthv1.Object{Kind: &berthv1.Object_ResourceClaim{ResourceClaim: ResourceClaimToProto(o.ResourceClaim)}}
	case o.ResourceClaimTemplate != nil:
		return &berthv1.Object{Kind: &berthv1.Object_ResourceClaimTemplate{ResourceClaimTemplate: ResourceClaimTemplateToProto(o.ResourceClaimTemplate)}}
	case o.DeviceTaintRule != nil:
		return &berthv1.Object{Kind: &berthv1.Object_DeviceTaintRule{DeviceTaintRule: DeviceTaintRuleToProto(o.DeviceTaintRule)}}
	case o.Volume != nil:
		return VolumeObjectToProto(o.Volume)
	case o.Queueing != nil:
		return QueueObjectToProto(o.Queueing)
	}
	return nil
}

// ObjectRefOf identifies a wire object as far as it can be read, without
// validating it, for error reports about objects that failed to convert.
// It returns nil for an object with no kind.
func ObjectRefOf(in *berthv1.Object) *berthv1.ObjectRef {
	switch k := in.GetKind().(type) {
	case *berthv1.Object_Node:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NODE, Name: k.Node.GetName()}
	case *berthv1.Object_Pod:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: k.Pod.GetNamespace(), Name: k.Pod.GetName(), Uid: k.Pod.GetUid()}
	case *berthv1.Object_PriorityClass:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS, Name: k.PriorityClass.GetName()}
	case *berthv1.Object_PodDisruptionBudget:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET, Namespace: k.PodDisruptionBudget.GetNamespace(), Name: k.PodDisruptionBudget.GetName()}
	case *berthv1.Object_Namespace:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_NAMESPACE, Name: k.Namespace.GetName()}
	case *berthv1.Object_PodGroup:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD_GROUP, Namespace: k.PodGroup.GetNamespace(), Name: k.PodGroup.GetName()}
	case *berthv1.Object_CompositePodGroup:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP, Namespace: k.CompositePodGroup.GetNamespace(), Name: k.CompositePodGroup.GetName()}
	case *berthv1.Object_DeviceClass:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS, Name: k.DeviceClass.GetName()}
	case *berthv1.Object_ResourceSlice:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE, Name: k.ResourceSlice.GetName()}
	case *berthv1.Object_ResourceClaim:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, Namespace: k.ResourceClaim.GetNamespace(), Name: k.ResourceClaim.GetName()}
	case *berthv1.Object_ResourceClaimTemplate:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE, Namespace: k.ResourceClaimTemplate.GetNamespace(), Name: k.ResourceClaimTemplate.GetName()}
	case *berthv1.Object_DeviceTaintRule:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE, Name: k.DeviceTaintRule.GetName()}
	case *berthv1.Object_PersistentVolume:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME, Name: k.PersistentVolume.GetName()}
	case *berthv1.Object_PersistentVolumeClaim:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, Namespace: k.PersistentVolumeClaim.GetNamespace(), Name: k.PersistentVolumeClaim.GetName()}
	case *berthv1.Object_StorageClass:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS, Name: k.StorageClass.GetName()}
	case *berthv1.Object_CsiNode:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_CSI_NODE, Name: k.CsiNode.GetName()}
	case *berthv1.Object_CsiDriver:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER, Name: k.CsiDriver.GetName()}
	case *berthv1.Object_CsiStorageCapacity:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY, Namespace: k.CsiStorageCapacity.GetNamespace(), Name: k.CsiStorageCapacity.GetName()}
	case *berthv1.Object_ResourceFlavor:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR, Name: k.ResourceFlavor.GetName()}
	case *berthv1.Object_ClusterQueue:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, Name: k.ClusterQueue.GetName()}
	case *berthv1.Object_Cohort:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_COHORT, Name: k.Cohort.GetName()}
	case *berthv1.Object_LocalQueue:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE, Namespace: cmp.Or(k.LocalQueue.GetNamespace(), defaultNamespace), Name: k.LocalQueue.GetName()}
	case *berthv1.Object_WorkloadPriorityClass:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS, Name: k.WorkloadPriorityClass.GetName()}
	case *berthv1.Object_Workload:
		return &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD, Namespace: cmp.Or(k.Workload.GetNamespace(), defaultNamespace), Name: k.Workload.GetName()}
	}
	return nil
}

// Ref identifies an object Berth holds; the validated form of an ObjectRef.
type Ref struct {
	Kind      berthv1.ObjectKind
	Namespace string // namespaced kinds only (Namespaced)
	Name      string
	UID       string // pods only, optional
}

// Namespaced reports whether objects of the kind live in a namespace.
func Namespaced(kind berthv1.ObjectKind) bool {
	switch kind {
	case berthv1.ObjectKind_OBJECT_KIND_POD, berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET, berthv1.ObjectKind_OBJECT_KIND_POD_GROUP,
		berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP,
		berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE,
		berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY,
		berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE, berthv1.ObjectKind_OBJECT_KIND_WORKLOAD:
		return true
	}
	return false
}

// KnownKind reports whether kind is one of the object kinds (not
// UNSPECIFIED, not a number this version does not know).
func KnownKind(kind berthv1.ObjectKind) bool {
	return kind >= berthv1.ObjectKind_OBJECT_KIND_NODE && kind <= berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP ||
		DeviceKind(kind) || isVolumeKind(kind) || QueueKind(kind)
}

func isVolumeKind(kind berthv1.ObjectKind) bool {
	_, ok := volumeKinds[kind]
	return ok
}

// nonNil returns a converted object as an any that is nil when the
// conversion failed (no typed nil in Object.Volume).
func nonNil[T any](v *T, fe *FieldError) (any, *FieldError) {
	if fe != nil || v == nil {
		return nil, fe
	}
	return v, nil
}

// Key is the identity of the object within its kind: "namespace/name" for
// namespaced kinds, the name otherwise. The uid is not part of it.
func (r Ref) Key() string {
	if Namespaced(r.Kind) {
		return r.Namespace + "/" + r.Name
	}
	return r.Name
}

// Proto is the wire form of the reference.
func (r Ref) Proto() *berthv1.ObjectRef {
	return &berthv1.ObjectRef{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, Uid: r.UID}
}

// RefFromProto validates a wire reference; a *FieldError's path is relative
// to the ObjectRef ("namespace").
func RefFromProto(in *berthv1.ObjectRef) (Ref, error) {
	if in == nil {
		return Ref{}, &FieldError{Reason: "required"}
	}
	r := Ref{Kind: in.GetKind(), Namespace: in.GetNamespace(), Name: in.GetName(), UID: in.GetUid()}
	if r.Kind == berthv1.ObjectKind_OBJECT_KIND_UNSPECIFIED {
		return Ref{}, &FieldError{Path: "kind", Reason: "required"}
	}
	if !KnownKind(r.Kind) {
		return Ref{}, &FieldError{Path: "kind", Reason: "unknown value " + r.Kind.String()}
	}
	nameCheck := subdomain
	if r.Kind == berthv1.ObjectKind_OBJECT_KIND_NAMESPACE {
		nameCheck = dnsLabel
	}
	if fe := nameCheck(rootPath("name"), r.Name); fe != nil {
		return Ref{}, fe
	}
	if Namespaced(r.Kind) {
		if fe := dnsLabel(rootPath("namespace"), r.Namespace); fe != nil {
			return Ref{}, fe
		}
	} else if r.Namespace != "" {
		return Ref{}, &FieldError{Path: "namespace", Reason: "must be empty for a " + r.Kind.String()}
	}
	if r.UID != "" && r.Kind != berthv1.ObjectKind_OBJECT_KIND_POD {
		return Ref{}, &FieldError{Path: "uid", Reason: "may only be set for a pod"}
	}
	if fe := checkUID(rootPath("uid"), r.UID, false); fe != nil {
		return Ref{}, fe
	}
	return r, nil
}

// PodRefOf is the wire reference of a pod, with its uid.
func PodRefOf(p *model.Pod) *berthv1.PodRef {
	if p == nil {
		return nil
	}
	return &berthv1.PodRef{Namespace: p.Namespace, Name: p.Name, Uid: p.UID}
}

// PodRefFromProto validates a wire pod reference: namespace and name are
// required, and uid too when requireUID is set. A *FieldError's path is
// relative to the PodRef ("uid").
func PodRefFromProto(in *berthv1.PodRef, requireUID bool) (namespace, name, uid string, err error) {
	if in == nil {
		return "", "", "", &FieldError{Reason: "required"}
	}
	if fe := dnsLabel(rootPath("namespace"), in.GetNamespace()); fe != nil {
		return "", "", "", fe
	}
	if fe := subdomain(rootPath("name"), in.GetName()); fe != nil {
		return "", "", "", fe
	}
	if fe := checkUID(rootPath("uid"), in.GetUid(), requireUID); fe != nil {
		return "", "", "", fe
	}
	return in.GetNamespace(), in.GetName(), in.GetUid(), nil
}

// Value is the object set, in its core type (a *model.Node, ..., a DRA or
// storage object), nil for none: what core/objstore's kinds apply.
func (o Object) Value() any {
	switch {
	case o.Node != nil:
		return o.Node
	case o.Pod != nil:
		return o.Pod
	case o.PriorityClass != nil:
		return o.PriorityClass
	case o.PDB != nil:
		return o.PDB
	case o.Namespace != nil:
		return o.Namespace
	case o.PodGroup != nil:
		return o.PodGroup
	case o.CompositePodGroup != nil:
		return o.CompositePodGroup
	case o.Volume != nil:
		return o.Volume
	case o.Queueing != nil:
		return o.Queueing
	}
	return DeviceObject(o)
}

// StoreKind is core/objstore's name of a wire kind: Kubernetes' name of
// the kind ("Node", "ResourceClaim", ...); "" for a kind this version
// does not know.
func StoreKind(kind berthv1.ObjectKind) objstore.Kind {
	return storeKinds[kind]
}

var storeKinds = map[berthv1.ObjectKind]objstore.Kind{
	berthv1.ObjectKind_OBJECT_KIND_NODE:                    objstore.KindNode,
	berthv1.ObjectKind_OBJECT_KIND_POD:                     objstore.KindPod,
	berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS:          objstore.KindPriorityClass,
	berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET:   objstore.KindPodDisruptionBudget,
	berthv1.ObjectKind_OBJECT_KIND_NAMESPACE:               objstore.KindNamespace,
	berthv1.ObjectKind_OBJECT_KIND_POD_GROUP:               objstore.KindPodGroup,
	berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP:     objstore.KindCompositePodGroup,
	berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS:            dra.KindDeviceClass,
	berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE:          dra.KindResourceSlice,
	berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM:          dra.KindResourceClaim,
	berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE: dra.KindResourceClaimTemplate,
	berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE:       dra.KindDeviceTaintRule,
	berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME:       volume.KindPersistentVolume,
	berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM: volume.KindPersistentVolumeClaim,
	berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS:           volume.KindStorageClass,
	berthv1.ObjectKind_OBJECT_KIND_CSI_NODE:                volume.KindCSINode,
	berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER:              volume.KindCSIDriver,
	berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY:    volume.KindCSIStorageCapacity,
	berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR:         holder.KindResourceFlavor,
	berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE:           holder.KindClusterQueue,
	berthv1.ObjectKind_OBJECT_KIND_COHORT:                  holder.KindCohort,
	berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE:             holder.KindLocalQueue,
	berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS: holder.KindWorkloadPriorityClass,
	berthv1.ObjectKind_OBJECT_KIND_WORKLOAD:                holder.KindWorkload,
}
