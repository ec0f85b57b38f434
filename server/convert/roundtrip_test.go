package convert_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/server/convert"
)

func ptr[T any](v T) *T { return &v }

func sel(key string, op berthv1.LabelSelectorOperator, values ...string) *berthv1.LabelSelector {
	return &berthv1.LabelSelector{
		MatchLabels:      map[string]string{"app": "web"},
		MatchExpressions: []*berthv1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}},
	}
}

// fullPod sets every field of Pod, so the round trip covers them all.
func fullPod() *berthv1.Pod {
	term := &berthv1.PodAffinityTerm{
		LabelSelector:     sel("tier", berthv1.LabelSelectorOperator_LABEL_SELECTOR_OPERATOR_IN, "front", "back"),
		Namespaces:        []string{"default", "prod"},
		TopologyKey:       "topology.kubernetes.io/zone",
		NamespaceSelector: &berthv1.LabelSelector{},
		MatchLabelKeys:    []string{"pod-template-hash"},
		MismatchLabelKeys: []string{"tenant"},
	}
	return &berthv1.Pod{
		Uid: "uid-1", Namespace: "prod", Name: "web-0",
		Labels:            map[string]string{"app": "web", "example.com/tier": "front"},
		SchedulerName:     "batch-scheduler",
		Priority:          ptr(int32(-5)),
		PriorityClassName: "high",
		PreemptionPolicy:  berthv1.PreemptionPolicy_PREEMPTION_POLICY_NEVER,
		Containers: []*berthv1.Container{
			{Name: "app", Image: "docker.io/library/nginx:1.27", Requests: map[string]int64{"cpu": 500, "memory": 1 << 30, "example.com/gpu": 1},
				Ports: []*berthv1.ContainerPort{{ContainerPort: 8080, HostPort: 80, HostIp: "10.0.0.1", Protocol: berthv1.Protocol_PROTOCOL_TCP}}},
			{Name: "log", Requests: map[string]int64{"cpu": 0},
				Ports: []*berthv1.ContainerPort{{ContainerPort: 53, HostPort: 53, Protocol: berthv1.Protocol_PROTOCOL_UDP}, {ContainerPort: 9000}}},
		},
		InitContainers: []*berthv1.Container{
			{Name: "init", Image: "busybox", Requests: map[string]int64{"cpu": 2000}},
			{Name: "proxy", Requests: map[string]int64{"memory": 64 << 20}, RestartPolicy: berthv1.ContainerRestartPolicy_CONTAINER_RESTART_POLICY_ALWAYS,
				Ports: []*berthv1.ContainerPort{{ContainerPort: 15001, Protocol: berthv1.Protocol_PROTOCOL_SCTP}}},
		},
		Overhead:         map[string]int64{"cpu": 250, "memory": 120 << 20},
		PodLevelRequests: map[string]int64{"cpu": 3000, "memory": 2 << 30, "hugepages-2Mi": 4 << 20},
		WorkloadSelectors: []*berthv1.LabelSelector{
			{MatchLabels: map[string]string{"app": "web"}},
			{MatchExpressions: []*berthv1.LabelSelectorRequirement{{Key: "example.com/tier", Operator: berthv1.LabelSelectorOperator_LABEL_SELECTOR_OPERATOR_IN, Values: []string{"back", "front"}}}},
			{},
		},
		NodeSelector: map[string]string{"disk": "ssd"},
		Affinity: &berthv1.Affinity{
			NodeAffinity: &berthv1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &berthv1.NodeSelector{NodeSelectorTerms: []*berthv1.NodeSelectorTerm{{
					MatchExpressions: []*berthv1.NodeSelectorRequirement{
						{Key: "cores", Operator: berthv1.NodeSelectorOperator_NODE_SELECTOR_OPERATOR_GT, Values: []string{"8"}},
						{Key: "gpu", Operator: berthv1.NodeSelectorOperator_NODE_SELECTOR_OPERATOR_EXISTS},
					},
					MatchFields: []*berthv1.NodeSelectorRequirement{
						{Key: "metadata.name", Operator: berthv1.NodeSelectorOperator_NODE_SELECTOR_OPERATOR_NOT_IN, Values: []string{"n9"}},
					},
				}}},
				PreferredDuringSchedulingIgnoredDuringExecution: []*berthv1.PreferredSchedulingTerm{{
					Weight: 40,
					Preference: &berthv1.NodeSelectorTerm{MatchExpressions: []*berthv1.NodeSelectorRequirement{
						{Key: "zone", Operator: berthv1.NodeSelectorOperator_NODE_SELECTOR_OPERATOR_IN, Values: []string{"a", "b"}},
					}},
				}},
			},
			PodAffinity: &berthv1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  []*berthv1.PodAffinityTerm{term},
				PreferredDuringSchedulingIgnoredDuringExecution: []*berthv1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}},
			},
			PodAntiAffinity: &berthv1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []*berthv1.PodAffinityTerm{{
					LabelSelector: sel("app", berthv1.LabelSelectorOperator_LABEL_SELECTOR_OPERATOR_EXISTS),
					TopologyKey:   "kubernetes.io/hostname",
				}},
				PreferredDuringSchedulingIgnoredDuringExecution: []*berthv1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: &berthv1.PodAffinityTerm{
					LabelSelector: sel("app", berthv1.LabelSelectorOperator_LABEL_SELECTOR_OPERATOR_DOES_NOT_EXIST),
					TopologyKey:   "kubernetes.io/hostname",
				}}},
			},
		},
		Tolerations: []*berthv1.Toleration{
			{Key: "dedicated", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EQUAL, Value: "gpu", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE},
			{Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS},
			{Key: "node.kubernetes.io/unreachable", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS, Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE, TolerationSeconds: ptr(int64(300))},
			{Key: "soft", Value: "x", Effect: berthv1.TaintEffect_TAINT_EFFECT_PREFER_NO_SCHEDULE},
		},
		TopologySpreadConstraints: []*berthv1.TopologySpreadConstraint{
			{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: berthv1.UnsatisfiableConstraintAction_UNSATISFIABLE_CONSTRAINT_ACTION_DO_NOT_SCHEDULE,
				LabelSelector: sel("app", berthv1.LabelSelectorOperator_LABEL_SELECTOR_OPERATOR_NOT_IN, "db"), MinDomains: ptr(int32(3)),
				NodeAffinityPolicy: berthv1.NodeInclusionPolicy_NODE_INCLUSION_POLICY_IGNORE, NodeTaintsPolicy: berthv1.NodeInclusionPolicy_NODE_INCLUSION_POLICY_HONOR,
				MatchLabelKeys: []string{"pod-template-hash"}},
			{MaxSkew: 2, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: berthv1.UnsatisfiableConstraintAction_UNSATISFIABLE_CONSTRAINT_ACTION_SCHEDULE_ANYWAY},
		},
		SchedulingGates:   []string{"example.com/quota"},
		NodeName:          "n1",
		NominatedNodeName: "n2",
		CreationTime:      timestamppb.New(time.Date(2025, 3, 1, 12, 0, 0, 123, time.UTC)),
		StartTime:         timestamppb.New(time.Date(2025, 3, 1, 12, 5, 0, 0, time.UTC)),
		Ready:             true,
		Terminating:       true,
		Preempted:         true,
		Runtime: &berthv1.PodRuntime{
			Owners:       []*berthv1.OwnerReference{{Kind: "ReplicaSet", Name: "web-7d", Uid: "rs-1", Controller: true}},
			Annotations:  map[string]string{"descheduler.alpha.kubernetes.io/evict": ""},
			Images:       []string{"nginx:1.27"},
			LocalStorage: true,
			PvcClaims:    []string{"data"},
			QosClass:     berthv1.QOSClass_QOS_CLASS_BURSTABLE,
			Phase:        berthv1.PodPhase_POD_PHASE_RUNNING,
			Reason:       "x",
			Containers: []*berthv1.ContainerStatus{
				{Name: "web", RestartCount: 3, WaitingReason: "CrashLoopBackOff"},
				{Name: "init", Init: true, TerminatedReason: "Completed", ExitCode: ptr(int32(0))},
			},
		},
	}
}

func fullObjects() map[string]*berthv1.Object {
	return map[string]*berthv1.Object{
		"node": {Kind: &berthv1.Object_Node{Node: &berthv1.Node{
			Name:          "n1",
			Labels:        map[string]string{"kubernetes.io/hostname": "n1", "topology.kubernetes.io/zone": "a"},
			Taints:        []*berthv1.Taint{{Key: "dedicated", Value: "gpu", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE}, {Key: "dedicated", Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE}},
			Allocatable:   map[string]int64{"cpu": 4000, "memory": 8 << 30, "pods": 110, "example.com/gpu": 2, "hugepages-2Mi": 1 << 30},
			Unschedulable: true,
			Images: []*berthv1.ContainerImage{
				{Names: []string{"registry.k8s.io/pause:3.10", "registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a"}, SizeBytes: 320368},
				{Names: []string{"docker.io/library/nginx:1.27"}},
			},
		}}},
		"pod": {Kind: &berthv1.Object_Pod{Pod: fullPod()}},
		"priority class": {Kind: &berthv1.Object_PriorityClass{PriorityClass: &berthv1.PriorityClass{
			Name: "high", Value: 1000, GlobalDefault: true, PreemptionPolicy: berthv1.PreemptionPolicy_PREEMPTION_POLICY_PREEMPT_LOWER_PRIORITY, Description: "for people",
		}}},
		"budget with min_available percent": {Kind: &berthv1.Object_PodDisruptionBudget{PodDisruptionBudget: &berthv1.PodDisruptionBudget{
			Namespace: "prod", Name: "web", Selector: sel("tier", berthv1.LabelSelectorOperator_LABEL_SELECTOR_OPERATOR_IN, "front"),
			Budget:             &berthv1.PodDisruptionBudget_MinAvailable{MinAvailable: &berthv1.IntOrPercent{Value: &berthv1.IntOrPercent_Percent{Percent: 50}}},
			DisruptionsAllowed: ptr(int32(0)),
			DisruptedPods:      map[string]*timestamppb.Timestamp{"web-1": timestamppb.New(time.Date(2025, 3, 1, 12, 30, 0, 0, time.UTC))},
		}}},
		"budget with max_unavailable count": {Kind: &berthv1.Object_PodDisruptionBudget{PodDisruptionBudget: &berthv1.PodDisruptionBudget{
			Namespace: "prod", Name: "db", Selector: &berthv1.LabelSelector{},
			Budget: &berthv1.PodDisruptionBudget_MaxUnavailable{MaxUnavailable: &berthv1.IntOrPercent{Value: &berthv1.IntOrPercent_Count{Count: 1}}},
		}}},
		"namespace":   {Kind: &berthv1.Object_Namespace{Namespace: &berthv1.Namespace{Name: "prod", Labels: map[string]string{"team": "a"}}}},
		"minimal pod": {Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{Uid: "u", Namespace: "default", Name: "p", Containers: []*berthv1.Container{{Name: "c"}}}}},
		"pod with claims": {Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
			Uid: "u", Namespace: "default", Name: "p",
			Containers: []*berthv1.Container{{Name: "c", Claims: []string{"gpu", "nic"}}, {Name: "d", Claims: []string{"nic"}}},
			ResourceClaims: []*berthv1.PodResourceClaim{
				{Name: "gpu", ResourceClaimTemplateName: "one-gpu"}, {Name: "nic", ResourceClaimName: "shared-nic"},
			},
		}}},
		"device class": {Kind: &berthv1.Object_DeviceClass{DeviceClass: &berthv1.DeviceClass{
			Name: "gpu", Selectors: []*berthv1.DeviceSelector{{Cel: `device.driver == "gpu.example.com"`}},
		}}},
		"resource slice": {Kind: &berthv1.Object_ResourceSlice{ResourceSlice: slice()}},
		"network slice": {Kind: &berthv1.Object_ResourceSlice{ResourceSlice: &berthv1.ResourceSlice{
			Name: "fabric", Driver: "nic.example.com", Pool: &berthv1.ResourcePool{Name: "fabric", ResourceSliceCount: 1},
			NodeSelector: &berthv1.NodeSelector{NodeSelectorTerms: []*berthv1.NodeSelectorTerm{{MatchExpressions: []*berthv1.NodeSelectorRequirement{
				{Key: "rack", Operator: berthv1.NodeSelectorOperator_NODE_SELECTOR_OPERATOR_IN, Values: []string{"r1"}},
			}}}},
			Devices: []*berthv1.Device{{Name: "nic-0", Attributes: map[string]*berthv1.DeviceAttribute{
				"speed": {Value: &berthv1.DeviceAttribute_Int{Int: 100}}, "rdma": {Value: &berthv1.DeviceAttribute_Bool{Bool: true}},
			}}},
		}}},
		"allocated claim": {Kind: &berthv1.Object_ResourceClaim{ResourceClaim: &berthv1.ResourceClaim{
			Namespace: "default", Name: "shared-nic", Uid: "c1",
			Spec: &berthv1.ResourceClaimSpec{
				Requests: []*berthv1.DeviceRequest{{Name: "n", Exactly: &berthv1.ExactDeviceRequest{
					DeviceClassName: "nic", AllocationMode: berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_EXACT_COUNT, Count: 2, AdminAccess: true,
				}}, {Name: "alt", FirstAvailable: []*berthv1.DeviceSubRequest{
					{Name: "all", DeviceClassName: "nic", AllocationMode: berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_ALL},
				}}},
				Constraints: []*berthv1.DeviceConstraint{{Requests: []string{"n"}, MatchAttribute: "nic.example.com/rack"}},
			},
			Status: &berthv1.ResourceClaimStatus{
				Allocation: &berthv1.AllocationResult{Devices: []*berthv1.DeviceRequestAllocationResult{
					{Request: "n", Driver: "nic.example.com", Pool: "fabric", Device: "nic-0", AdminAccess: true},
				}},
				ReservedFor: []*berthv1.ResourceClaimConsumer{{Name: "p", Uid: "u"}},
			},
		}}},
		"claim template": {Kind: &berthv1.Object_ResourceClaimTemplate{ResourceClaimTemplate: &berthv1.ResourceClaimTemplate{
			Namespace: "default", Name: "one-gpu",
			Spec: &berthv1.ResourceClaimSpec{Requests: []*berthv1.DeviceRequest{{Name: "g", Exactly: &berthv1.ExactDeviceRequest{
				DeviceClassName: "gpu", AllocationMode: berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_EXACT_COUNT, Count: 1,
			}}}},
		}}},
		"tolerating template": {Kind: &berthv1.Object_ResourceClaimTemplate{ResourceClaimTemplate: &berthv1.ResourceClaimTemplate{
			Namespace: "default", Name: "any-gpu",
			Spec: &berthv1.ResourceClaimSpec{Requests: []*berthv1.DeviceRequest{{Name: "g", Exactly: &berthv1.ExactDeviceRequest{
				DeviceClassName: "gpu", AllocationMode: berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_EXACT_COUNT, Count: 1,
				Tolerations: []*berthv1.DeviceToleration{
					{Key: "example.com/maintenance", Operator: berthv1.DeviceTolerationOperator_DEVICE_TOLERATION_OPERATOR_EQUAL, Value: "planned",
						Effect: berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NO_EXECUTE, TolerationSeconds: ptr(int64(60))},
				},
			}}, {Name: "alt", FirstAvailable: []*berthv1.DeviceSubRequest{{
				Name: "any", DeviceClassName: "gpu", AllocationMode: berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_EXACT_COUNT, Count: 1,
				Tolerations: []*berthv1.DeviceToleration{{Operator: berthv1.DeviceTolerationOperator_DEVICE_TOLERATION_OPERATOR_EXISTS}},
			}}}}},
		}}},
		"tainted slice": {Kind: &berthv1.Object_ResourceSlice{ResourceSlice: &berthv1.ResourceSlice{
			Name: "n2-gpus", Driver: "gpu.example.com", Pool: &berthv1.ResourcePool{Name: "n2", ResourceSliceCount: 1}, NodeName: "n2",
			Devices: []*berthv1.Device{{Name: "gpu-0", Taints: []*berthv1.DeviceTaint{
				{Key: "example.com/ecc", Value: "errors", Effect: berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NO_SCHEDULE,
					TimeAdded: timestamppb.New(time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC))},
				{Key: "example.com/note", Effect: berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NONE},
			}}},
		}}},
		"device taint rule": {Kind: &berthv1.Object_DeviceTaintRule{DeviceTaintRule: &berthv1.DeviceTaintRule{
			Name: "drain-gpu-0", DeviceSelector: &berthv1.DeviceTaintSelector{Driver: ptr("gpu.example.com"), Pool: ptr("n1"), Device: ptr("gpu-0")},
			Taint: &berthv1.DeviceTaint{Key: "example.com/maintenance", Value: "planned", Effect: berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NO_SCHEDULE},
		}}},
		"driver-wide taint rule": {Kind: &berthv1.Object_DeviceTaintRule{DeviceTaintRule: &berthv1.DeviceTaintRule{
			Name: "all-nics", DeviceSelector: &berthv1.DeviceTaintSelector{Driver: ptr("nic.example.com")},
			Taint: &berthv1.DeviceTaint{Key: "note", Effect: berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NONE,
				TimeAdded: timestamppb.New(time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC))},
		}}},
	}
}

func TestRoundTrip(t *testing.T) {
	for name, obj := range fullObjects() {
		t.Run(name, func(t *testing.T) {
			m, err := convert.ObjectFromProto(obj)
			if err != nil {
				t.Fatalf("ObjectFromProto: %v", err)
			}
			if diff := cmp.Diff(obj, convert.ObjectToProto(m), protocmp.Transform()); diff != "" {
				t.Errorf("proto -> model -> proto changed the object (-want +got):\n%s", diff)
			}
			if got, want := m.Ref().Proto(), convert.ObjectRefOf(obj); !cmp.Equal(got, want, protocmp.Transform()) {
				t.Errorf("Ref() = %v, ObjectRefOf = %v", got, want)
			}
		})
	}
}

func TestPodPriorityIsRequested(t *testing.T) {
	p, err := convert.PodFromProto(fullPod())
	if err != nil {
		t.Fatal(err)
	}
	if p.RequestedPriority == nil || *p.RequestedPriority != -5 || p.Priority != -5 {
		t.Errorf("priority = %d, requested %v; want -5 and -5", p.Priority, p.RequestedPriority)
	}
	if !p.InitContainers[1].RestartAlways || p.InitContainers[0].RestartAlways {
		t.Errorf("sidecar flags wrong: %+v", p.InitContainers)
	}
}

// TestManifestRoundTrip runs the objects core/manifest reads from
// Kubernetes manifests (what berthctl apply sends) through model -> proto
// -> model.
func TestManifestRoundTrip(t *testing.T) {
	cluster, err := manifest.LoadFiles("../../core/manifest/testdata/workloads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var objs []convert.Object
	for _, n := range cluster.Nodes {
		objs = append(objs, convert.Object{Node: n})
	}
	for _, p := range cluster.Pods {
		objs = append(objs, convert.Object{Pod: p})
	}
	for _, pc := range cluster.PriorityClasses {
		objs = append(objs, convert.Object{PriorityClass: pc})
	}
	for _, pdb := range cluster.PDBs {
		objs = append(objs, convert.Object{PDB: pdb})
	}
	for _, ns := range cluster.Namespaces {
		objs = append(objs, convert.Object{Namespace: ns})
	}
	if len(objs) == 0 {
		t.Fatal("the manifest gave no object")
	}
	for _, o := range objs {
		t.Run(o.Kind().String()+"/"+o.Ref().Key(), func(t *testing.T) {
			back, err := convert.ObjectFromProto(convert.ObjectToProto(o))
			if err != nil {
				t.Fatalf("ObjectFromProto: %v", err)
			}
			if diff := cmp.Diff(o, back, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("model -> proto -> model changed the object (-want +got):\n%s", diff)
			}
		})
	}
}
