package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// draCluster is a node with two GPUs, a class, a template and three pods,
// two claiming a GPU through the template, one through a shared claim: the
// last one finds no GPU left.
const draCluster = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
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
metadata: {name: a}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: shared}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
`

// apply sends DRA objects and pods with claims; berthd allocates, and
// get claims, get deviceclasses, get resourceslices and watch show it.
func TestDevicesAgainstBerthd(t *testing.T) {
	addr, d := startBerthd(t)
	file := filepath.Join(t.TempDir(), "dra.yaml")
	writeFile(t, file, draCluster)
	run := func(args ...string) result {
		t.Helper()
		return berthctl(t, nil, "", append([]string{"--server", addr}, args...)...)
	}
	if got := run("apply", "-f", file); got.code != exitOK || got.stdout != "8 applied\n" {
		t.Fatalf("apply: %+v", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for st := d.Scheduler().View().Stats(); st.BindsInFlight != 2 || st.Queue.Unschedulable != 1; st = d.Scheduler().View().Stats() {
		if time.Now().After(deadline) {
			t.Fatal("the two pods were not bound")
		}
		time.Sleep(10 * time.Millisecond)
	}
	want := `NAMESPACE  NAME         ALLOCATED  NODE  DEVICES                     RESERVED
default    a-gpu-zphxd  yes        n1    g=gpu.example.com/n1/gpu-0  a
default    c-gpu-knnsz  no         -     -                           -
default    shared       yes        n1    g=gpu.example.com/n1/gpu-1  b
`
	if diff := cmp.Diff(want, run("get", "claims").stdout); diff != "" {
		t.Errorf("get claims (-want +got):\n%s", diff)
	}
	js := run("get", "claims", "-o", "json", "-n", "default")
	var resp struct {
		Objects []struct {
			ResourceClaim struct {
				Name   string `json:"name"`
				Status struct {
					Allocation struct {
						Devices []struct{ Device string } `json:"devices"`
					} `json:"allocation"`
				} `json:"status"`
			} `json:"resource_claim"`
		} `json:"objects"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &resp); err != nil || len(resp.Objects) != 3 ||
		resp.Objects[2].ResourceClaim.Status.Allocation.Devices[0].Device != "gpu-1" {
		t.Errorf("get claims -o json: %v\n%s", err, js.stdout)
	}
	if y := run("get", "claims", "-o", "yaml"); y.code != exitOK || !strings.Contains(y.stdout, "device: gpu-1\n") {
		t.Errorf("get claims -o yaml:\n%s%s", y.stdout, y.stderr)
	}
	if diff := cmp.Diff("NAME  SELECTORS\ngpu   device.driver == \"gpu.example.com\"\n", run("get", "deviceclasses").stdout); diff != "" {
		t.Errorf("get deviceclasses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("NAME     DRIVER           POOL  GENERATION  NODE  DEVICES\nn1-gpus  gpu.example.com  n1    0           n1    2\n", run("get", "resourceslices").stdout); diff != "" {
		t.Errorf("get resourceslices (-want +got):\n%s", diff)
	}
	if ex := run("explain", "default/c"); !strings.Contains(ex.stdout, "cannot allocate all claims") {
		t.Errorf("explain default/c:\n%s%s", ex.stdout, ex.stderr)
	}
	w := run("watch", "--from-revision", "1", "--idle-timeout", "200ms")
	if !strings.Contains(w.stdout, "bind default/b -> n1 [default/shared: gpu.example.com/n1/gpu-1]") {
		t.Errorf("watch:\n%s%s", w.stdout, w.stderr)
	}
}
