package simulate

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
)

const engineDevices = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
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
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: c}]
  containers: [{name: c, image: x}]
`

// DRA objects go into an Engine and out of it like other objects: a pod
// whose claim was removed waits for it; upserted again, the claim is
// allocated and the line names its device.
func TestEngineUpsertsDevices(t *testing.T) {
	c, err := manifest.Decode("in.yaml", []byte(engineDevices))
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, Input{Nodes: c.Nodes, Devices: c.Devices})
	claim := c.Devices.Claims["default/c"]
	ctx := context.Background()
	if err := e.Remove(ctx, Object{Device: &resourceapi.ResourceClaim{ObjectMeta: claim.ObjectMeta}}); err != nil {
		t.Fatal(err)
	}
	atts, err := e.Schedule(ctx, []*model.Pod{c.Pods[0]})
	if err != nil || len(atts) != 1 || atts[0].Result != ResultGated || atts[0].Plugin != "DynamicResources" {
		t.Fatalf("without its claim: %+v, %v", atts, err)
	}
	if err := e.Upsert(ctx, Object{Device: claim}); err != nil {
		t.Fatal(err)
	}
	atts, err = e.Schedule(ctx, []*model.Pod{c.Pods[0]})
	if err != nil || len(atts) != 1 {
		t.Fatalf("with its claim: %+v, %v", atts, err)
	}
	want := map[string]ClaimLine{"gpu": {Claim: "default/c", Devices: []string{"gpu.example.com/n1/gpu-0"}}}
	if diff := cmp.Diff(want, atts[0].Claims); diff != "" || atts[0].Result != ResultBound {
		t.Errorf("%s; claims (-want +got):\n%s", atts[0].Result, diff)
	}
	if err := e.Remove(ctx, Object{Device: "not a DRA object"}); err == nil {
		t.Errorf("removing a string: no error")
	}
}

// A DeviceTaintRule goes in and out of an Engine too: upserted, it keeps
// the only GPU from the claim; removed, the claim gets it.
func TestEngineTaintRules(t *testing.T) {
	c, err := manifest.Decode("in.yaml", []byte(engineDevices))
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, Input{Nodes: c.Nodes, Devices: c.Devices})
	ctx := context.Background()
	rule := &dra.DeviceTaintRule{Name: "drain", Selector: &dra.DeviceTaintSelector{},
		Taint: resourceapi.DeviceTaint{Key: "example.com/maintenance", Effect: resourceapi.DeviceTaintEffectNoSchedule}}
	if err := e.Upsert(ctx, Object{Device: rule}); err != nil {
		t.Fatal(err)
	}
	atts, err := e.Schedule(ctx, []*model.Pod{c.Pods[0]})
	if err != nil || len(atts) != 1 || atts[0].Result == ResultBound {
		t.Fatalf("with the GPU tainted: %+v, %v", atts, err)
	}
	if err := e.Remove(ctx, Object{Device: &dra.DeviceTaintRule{Name: "drain"}}); err != nil {
		t.Fatal(err)
	}
	atts, err = e.Schedule(ctx, []*model.Pod{c.Pods[0]})
	if err != nil || len(atts) != 1 || atts[0].Result != ResultBound {
		t.Fatalf("with the rule removed: %+v, %v", atts, err)
	}
}
