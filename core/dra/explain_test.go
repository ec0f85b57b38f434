package dra_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berthsched/berth/core/dra"
	"github.com/berthsched/berth/core/manifest"
)

// explainCluster: n1 has two GPUs on different NUMA nodes.
const explainCluster = `apiVersion: resource.k8s.io/v1
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
  devices:
  - {name: gpu-0, attributes: {numa: {int: 0}}}
  - {name: gpu-1, attributes: {numa: {int: 1}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: same-numa}
spec:
  devices:
    requests:
    - {name: a, exactly: {deviceClassName: gpu}}
    - {name: b, exactly: {deviceClassName: gpu}}
    constraints: [{requests: [a, b], matchAttribute: gpu.example.com/numa}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu, count: 2}}]}}
`

// Explain names the claim whose requests fit one by one but not under its
// constraint, and claims that fit alone but not together.
func TestExplain(t *testing.T) {
	c, err := manifest.Decode("in.yaml", []byte(explainCluster))
	if err != nil {
		t.Fatal(err)
	}
	tr := dra.NewTracker()
	tr.Load(c.Devices)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	claim := func(name string) *resourceapi.ResourceClaim {
		cl, ok := tr.Claim("default", name)
		if !ok {
			t.Fatalf("no claim %s", name)
		}
		return cl
	}
	for _, tc := range []struct {
		claims []string
		want   []string
	}{
		{[]string{"one"}, nil},
		{[]string{"same-numa"}, []string{"claim default/same-numa: its requests fit one by one, not together (constraints, or devices they compete for)"}},
		{[]string{"one", "two"}, []string{"each claim fits alone, not all together (devices they compete for)"}},
	} {
		var cs []*resourceapi.ResourceClaim
		for _, n := range tc.claims {
			cs = append(cs, claim(n))
		}
		if diff := cmp.Diff(tc.want, tr.Explain(t.Context(), cs, node)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tc.claims, diff)
		}
	}
}
