package dra_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
)

// trackerCluster: n1 with two GPUs, a shared claim, a template, and pods
// using them.
const trackerCluster = `apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: resource.k8s.io/v1
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
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one}
spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}
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
metadata: {name: b, uid: uid-b}
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

type trackerRun struct {
	t    *testing.T
	tr   *dra.Tracker
	pods map[string]*model.Pod
	node *corev1.Node
}

func newTrackerRun(t *testing.T) *trackerRun {
	c, err := manifest.Decode("in.yaml", []byte(trackerCluster))
	if err != nil {
		t.Fatal(err)
	}
	objs := c.Devices
	// The tracker plays the resourceclaim controller itself.
	for k, cl := range objs.Claims {
		if len(cl.OwnerReferences) > 0 {
			delete(objs.Claims, k)
		}
	}
	r := &trackerRun{t: t, tr: dra.NewTracker(), pods: map[string]*model.Pod{}, node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}}
	r.tr.Load(objs)
	for _, p := range c.Pods {
		r.pods[p.Name] = p
	}
	return r
}

// allocate runs a pod's reserve: allocate its unallocated claims on n1
// and assume them; ok is false when they do not fit.
func (r *trackerRun) allocate(name string) (ok bool, err error) {
	p := r.pods[name]
	claims, err := r.tr.PodClaims(p)
	if err != nil {
		return false, err
	}
	var pending []*resourceapi.ResourceClaim
	for _, c := range claims {
		if c.Status.Allocation == nil {
			pending = append(pending, c)
		}
	}
	a, err := r.tr.NewAllocator(r.t.Context(), pending)
	if err != nil {
		r.t.Fatal(err)
	}
	res, ok, err := a.Allocate(r.t.Context(), r.node)
	if err != nil || !ok {
		return ok, err
	}
	results := make([]resourceapi.AllocationResult, len(claims))
	j := 0
	for i, c := range claims {
		if c.Status.Allocation == nil {
			results[i] = res[j]
			j++
		}
	}
	return true, r.tr.Assume(p, claims, results)
}

func (r *trackerRun) devices(ns, name string) []string {
	c, ok := r.tr.Claim(ns, name)
	if !ok || c.Status.Allocation == nil {
		return nil
	}
	var out []string
	for _, d := range c.Status.Allocation.Devices.Results {
		out = append(out, d.Device)
	}
	return out
}

// Devices are never allocated twice: in-flight allocations count, a
// forgotten one frees its devices, a committed one keeps them.
func TestTrackerInFlight(t *testing.T) {
	r := newTrackerRun(t)
	r.tr.AddPod(r.pods["t"])
	if ok, err := r.allocate("t"); !ok || err != nil {
		t.Fatalf("t: %t %v", ok, err)
	}
	tClaim := r.pods["t"].ResourceClaims[0].ClaimName
	if got := r.devices("default", tClaim); !cmp.Equal(got, []string{"gpu-0"}) {
		t.Fatalf("t's claim in flight: %v, want [gpu-0]", got)
	}
	if ok, err := r.allocate("a"); !ok || err != nil {
		t.Fatalf("a: %t %v", ok, err)
	}
	if got := r.devices("default", "shared"); !cmp.Equal(got, []string{"gpu-1"}) {
		t.Fatalf("shared: %v, want gpu-1 (gpu-0 is in flight)", got)
	}
	// b shares the claim a has in flight: it waits.
	if _, err := r.allocate("b"); !errors.Is(err, dra.ErrClaimInFlight) {
		t.Fatalf("b while a's allocation is in flight: %v, want ErrClaimInFlight", err)
	}
	r.tr.Forget(r.pods["a"])
	if got := r.devices("default", "shared"); got != nil {
		t.Fatalf("shared after Forget: %v, want unallocated", got)
	}
	r.tr.Commit(r.pods["t"])
	if ok, err := r.allocate("b"); !ok || err != nil {
		t.Fatalf("b: %t %v", ok, err)
	}
	r.tr.Commit(r.pods["b"])
	// a now follows the allocation b committed.
	if ok, err := r.allocate("a"); !ok || err != nil {
		t.Fatalf("a after b: %t %v", ok, err)
	}
	r.tr.Commit(r.pods["a"])
	c, _ := r.tr.Claim("default", "shared")
	if got := len(c.Status.ReservedFor); got != 2 {
		t.Errorf("shared reserved for %d pods, want 2", got)
	}
	if got := r.devices("default", "shared"); !cmp.Equal(got, []string{"gpu-1"}) {
		t.Errorf("shared: %v, want gpu-1", got)
	}
}

// A device allocated behind the tracker's back (two allocators prepared
// before either assumed) is refused at Assume.
func TestTrackerRefusesDoubleAllocation(t *testing.T) {
	r := newTrackerRun(t)
	r.tr.AddPod(r.pods["t"])
	pa, _ := r.tr.PodClaims(r.pods["a"])
	pt, _ := r.tr.PodClaims(r.pods["t"])
	aa, _ := r.tr.NewAllocator(t.Context(), pa)
	at, _ := r.tr.NewAllocator(t.Context(), pt)
	ra, _, _ := aa.Allocate(t.Context(), r.node)
	rt, _, _ := at.Allocate(t.Context(), r.node)
	if err := r.tr.Assume(r.pods["a"], pa, ra); err != nil {
		t.Fatal(err)
	}
	if err := r.tr.Assume(r.pods["t"], pt, rt); !errors.Is(err, dra.ErrDeviceTaken) {
		t.Fatalf("second allocation of gpu-0: %v, want ErrDeviceTaken", err)
	}
}

// The resourceclaim controller's part: a template claim is made for the
// pod and deleted with it; a shared claim is deallocated when its last
// consumer is gone.
func TestTrackerPodLifecycle(t *testing.T) {
	r := newTrackerRun(t)
	if _, err := r.tr.PodClaims(r.pods["t"]); !errors.Is(err, dra.ErrClaimMissing) {
		t.Fatalf("before AddPod: %v, want ErrClaimMissing", err)
	}
	r.tr.AddPod(r.pods["t"])
	for _, name := range []string{"t", "a", "b"} {
		if ok, err := r.allocate(name); !ok || err != nil {
			t.Fatalf("%s: %t %v", name, ok, err)
		}
		r.tr.Commit(r.pods[name])
	}
	tClaim := "default/" + r.pods["t"].ResourceClaims[0].ClaimName
	if diff := cmp.Diff([]string{tClaim}, freed(r.tr.RemovePod(r.pods["t"]))); diff != "" {
		t.Errorf("t removed: freed (-want +got):\n%s", diff)
	}
	if _, ok := r.tr.Claim("default", r.pods["t"].ResourceClaims[0].ClaimName); ok {
		t.Errorf("t's claim outlived t")
	}
	if got := freed(r.tr.RemovePod(r.pods["a"])); len(got) != 0 {
		t.Errorf("a removed while b uses the claim: freed %v, want nothing", got)
	}
	if diff := cmp.Diff([]string{"default/shared"}, freed(r.tr.RemovePod(r.pods["b"]))); diff != "" {
		t.Errorf("b, the last consumer, removed: freed (-want +got):\n%s", diff)
	}
	if got := r.devices("default", "shared"); got != nil {
		t.Errorf("shared still allocated: %v", got)
	}
}

// freed lists the keys of the claims whose allocation a change took away.
func freed(changes []dra.ClaimChange) []string {
	var out []string
	for _, c := range changes {
		if c.Freed() {
			out = append(out, c.Old.Namespace+"/"+c.Old.Name)
		}
	}
	return out
}

// Members of one pod group share an allocation in flight: a member that
// is forgotten leaves it to the others; the last one forgotten takes it
// out of flight.
func TestTrackerGroupSharesInFlight(t *testing.T) {
	r := newTrackerRun(t)
	a, b := *r.pods["a"], *r.pods["b"]
	a.SchedulingGroup, b.SchedulingGroup = "g", "g"
	r.pods["a"], r.pods["b"] = &a, &b
	if ok, err := r.allocate("a"); !ok || err != nil {
		t.Fatalf("a: %t %v", ok, err)
	}
	c, wait, ok := r.tr.ClaimFor(&b, "default", "shared")
	if !ok || wait || c.Status.Allocation == nil {
		t.Fatalf("b sees shared: wait %t, allocated %t", wait, ok && c.Status.Allocation != nil)
	}
	if err := r.tr.Assume(&b, []*resourceapi.ResourceClaim{c}, make([]resourceapi.AllocationResult, 1)); err != nil {
		t.Fatal(err)
	}
	outsider := *r.pods["t"]
	if _, wait, _ := r.tr.ClaimFor(&outsider, "default", "shared"); !wait {
		t.Errorf("a pod of no group does not wait for the group's allocation")
	}
	r.tr.Forget(&a)
	if got := r.devices("default", "shared"); got == nil {
		t.Fatalf("shared left flight while b still holds it")
	}
	if diff := cmp.Diff([]string{"uid-b"}, consumers(r.tr.BindClaims(&b))); diff != "" {
		t.Errorf("b's bind claims' consumers (-want +got):\n%s", diff)
	}
	r.tr.Forget(&b)
	if got := r.devices("default", "shared"); got != nil {
		t.Errorf("shared still in flight after both were forgotten: %v", got)
	}
}

func consumers(cs []*resourceapi.ResourceClaim) []string {
	var out []string
	for _, c := range cs {
		for _, r := range c.Status.ReservedFor {
			out = append(out, string(r.UID))
		}
	}
	return out
}

// A claim's allocation naming a device no slice holds yet is kept (objects
// arrive in any order): once the slice arrives, the device is in use and
// is not handed out again.
func TestTrackerAllocationBeforeItsSlice(t *testing.T) {
	r := newTrackerRun(t)
	slice := r.tr.DeleteSlice("n1")
	if slice == nil {
		t.Fatal("no slice n1 to delete")
	}
	shared, _ := r.tr.Claim("default", "shared")
	allocated := shared.DeepCopy()
	allocated.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Request: "g", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}},
	}}
	if _, err := r.tr.SetClaim(allocated); err != nil {
		t.Fatalf("an allocation naming a device no slice holds: %v, want it kept", err)
	}
	r.tr.SetSlice(slice)
	r.tr.AddPod(r.pods["t"])
	claims, err := r.tr.PodClaims(r.pods["t"])
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.tr.NewAllocator(t.Context(), claims)
	if err != nil {
		t.Fatal(err)
	}
	res, ok, err := a.Allocate(t.Context(), r.node)
	if err != nil || !ok {
		t.Fatalf("Allocate = %v, %v", ok, err)
	}
	if got := res[0].Devices.Results[0].Device; got != "gpu-1" {
		t.Errorf("template claim got %s, want gpu-1 (gpu-0 is the shared claim's)", got)
	}
}
