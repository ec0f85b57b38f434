package dra_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
)

// base: two nodes; n1 has two GPUs on NUMA 0 and 1, n2 one GPU; a NIC
// pool reachable from every node.
const base = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "8", pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: nic}
spec: {selectors: [{cel: {expression: 'device.driver == "nic.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {numa: {int: 0}}}
  - {name: gpu-1, attributes: {numa: {int: 1}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n2}
spec:
  driver: gpu.example.com
  nodeName: n2
  pool: {name: n2, resourceSliceCount: 1}
  devices: [{name: gpu-0, attributes: {numa: {int: 0}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: fabric}
spec:
  driver: nic.example.com
  allNodes: true
  pool: {name: fabric, resourceSliceCount: 1}
  devices: [{name: nic-0}]
`

// Kube's allocation semantics, as the structured allocator gives them.
func TestAllocateSemantics(t *testing.T) {
	for _, tc := range []struct {
		name, docs string
		want       map[string][]string
	}{{
		name: "mode All takes every matching device of the node",
		docs: claimAndPod("all", `[{name: g, exactly: {deviceClassName: gpu, allocationMode: All}}]`),
		want: map[string][]string{"default/p-all": {"n1", "gpu.example.com/n1/gpu-0", "gpu.example.com/n1/gpu-1"}},
	}, {
		name: "count 2 fits n1 only; a second pod gets n2",
		docs: claimAndPod("two", `[{name: g, exactly: {deviceClassName: gpu, count: 2}}]`) +
			claimAndPod("one", `[{name: g, exactly: {deviceClassName: gpu}}]`),
		want: map[string][]string{
			"default/p-two": {"n1", "gpu.example.com/n1/gpu-0", "gpu.example.com/n1/gpu-1"},
			"default/p-one": {"n2", "gpu.example.com/n2/gpu-0"},
		},
	}, {
		name: "firstAvailable falls back to the second alternative",
		docs: claimAndPod("fa", `[{name: g, firstAvailable: [{name: three, deviceClassName: gpu, count: 3}, {name: one, deviceClassName: gpu}]}]`),
		want: map[string][]string{"default/p-fa": {"n1", "gpu.example.com/n1/gpu-0"}},
	}, {
		name: "matchAttribute: two GPUs on one NUMA node exist nowhere",
		docs: claimAndPod("numa", `[{name: a, exactly: {deviceClassName: gpu}}, {name: b, exactly: {deviceClassName: gpu}}]
    constraints: [{requests: [a, b], matchAttribute: gpu.example.com/numa}]`),
		want: map[string][]string{"default/p-numa": {"unschedulable"}},
	}, {
		name: "admin access does not take the device",
		docs: claimAndPod("admin", `[{name: g, exactly: {deviceClassName: gpu, allocationMode: All, adminAccess: true}}]`) +
			claimAndPod("after", `[{name: g, exactly: {deviceClassName: gpu, count: 2}}]`),
		want: map[string][]string{
			"default/p-admin": {"n1", "gpu.example.com/n1/gpu-0", "gpu.example.com/n1/gpu-1"},
			"default/p-after": {"n1", "gpu.example.com/n1/gpu-0", "gpu.example.com/n1/gpu-1"},
		},
	}, {
		name: "a network-attached device is allocated once, from any node",
		docs: claimAndPod("nic1", `[{name: nc, exactly: {deviceClassName: nic}}]`) +
			claimAndPod("nic2", `[{name: nc, exactly: {deviceClassName: nic}}]`),
		want: map[string][]string{
			"default/p-nic1": {"n1", "nic.example.com/fabric/nic-0"},
			"default/p-nic2": {"unschedulable"},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := manifest.Decode("in.yaml", []byte(base+tc.docs))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, placeInOrder(t, c)); diff != "" {
				t.Errorf("allocations (-want +got):\n%s", diff)
			}
		})
	}
}

// claimAndPod is a claim with the given requests and a pod using it, both
// named after name.
func claimAndPod(name, requests string) string {
	return `---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: ` + name + `}
spec:
  devices:
    requests: ` + requests + `
---
apiVersion: v1
kind: Pod
metadata: {name: p-` + name + `}
spec:
  resourceClaims: [{name: c, resourceClaimName: ` + name + `}]
  containers: [{name: c, image: x}]
`
}
