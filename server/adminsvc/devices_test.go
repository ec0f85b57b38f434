package adminsvc_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/scheduler"
)

func TestListDeviceObjects(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	class := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}
	claim := func(ns, name string) *resourceapi.ResourceClaim {
		c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("u-" + name)}}
		c.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "g", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu"}}}
		return c
	}
	for _, o := range []any{class, claim("a", "c1"), claim("b", "c2")} {
		if err := e.sched.Upsert(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := e.client.ListDeviceObjects(ctx, &berthv1.ListDeviceObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_CLAIM, Namespace: "b"})
	if err != nil {
		t.Fatal(err)
	}
	want := []*berthv1.Object{{Kind: &berthv1.Object_ResourceClaim{ResourceClaim: &berthv1.ResourceClaim{
		Namespace: "b", Name: "c2", Uid: "u-c2",
		Spec: &berthv1.ResourceClaimSpec{Requests: []*berthv1.DeviceRequest{{Name: "g", Exactly: &berthv1.ExactDeviceRequest{
			DeviceClassName: "gpu", AllocationMode: berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_EXACT_COUNT, Count: 1,
		}}}},
	}}}}
	if diff := cmp.Diff(want, resp.GetObjects(), protocmp.Transform()); diff != "" {
		t.Errorf("claims of namespace b (-want +got):\n%s", diff)
	}
	resp, err = e.client.ListDeviceObjects(ctx, &berthv1.ListDeviceObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS})
	if err != nil || len(resp.GetObjects()) != 1 || resp.GetObjects()[0].GetDeviceClass().GetName() != "gpu" {
		t.Errorf("classes = %v, %v", resp.GetObjects(), err)
	}
	for _, bad := range []*berthv1.ListDeviceObjectsRequest{
		{Kind: berthv1.ObjectKind_OBJECT_KIND_POD},
		{Kind: berthv1.ObjectKind_OBJECT_KIND_DEVICE_CLASS, Namespace: "a"},
	} {
		if _, err := e.client.ListDeviceObjects(ctx, bad); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%v: %v, want INVALID_ARGUMENT", bad, err)
		}
	}
}

// gpuNode is a node with a slice of one GPU and a claim holding it.
func gpuNode(name string) (*model.Node, *resourceapi.ResourceSlice, *resourceapi.ResourceClaim) {
	n := mt.MakeNode(name).Label(model.LabelHostname, name).Capacity(mt.Res(4000, 8*mt.Gi)).Obj()
	slice := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: "gpu.example.com", NodeName: &n.Name,
			Pool:    resourceapi.ResourcePool{Name: name, ResourceSliceCount: 1},
			Devices: []resourceapi.Device{{Name: "gpu-0"}},
		},
	}
	held := gpuClaim("held-"+name, "g")
	held.Status.Allocation = &resourceapi.AllocationResult{
		Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
			{Request: "g", Driver: "gpu.example.com", Pool: name, Device: "gpu-0"}}},
		NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{name}}}}}},
	}
	held.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "user-" + name, UID: types.UID("uid-user-" + name)}}
	return n, slice, held
}

// gpuClaim asks for one GPU of class gpu in default, by request name.
func gpuClaim(name, request string) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("u-" + name)}}
	c.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: request, Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu"}}}
	return c
}

// Explain carries, per node DynamicResources rejected, which claim and
// request cannot be allocated there, sorted by node.
func TestExplainDeviceReasons(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	class := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}
	if err := e.sched.Upsert(ctx, class); err != nil {
		t.Fatal(err)
	}
	// n2 before n1: the order of the answer is not the order of arrival.
	for _, name := range []string{"n2", "n1"} {
		n, slice, held := gpuNode(name)
		e.load(t, []*model.Node{n})
		for _, o := range []any{slice, held} {
			if err := e.sched.Upsert(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.sched.Upsert(ctx, gpuClaim("train", "gpu")); err != nil {
		t.Fatal(err)
	}
	p := pod("trainer", 100).Obj()
	p.ResourceClaims = []model.PodResourceClaim{{Name: "gpu", ClaimName: "train"}}
	e.load(t, nil, p, pod("plain", 100_000).Obj())
	for range 2 {
		if att, err := e.sched.ScheduleOne(ctx); err != nil || att.Result != scheduler.ResultUnschedulable {
			t.Fatalf("ScheduleOne = %+v, %v", att, err)
		}
	}
	tests := []struct {
		pod  string
		want []*berthv1.NodeDeviceReasons
	}{
		{"trainer", []*berthv1.NodeDeviceReasons{
			{Node: "n1", Reasons: []string{"claim default/train, request gpu: the devices matching it are in use"}},
			{Node: "n2", Reasons: []string{"claim default/train, request gpu: the devices matching it are in use"}},
		}},
		// No claims: rejected for its cpu, nothing about devices.
		{"plain", nil},
	}
	for _, tc := range tests {
		t.Run(tc.pod, func(t *testing.T) {
			resp, err := e.client.Explain(ctx, &berthv1.ExplainRequest{Pod: &berthv1.PodRef{Namespace: "default", Name: tc.pod}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, resp.GetDeviceReasons(), protocmp.Transform()); diff != "" {
				t.Errorf("device_reasons (-want +got):\n%s", diff)
			}
		})
	}
}
