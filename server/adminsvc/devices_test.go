package adminsvc_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
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
		if err := e.sched.UpsertDeviceObject(ctx, o); err != nil {
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
