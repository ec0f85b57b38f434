package scheduler

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
)

// deviceSink is a fakeSink that takes device decisions too.
type deviceSink struct {
	fakeSink
	mu            sync.Mutex
	boundClaims   map[string][]string // pod -> claim: devices
	deallocations []string            // claim (reason)
	// onDeallocate, if set, runs as a deallocation is submitted.
	onDeallocate func()
}

// Submit records binds with claims and deallocations, and the rest as
// fakeSink does.
func (d *deviceSink) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		var err error
		switch it := item.(type) {
		case *framework.Bind:
			if len(it.Claims) > 0 {
				err = d.BindWithClaims(ctx, it.Pod, it.Node, it.Claims)
			} else {
				err = d.Bind(ctx, it.Pod, it.Node)
			}
		case *framework.Deallocation:
			err = d.DeallocateClaims(ctx, []*resourceapi.ResourceClaim{it.Claim}, it.Reason)
		default:
			err = d.submitItem(ctx, item)
		}
		if err != nil {
			return framework.PlanResult{}, err
		}
	}
	return framework.PlanResult{}, nil
}

func (d *deviceSink) BindWithClaims(ctx context.Context, pod *model.Pod, node string, claims []*resourceapi.ResourceClaim) error {
	d.mu.Lock()
	if d.boundClaims == nil {
		d.boundClaims = map[string][]string{}
	}
	for _, c := range claims {
		d.boundClaims[pod.Key()] = append(d.boundClaims[pod.Key()], c.Name+": "+devicesOf(c))
	}
	d.mu.Unlock()
	return d.Bind(ctx, pod, node)
}

func (d *deviceSink) DeallocateClaims(_ context.Context, claims []*resourceapi.ResourceClaim, reason string) error {
	if d.onDeallocate != nil {
		d.onDeallocate()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range claims {
		d.deallocations = append(d.deallocations, c.Namespace+"/"+c.Name+" ("+reason+")")
	}
	return nil
}

func devicesOf(c *resourceapi.ResourceClaim) string {
	if c.Status.Allocation == nil {
		return "-"
	}
	out := ""
	for i, r := range c.Status.Allocation.Devices.Results {
		if i > 0 {
			out += ","
		}
		out += r.Device
	}
	return out
}

// deviceObjects decodes DRA objects and pods from YAML.
func deviceObjects(t *testing.T, yaml string) (*dra.Objects, map[string]*model.Pod) {
	t.Helper()
	c, err := manifest.Decode("in.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	pods := map[string]*model.Pod{}
	for _, p := range c.Pods {
		pods[p.Name] = p
	}
	return c.Devices, pods
}

const deviceYAML = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: a, uid: uid-a}
spec:
  resourceClaims: [{name: s, resourceClaimName: shared}]
  containers: [{name: c, image: x}]
---
apiVersion: v1
kind: Pod
metadata: {name: t, uid: uid-t}
spec:
  resourceClaims: [{name: g, resourceClaimTemplateName: one}]
  containers: [{name: c, image: x}]
`

func deviceEnv(t *testing.T) (*env, *deviceSink) {
	t.Helper()
	sink := &deviceSink{}
	e := newEnv(t, &testPlugins{}, func(o *Options) { o.Decisions = sink })
	e.sink = &sink.fakeSink
	return e, sink
}

// Bad DRA objects are refused with ErrInvalid and the field; deletes of
// unknown objects are ErrDeviceObjectNotFound.
func TestUpsertDeviceObjectErrors(t *testing.T) {
	e, _ := deviceEnv(t)
	ctx := context.Background()
	dup := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: "gpu.example.com", NodeName: new("n1"),
			Pool:    resourceapi.ResourcePool{Name: "p", ResourceSliceCount: 1},
			Devices: []resourceapi.Device{{Name: "gpu-0"}, {Name: "gpu-0"}},
		},
	}
	badCEL := &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Spec:       resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: "device.driver =="}}}},
	}
	for _, tc := range []struct {
		name  string
		obj   any
		field string
	}{
		{"duplicate device", dup, "spec.devices[1].name"},
		{"CEL that does not compile", badCEL, "spec.selectors[0].cel.expression"},
	} {
		err := e.s.upsertDeviceObject(ctx, tc.obj)
		var fe *dra.FieldError
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) || fe.Path != tc.field {
			t.Errorf("%s: %v, want ErrInvalid naming %s", tc.name, err, tc.field)
		}
	}
	for _, obj := range []any{nil, &corev1.Pod{}, (*resourceapi.DeviceClass)(nil)} {
		if err := e.s.upsertDeviceObject(ctx, obj); !errors.Is(err, ErrInvalid) {
			t.Errorf("upsert %T: %v, want ErrInvalid", obj, err)
		}
	}
	if err := e.s.deleteDeviceObject(ctx, dra.KindResourceClaim, "", "nope"); !errors.Is(err, ErrDeviceObjectNotFound) || !errors.Is(err, ErrNotFound) {
		t.Errorf("delete unknown claim: %v", err)
	}
	if err := e.s.deleteDeviceObject(ctx, "Pod", "", "x"); !errors.Is(err, ErrInvalid) {
		t.Errorf("delete unknown kind: %v", err)
	}
	if got := e.s.View().Claims(); len(got) != 0 {
		t.Errorf("claims after refused upserts: %v", got)
	}
}

// The resourceclaim controller's part: a template claim is made when
// both the pod and the template exist, whichever comes first, and
// deleted with the pod.
func TestTemplateClaimsFollowTheirPod(t *testing.T) {
	e, _ := deviceEnv(t)
	ctx := context.Background()
	_, pods := deviceObjects(t, deviceYAML)
	e.addPods(pods["t"])
	if got := e.s.View().Claims(); len(got) != 0 {
		t.Fatalf("claims before the template: %v", got)
	}
	tmpl := &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "one"},
		Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: "g", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu"}}},
		}}},
	}
	if err := e.s.upsertDeviceObject(ctx, tmpl); err != nil {
		t.Fatal(err)
	}
	claims := e.s.View().Claims()
	want := pods["t"].ResourceClaims[0].ClaimName
	if len(claims) != 1 || claims[0].Name != want || claims[0].OwnerReferences[0].UID != "uid-t" {
		t.Fatalf("claims after the template: %v, want %s owned by t", claims, want)
	}
	if got := claims[0].Spec.Devices.Requests[0].Exactly; got.AllocationMode != resourceapi.DeviceAllocationModeExactCount || got.Count != 1 {
		t.Errorf("template claim not defaulted: %+v", got)
	}
	if err := e.s.DeletePod(ctx, pods["t"]); err != nil {
		t.Fatal(err)
	}
	if got := e.s.View().Claims(); len(got) != 0 {
		t.Errorf("claims after the pod is gone: %v", got)
	}
}

// Allocations restored after a restart survive the re-list (a claim sent
// again without status keeps its allocation), binds carry the claims the
// tracker commits, and the last consumer's deletion deallocates, reported
// to the sink.
func TestClaimsRestoredBoundAndDeallocated(t *testing.T) {
	e, sink := deviceEnv(t)
	ctx := context.Background()
	objs, pods := deviceObjects(t, deviceYAML)
	allocated := objs.Claims["default/shared"].DeepCopy()
	allocated.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Request: "g", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-1"}},
	}}
	allocated.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: "gone", UID: "uid-gone"}}
	e.s.Restore(Restored{Claims: []*resourceapi.ResourceClaim{allocated}})
	for _, o := range []any{objs.Classes["gpu"], objs.Slices["n1"], objs.Claims["default/shared"]} {
		if err := e.s.upsertDeviceObject(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := e.s.View().Claim("default", "shared")
	if got := devicesOf(c); got != "gpu-1" {
		t.Fatalf("shared after the re-list: %s, want the restored gpu-1", got)
	}
	e.addPods(pods["a"])
	// a's Reserve: the allocated claim gains a as consumer.
	if err := e.s.devices.Assume(pods["a"], []*resourceapi.ResourceClaim{c}, make([]resourceapi.AllocationResult, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := framework.SubmitOne(ctx, e.s.decisions, &framework.Bind{Pod: pods["a"], Node: "n1"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]string{"default/a": {"shared: gpu-1"}}, sink.boundClaims); diff != "" {
		t.Errorf("BindWithClaims (-want +got):\n%s", diff)
	}
	f, err := e.s.Resynced(ctx)
	if err != nil || len(f.Claims) != 0 {
		t.Fatalf("forgetting uid-gone while a uses the claim: freed %v, %v", f.Claims, err)
	}
	c, _ = e.s.View().Claim("default", "shared")
	if len(c.Status.ReservedFor) != 1 || c.Status.ReservedFor[0].UID != "uid-a" {
		t.Fatalf("consumers: %v, want a only", c.Status.ReservedFor)
	}
	if err := e.s.DeletePod(ctx, pods["a"]); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"default/shared (" + DeallocationReason + ")"}, sink.deallocations); diff != "" {
		t.Errorf("deallocations (-want +got):\n%s", diff)
	}
	c, _ = e.s.View().Claim("default", "shared")
	if c.Status.Allocation != nil || len(c.Status.ReservedFor) != 0 {
		t.Errorf("shared after its last consumer left: %+v", c.Status)
	}
	if err := e.s.upsertDeviceObject(ctx, allocatedSpecChange(c)); err != nil {
		t.Errorf("changing an unallocated claim's spec: %v", err)
	}
}

// allocatedSpecChange is c with another request name.
func allocatedSpecChange(c *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	cp := c.DeepCopy()
	cp.Spec.Devices.Requests[0].Name = "h"
	return cp
}

// The spec of an allocated claim cannot change.
func TestAllocatedClaimSpecIsImmutable(t *testing.T) {
	e, _ := deviceEnv(t)
	ctx := context.Background()
	objs, _ := deviceObjects(t, deviceYAML)
	c := objs.Claims["default/shared"].DeepCopy()
	c.Status.Allocation = &resourceapi.AllocationResult{}
	if err := e.s.upsertDeviceObject(ctx, c); err != nil {
		t.Fatal(err)
	}
	err := e.s.upsertDeviceObject(ctx, allocatedSpecChange(c))
	var fe *dra.FieldError
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, dra.ErrClaimSpecImmutable) || !errors.As(err, &fe) || fe.Path != "spec" {
		t.Errorf("spec change of an allocated claim: %v, want ErrInvalid and ErrClaimSpecImmutable naming spec", err)
	}
}

// DeviceObjects copies what the scheduler holds, for a simulation.
func TestViewDeviceObjects(t *testing.T) {
	e, _ := deviceEnv(t)
	objs, _ := deviceObjects(t, deviceYAML)
	for _, o := range []any{objs.Classes["gpu"], objs.Slices["n1"], objs.Claims["default/shared"]} {
		if err := e.s.upsertDeviceObject(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	got := e.s.View().DeviceObjects()
	if len(got.Classes) != 1 || len(got.Slices) != 1 || len(got.Claims) != 1 || got.Claims["default/shared"] == nil || len(got.Templates) != 0 {
		t.Errorf("DeviceObjects: %d classes, %d slices, %d claims, %d templates", len(got.Classes), len(got.Slices), len(got.Claims), len(got.Templates))
	}
}

// A pod's deletion frees its devices and submits their Deallocation with
// no scheduling cycle in between: a cycle that saw the devices free first
// could hand them on in a Bind logged before the Deallocation (the TypeScript
// and Java devices examples saw "gpu-0 given to train-2 while train-0
// holds it").
func TestDeletePodDeallocatesBeforeACycleSeesTheDevices(t *testing.T) {
	e, sink := deviceEnv(t)
	ctx := context.Background()
	objs, pods := deviceObjects(t, deviceYAML)
	for _, o := range []any{objs.Classes["gpu"], objs.Slices["n1"], objs.Claims["default/shared"]} {
		if err := e.s.upsertDeviceObject(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	e.addPods(pods["a"])
	c, _ := e.s.View().Claim("default", "shared")
	alloc := []resourceapi.AllocationResult{{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Request: "g", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-1"}},
	}}}
	if err := e.s.devices.Assume(pods["a"], []*resourceapi.ResourceClaim{c}, alloc); err != nil {
		t.Fatal(err)
	}
	if _, err := framework.SubmitOne(ctx, e.s.decisions, &framework.Bind{Pod: pods["a"], Node: "n1"}); err != nil {
		t.Fatal(err)
	}
	cycleCouldRun := false
	sink.onDeallocate = func() {
		if e.s.cycleMu.TryLock() {
			cycleCouldRun = true
			e.s.cycleMu.Unlock()
		}
	}
	if err := e.s.DeletePod(ctx, pods["a"]); err != nil {
		t.Fatal(err)
	}
	if len(sink.deallocations) != 1 {
		t.Fatalf("deallocations: %v, want shared's", sink.deallocations)
	}
	if cycleCouldRun {
		t.Error("a scheduling cycle could run while the freed devices' Deallocation was not yet submitted")
	}
}
