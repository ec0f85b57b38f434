package berth

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// A session matches the refusals of a re-list to the calls it superseded by
// identity, and decides what a re-list supersedes by kind: every kind of
// object needs its own, namespaced where berthd names it so.
func TestIdentityOfEveryKind(t *testing.T) {
	tests := []struct {
		name string
		obj  *berthv1.Object
		want identity
	}{
		{"node", &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{Name: "n1"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_NODE, "", "n1"}},
		{"pod", &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{Namespace: "ns", Name: "p"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_POD, "ns", "p"}},
		{"priority_class", &berthv1.Object{Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{Name: "gold"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_PRIORITY_CLASS, "", "gold"}},
		{"pod_disruption_budget", &berthv1.Object{Kind: &berthv1.Object_PodDisruptionBudget{PodDisruptionBudget: &berthv1.PodDisruptionBudget{Namespace: "ns", Name: "b"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_POD_DISRUPTION_BUDGET, "ns", "b"}},
		{"namespace", &berthv1.Object{Kind: &berthv1.Object_Namespace{Namespace: &berthv1.Namespace{Name: "ns"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_NAMESPACE, "", "ns"}},
		{"pod_group", &berthv1.Object{Kind: &berthv1.Object_PodGroup{PodGroup: &berthv1.PodGroup{Namespace: "ns", Name: "g"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_POD_GROUP, "ns", "g"}},
		{"composite_pod_group", &berthv1.Object{Kind: &berthv1.Object_CompositePodGroup{CompositePodGroup: &berthv1.CompositePodGroup{Namespace: "ns", Name: "g"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP, "ns", "g"}},
		{"device_class", &berthv1.Object{Kind: &berthv1.Object_DeviceClass{DeviceClass: &berthv1.DeviceClass{Name: "gpu"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS, "", "gpu"}},
		{"resource_slice", &berthv1.Object{Kind: &berthv1.Object_ResourceSlice{ResourceSlice: &berthv1.ResourceSlice{Name: "s"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_RESOURCE_SLICE, "", "s"}},
		{"resource_claim", &berthv1.Object{Kind: &berthv1.Object_ResourceClaim{ResourceClaim: &berthv1.ResourceClaim{Namespace: "ns", Name: "c"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, "ns", "c"}},
		{"resource_claim_template", &berthv1.Object{Kind: &berthv1.Object_ResourceClaimTemplate{ResourceClaimTemplate: &berthv1.ResourceClaimTemplate{Namespace: "ns", Name: "t"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE, "ns", "t"}},
		{"device_taint_rule", &berthv1.Object{Kind: &berthv1.Object_DeviceTaintRule{DeviceTaintRule: &berthv1.DeviceTaintRule{Name: "r"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_DEVICE_TAINT_RULE, "", "r"}},
		{"persistent_volume", &berthv1.Object{Kind: &berthv1.Object_PersistentVolume{PersistentVolume: &berthv1.PersistentVolume{Name: "pv"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME, "", "pv"}},
		{"persistent_volume_claim", &berthv1.Object{Kind: &berthv1.Object_PersistentVolumeClaim{PersistentVolumeClaim: &berthv1.PersistentVolumeClaim{Namespace: "ns", Name: "c"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, "ns", "c"}},
		{"storage_class", &berthv1.Object{Kind: &berthv1.Object_StorageClass{StorageClass: &berthv1.StorageClass{Name: "fast"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_STORAGE_CLASS, "", "fast"}},
		{"csi_node", &berthv1.Object{Kind: &berthv1.Object_CsiNode{CsiNode: &berthv1.CSINode{Name: "n1"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_CSI_NODE, "", "n1"}},
		{"csi_driver", &berthv1.Object{Kind: &berthv1.Object_CsiDriver{CsiDriver: &berthv1.CSIDriver{Name: "d"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_CSI_DRIVER, "", "d"}},
		{"csi_storage_capacity", &berthv1.Object{Kind: &berthv1.Object_CsiStorageCapacity{CsiStorageCapacity: &berthv1.CSIStorageCapacity{Namespace: "ns", Name: "cap"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_CSI_STORAGE_CAPACITY, "ns", "cap"}},
		{"resource_flavor", &berthv1.Object{Kind: &berthv1.Object_ResourceFlavor{ResourceFlavor: &berthv1.ResourceFlavor{Name: "spot"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR, "", "spot"}},
		{"cluster_queue", &berthv1.Object{Kind: &berthv1.Object_ClusterQueue{ClusterQueue: &berthv1.ClusterQueue{Name: "cq"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, "", "cq"}},
		{"cohort", &berthv1.Object{Kind: &berthv1.Object_Cohort{Cohort: &berthv1.Cohort{Name: "org"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_COHORT, "", "org"}},
		{"local_queue", &berthv1.Object{Kind: &berthv1.Object_LocalQueue{LocalQueue: &berthv1.LocalQueue{Namespace: "ns", Name: "lq"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE, "ns", "lq"}},
		{"workload_priority_class", &berthv1.Object{Kind: &berthv1.Object_WorkloadPriorityClass{WorkloadPriorityClass: &berthv1.WorkloadPriorityClass{Name: "high"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS, "", "high"}},
		{"workload", &berthv1.Object{Kind: &berthv1.Object_Workload{Workload: &berthv1.Workload{Namespace: "ns", Name: "w"}}},
			identity{berthv1.ObjectKind_OBJECT_KIND_WORKLOAD, "ns", "w"}},
		{"no kind", &berthv1.Object{}, identity{}},
	}
	cased := map[protoreflect.Name]bool{}
	for _, tt := range tests {
		cased[protoreflect.Name(tt.name)] = true
		t.Run(tt.name, func(t *testing.T) {
			if got := identityOf(tt.obj); got != tt.want {
				t.Errorf("identityOf = %+v, want %+v", got, tt.want)
			}
			up := &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: tt.obj}}
			if got := mutationKind(up); got != tt.want.kind {
				t.Errorf("mutationKind = %v, want %v", got, tt.want.kind)
			}
		})
	}
	fields := (&berthv1.Object{}).ProtoReflect().Descriptor().Oneofs().ByName("kind").Fields()
	for i := range fields.Len() {
		if name := fields.Get(i).Name(); !cased[name] {
			t.Errorf("object kind %s has no case here", name)
		}
	}
}
