package convert_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/convert"
)

func slice() *berthv1.ResourceSlice {
	return &berthv1.ResourceSlice{
		Name: "n1-gpus", Driver: "gpu.example.com", NodeName: "n1",
		Pool: &berthv1.ResourcePool{Name: "n1", Generation: 1, ResourceSliceCount: 1},
		Devices: []*berthv1.Device{{
			Name: "gpu-0",
			Attributes: map[string]*berthv1.DeviceAttribute{
				"model":         {Value: &berthv1.DeviceAttribute_String_{String_: "a100"}},
				"driverVersion": {Value: &berthv1.DeviceAttribute_Version{Version: "1.2.0"}},
			},
			Capacity: map[string]string{"memory": "40Gi"},
		}, {Name: "gpu-1"}},
	}
}

func claim() *berthv1.ResourceClaim {
	return &berthv1.ResourceClaim{
		Namespace: "default", Name: "big",
		Spec: &berthv1.ResourceClaimSpec{Requests: []*berthv1.DeviceRequest{{
			Name: "g",
			Exactly: &berthv1.ExactDeviceRequest{
				DeviceClassName: "gpu",
				Selectors:       []*berthv1.DeviceSelector{{Cel: `device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`}},
			},
		}, {
			Name:           "alt",
			FirstAvailable: []*berthv1.DeviceSubRequest{{Name: "two", DeviceClassName: "gpu", Count: 2}, {Name: "all", DeviceClassName: "gpu", AllocationMode: berthv1.DeviceAllocationMode_DEVICE_ALLOCATION_MODE_ALL}},
		}}},
	}
}

// Wire DRA objects become Kubernetes' types, defaulted as kube-apiserver
// defaults them.
func TestDeviceObjectsFromProto(t *testing.T) {
	o, err := convert.ObjectFromProto(&berthv1.Object{Kind: &berthv1.Object_ResourceSlice{ResourceSlice: slice()}})
	if err != nil {
		t.Fatal(err)
	}
	d := o.ResourceSlice.Spec.Devices[0]
	if *o.ResourceSlice.Spec.NodeName != "n1" || *d.Attributes["model"].StringValue != "a100" ||
		*d.Attributes["driverVersion"].VersionValue != "1.2.0" || !d.Capacity["memory"].Value.Equal(resource.MustParse("40Gi")) {
		t.Errorf("slice converted wrongly: %+v", o.ResourceSlice.Spec)
	}
	o, err = convert.ObjectFromProto(&berthv1.Object{Kind: &berthv1.Object_ResourceClaim{ResourceClaim: claim()}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := o.ResourceClaim.Spec.Devices.Requests
	got := []any{reqs[0].Exactly.AllocationMode, reqs[0].Exactly.Count, reqs[1].FirstAvailable[0].Count, reqs[1].FirstAvailable[1].AllocationMode, reqs[1].FirstAvailable[1].Count, string(o.ResourceClaim.UID)}
	want := []any{resourceapi.DeviceAllocationModeExactCount, int64(1), int64(2), resourceapi.DeviceAllocationModeAll, int64(0), "resourceclaim-default-big"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claim defaults (-want +got):\n%s", diff)
	}
}

// Bad DRA objects are refused naming the proto field.
func TestDeviceObjectValidation(t *testing.T) {
	sliceObj := func(edit func(*berthv1.ResourceSlice)) *berthv1.Object {
		s := slice()
		edit(s)
		return &berthv1.Object{Kind: &berthv1.Object_ResourceSlice{ResourceSlice: s}}
	}
	claimObj := func(edit func(*berthv1.ResourceClaim)) *berthv1.Object {
		c := claim()
		edit(c)
		return &berthv1.Object{Kind: &berthv1.Object_ResourceClaim{ResourceClaim: c}}
	}
	podObj := func(edit func(*berthv1.Pod)) *berthv1.Object {
		return podObject(func(p *berthv1.Pod) {
			p.ResourceClaims = []*berthv1.PodResourceClaim{{Name: "gpu", ResourceClaimName: "big"}}
			edit(p)
		})
	}
	for _, tc := range []struct {
		name, wantPath, wantMsg string
		obj                     *berthv1.Object
	}{
		{name: "class CEL does not compile", wantPath: "device_class.selectors[0].cel", wantMsg: "compilation failed",
			obj: &berthv1.Object{Kind: &berthv1.Object_DeviceClass{DeviceClass: &berthv1.DeviceClass{Name: "gpu", Selectors: []*berthv1.DeviceSelector{{Cel: "device.driver =="}}}}}},
		{name: "duplicate device", wantPath: "resource_slice.devices[1].name", wantMsg: `duplicate device name "gpu-0"`,
			obj: sliceObj(func(s *berthv1.ResourceSlice) { s.Devices[1].Name = "gpu-0" })},
		{name: "two placements", wantPath: "resource_slice", wantMsg: "exactly one of nodeName, nodeSelector and allNodes",
			obj: sliceObj(func(s *berthv1.ResourceSlice) { s.AllNodes = true })},
		{name: "pool count", wantPath: "resource_slice.pool.resource_slice_count", wantMsg: "at least 1",
			obj: sliceObj(func(s *berthv1.ResourceSlice) { s.Pool.ResourceSliceCount = 0 })},
		{name: "bad version", wantPath: "resource_slice.devices[0].attributes[driverVersion].version", wantMsg: "not a semantic version",
			obj: sliceObj(func(s *berthv1.ResourceSlice) {
				s.Devices[0].Attributes["driverVersion"] = &berthv1.DeviceAttribute{Value: &berthv1.DeviceAttribute_Version{Version: "v1"}}
			})},
		{name: "bad capacity", wantPath: "resource_slice.devices[0].capacity[memory]", wantMsg: "not a quantity",
			obj: sliceObj(func(s *berthv1.ResourceSlice) { s.Devices[0].Capacity["memory"] = "lots" })},
		{name: "capacity 1e1000", wantPath: "resource_slice.devices[0].capacity[memory]", wantMsg: "must be between 0 and 4611686018427387904",
			obj: sliceObj(func(s *berthv1.ResourceSlice) { s.Devices[0].Capacity["memory"] = "1e1000" })},
		{name: "negative capacity", wantPath: "resource_slice.devices[0].capacity[memory]", wantMsg: "must be between 0",
			obj: sliceObj(func(s *berthv1.ResourceSlice) { s.Devices[0].Capacity["memory"] = "-1" })},
		{name: "count MaxInt64", wantPath: "resource_claim.spec.requests[0].exactly.count", wantMsg: "must be at most 32",
			obj: claimObj(func(c *berthv1.ResourceClaim) { c.Spec.Requests[0].Exactly.Count = math.MaxInt64 })},
		{name: "request selector not a bool", wantPath: "resource_claim.spec.requests[0].exactly.selectors[0].cel", wantMsg: "must evaluate to bool",
			obj: claimObj(func(c *berthv1.ResourceClaim) { c.Spec.Requests[0].Exactly.Selectors[0].Cel = "device.driver" })},
		{name: "no class", wantPath: "resource_claim.spec.requests[0].exactly.device_class_name", wantMsg: "required",
			obj: claimObj(func(c *berthv1.ResourceClaim) { c.Spec.Requests[0].Exactly.DeviceClassName = "" })},
		{name: "exactly and firstAvailable", wantPath: "resource_claim.spec.requests[1]", wantMsg: "both are set",
			obj: claimObj(func(c *berthv1.ResourceClaim) { c.Spec.Requests[1].Exactly = c.Spec.Requests[0].Exactly })},
		{name: "constraint on no request", wantPath: "resource_claim.spec.constraints[0].requests[0]", wantMsg: `no request "x"`,
			obj: claimObj(func(c *berthv1.ResourceClaim) {
				c.Spec.Constraints = []*berthv1.DeviceConstraint{{Requests: []string{"x"}, MatchAttribute: "gpu.example.com/numa"}}
			})},
		{name: "reserved for no uid", wantPath: "resource_claim.status.reserved_for[0].uid", wantMsg: "required",
			obj: claimObj(func(c *berthv1.ResourceClaim) {
				c.Status = &berthv1.ResourceClaimStatus{ReservedFor: []*berthv1.ResourceClaimConsumer{{Name: "p"}}}
			})},
		{name: "slice taint without effect", wantPath: "resource_slice.devices[0].taints[0].effect", wantMsg: "required",
			obj: sliceObj(func(s *berthv1.ResourceSlice) { s.Devices[0].Taints = []*berthv1.DeviceTaint{{Key: "k"}} })},
		{name: "slice taint bad key", wantPath: "resource_slice.devices[1].taints[0].key", wantMsg: "",
			obj: sliceObj(func(s *berthv1.ResourceSlice) {
				s.Devices[1].Taints = []*berthv1.DeviceTaint{{Key: "a b", Effect: berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NO_SCHEDULE}}
			})},
		{name: "toleration exists with value", wantPath: "resource_claim.spec.requests[0].exactly.tolerations[0].value", wantMsg: "must be empty",
			obj: claimObj(func(c *berthv1.ResourceClaim) {
				c.Spec.Requests[0].Exactly.Tolerations = []*berthv1.DeviceToleration{{Key: "k", Operator: berthv1.DeviceTolerationOperator_DEVICE_TOLERATION_OPERATOR_EXISTS, Value: "v"}}
			})},
		{name: "toleration without key not exists", wantPath: "resource_claim.spec.requests[1].first_available[0].tolerations[0].operator", wantMsg: "must be DEVICE_TOLERATION_OPERATOR_EXISTS",
			obj: claimObj(func(c *berthv1.ResourceClaim) {
				c.Spec.Requests[1].FirstAvailable[0].Tolerations = []*berthv1.DeviceToleration{{Value: "v"}}
			})},
		{name: "toleration seconds not NoExecute", wantPath: "resource_claim.spec.requests[0].exactly.tolerations[0].toleration_seconds", wantMsg: "NO_EXECUTE",
			obj: claimObj(func(c *berthv1.ResourceClaim) {
				c.Spec.Requests[0].Exactly.Tolerations = []*berthv1.DeviceToleration{{Key: "k", TolerationSeconds: ptr(int64(1))}}
			})},
		{name: "rule without taint", wantPath: "device_taint_rule.taint", wantMsg: "required",
			obj: &berthv1.Object{Kind: &berthv1.Object_DeviceTaintRule{DeviceTaintRule: &berthv1.DeviceTaintRule{Name: "r"}}}},
		{name: "rule bad driver", wantPath: "device_taint_rule.device_selector.driver", wantMsg: "",
			obj: &berthv1.Object{Kind: &berthv1.Object_DeviceTaintRule{DeviceTaintRule: &berthv1.DeviceTaintRule{Name: "r",
				DeviceSelector: &berthv1.DeviceTaintSelector{Driver: ptr("Not_A_Driver")},
				Taint:          &berthv1.DeviceTaint{Key: "k", Effect: berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NO_SCHEDULE}}}}},
		{name: "rule unknown effect", wantPath: "device_taint_rule.taint.effect", wantMsg: "unknown value 9",
			obj: &berthv1.Object{Kind: &berthv1.Object_DeviceTaintRule{DeviceTaintRule: &berthv1.DeviceTaintRule{Name: "r",
				Taint: &berthv1.DeviceTaint{Key: "k", Effect: 9}}}}},
		{name: "rule bad name", wantPath: "device_taint_rule.name", wantMsg: "",
			obj: &berthv1.Object{Kind: &berthv1.Object_DeviceTaintRule{DeviceTaintRule: &berthv1.DeviceTaintRule{Name: "R R",
				Taint: &berthv1.DeviceTaint{Key: "k", Effect: berthv1.DeviceTaintEffect_DEVICE_TAINT_EFFECT_NO_SCHEDULE}}}}},
		{name: "pod claim with both", wantPath: "pod.resource_claims[0]", wantMsg: "exactly one of",
			obj: podObj(func(p *berthv1.Pod) { p.ResourceClaims[0].ResourceClaimTemplateName = "t" })},
		{name: "container claim naming no entry", wantPath: "pod.containers[1].claims[0]", wantMsg: `no entry "gpus"`,
			obj: podObj(func(p *berthv1.Pod) { p.Containers[1].Claims = []string{"gpus"} })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.ObjectFromProto(tc.obj)
			var fe *convert.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a FieldError", err)
			}
			if fe.Path != tc.wantPath || !strings.Contains(fe.Reason, tc.wantMsg) {
				t.Errorf("got %q: %q, want %q: …%s…", fe.Path, fe.Reason, tc.wantPath, tc.wantMsg)
			}
		})
	}
}

// A pod's template entry is named after the claim Berth makes for it, and
// comes back out as the template entry.
func TestPodClaims(t *testing.T) {
	o, err := convert.ObjectFromProto(podObject(func(p *berthv1.Pod) {
		p.Namespace, p.Name = "default", "infer-1"
		p.ResourceClaims = []*berthv1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: "one-gpu"}, {Name: "s", ResourceClaimName: "shared"}}
		p.Containers[0].Claims = []string{"gpu", "s"}
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.PodResourceClaim{{Name: "gpu", ClaimName: "infer-1-gpu-cnw4c", TemplateName: "one-gpu"}, {Name: "s", ClaimName: "shared"}}
	if diff := cmp.Diff(want, o.Pod.ResourceClaims); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	back := convert.PodToProto(o.Pod).GetResourceClaims()
	if len(back) != 2 || back[0].GetResourceClaimTemplateName() != "one-gpu" || back[1].GetResourceClaimName() != "shared" {
		t.Errorf("back to the wire: %v", back)
	}
}
