package main

import (
	"strings"
	"testing"
)

// A pod claiming devices is refused rather than placed without them; DRA
// objects alone load.
func TestLoadClusterRefusesDeviceClaims(t *testing.T) {
	class := `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
`
	if _, err := loadCluster([]source{{name: "a.yaml", data: []byte(class)}}); err != nil {
		t.Fatalf("DRA objects without claiming pods: %v", err)
	}
	pod := class + `---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims: [{name: g, resourceClaimName: c}]
  containers: [{name: c, image: x}]
`
	_, err := loadCluster([]source{{name: "a.yaml", data: []byte(pod)}})
	want := "a.yaml: document 3: pod default/p: spec.resourceClaims: dynamic resource allocation is not scheduled"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
}
