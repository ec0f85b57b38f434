package manifest_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
)

const draNode = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
`

// Bad DRA objects are refused with the document and the field at fault.
func TestDRAValidation(t *testing.T) {
	expensive := `[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))`
	for _, tc := range []struct {
		name, doc, want string
	}{{
		name: "CEL does not compile",
		doc: `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: bad}
spec: {selectors: [{cel: {expression: 'device.driver =='}}]}`,
		want: "spec.selectors[0].cel.expression: compilation failed: ",
	}, {
		name: "CEL not a bool",
		doc: `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: bad}
spec: {selectors: [{cel: {expression: 'device.driver'}}]}`,
		want: "spec.selectors[0].cel.expression: must evaluate to bool",
	}, {
		name: "CEL over the cost limit",
		doc: `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu, selectors: [{cel: {expression: '` + strings.ReplaceAll(expensive, "'", "''") + `'}}]}}]}}`,
		want: "spec.devices.requests[0].exactly.selectors[0].cel.expression: the estimated cost of the expression (85555551) exceeds the limit (1000000)",
	}, {
		name: "duplicate device names",
		doc: `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-0}]`,
		want: `spec.devices[2].name: duplicate device name "gpu-0" (also spec.devices[0])`,
	}, {
		name: "slice on no node",
		doc: `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: n1, resourceSliceCount: 1}`,
		want: "spec: exactly one of nodeName, nodeSelector and allNodes is required, 0 are set",
	}, {
		name: "bad version attribute",
		doc: `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  allNodes: true
  pool: {name: p, resourceSliceCount: 1}
  devices: [{name: gpu-0, attributes: {driverVersion: {version: "1.2"}}}]`,
		want: `spec.devices[0].attributes[driverVersion].version: "1.2" is not a semantic version`,
	}, {
		name: "count with mode All",
		doc: `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu, allocationMode: All, count: 2}}]}}`,
		want: "spec.devices.requests[0].exactly.count: must not be set for allocationMode All, is 2",
	}, {
		name: "constraint naming no request",
		doc: `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests: [{name: g, exactly: {deviceClassName: gpu}}]
    constraints: [{requests: [g, h], matchAttribute: gpu.example.com/numa}]`,
		want: `spec.devices.constraints[0].requests[1]: no request "h" in the claim`,
	}, {
		name: "device taint rule with a bad effect",
		doc: `apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: r}
spec: {deviceSelector: {driver: gpu.example.com}, taint: {key: example.com/k, effect: PreferNoSchedule}}`,
		want: `spec.taint.effect: unsupported value "PreferNoSchedule"`,
	}, {
		name: "device taint rule with an unknown field",
		doc: `apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: r}
spec: {deviceSelector: {deviceClassName: gpu}, taint: {key: example.com/k, effect: NoSchedule}}`,
		want: `deviceClassName`,
	}, {
		name: "container claim naming no entry",
		doc: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: c}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpus}]}}]`,
		want: `spec.containers[0].resources.claims[0].name: no entry "gpus" in spec.resourceClaims`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.Decode("in.yaml", []byte(draNode+"---\n"+tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A pod's template entry gets the claim Berth makes for it, named as
// kubeoracle names it, with the template's defaulted spec; a named claim
// is used as it is.
func TestDRATemplateClaims(t *testing.T) {
	c, err := manifest.Decode("in.yaml", []byte(draNode+`---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: infer-1}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}, {name: s, resourceClaimName: shared}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}, {name: s}]}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.PodResourceClaim{
		{Name: "gpu", ClaimName: "infer-1-gpu-cnw4c", TemplateName: "one-gpu"},
		{Name: "s", ClaimName: "shared"},
	}
	if diff := cmp.Diff(want, c.Pods[0].ResourceClaims); diff != "" {
		t.Errorf("pod claims (-want +got):\n%s", diff)
	}
	made, ok := c.Devices.Claims["default/infer-1-gpu-cnw4c"]
	if !ok {
		t.Fatalf("no claim made from the template; claims: %v", c.Devices.Claims)
	}
	r := made.Spec.Devices.Requests[0].Exactly
	if r.AllocationMode != "ExactCount" || r.Count != 1 || made.Annotations["resource.kubernetes.io/pod-claim-name"] != "gpu" {
		t.Errorf("made claim: mode %q count %d annotations %v, want defaulted ExactCount 1 and pod-claim-name gpu", r.AllocationMode, r.Count, made.Annotations)
	}
}

// kube 1.37's v1 DeviceTaintRule (and v1beta2's) is read as the scheduler
// reads it: its selector and its taint.
func TestDRADeviceTaintRule(t *testing.T) {
	for _, version := range []string{"v1", "v1beta2"} {
		t.Run(version, func(t *testing.T) {
			c, err := manifest.Decode("in.yaml", []byte(draNode+`---
apiVersion: resource.k8s.io/`+version+`
kind: DeviceTaintRule
metadata: {name: broken}
spec:
  deviceSelector: {driver: gpu.example.com, pool: n1, device: gpu-0}
  taint: {key: example.com/broken, value: "yes", effect: NoSchedule}
`))
			if err != nil {
				t.Fatal(err)
			}
			r := c.Devices.TaintRules["broken"]
			if r == nil || r.Selector == nil || *r.Selector.Device != "gpu-0" || *r.Selector.Pool != "n1" || r.Taint.Key != "example.com/broken" || r.Taint.Effect != "NoSchedule" {
				t.Fatalf("rule read as %+v", r)
			}
		})
	}
}
