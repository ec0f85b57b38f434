package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/scheduler"
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

// twoGPUNodes is two nodes with one GPU each and two pods that take them.
const twoGPUNodes = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n2-gpus}
spec: {driver: gpu.example.com, nodeName: n2, pool: {name: n2, resourceSliceCount: 1}, devices: [{name: gpu-0}]}
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
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
`

// A pod claiming a GPU when both are taken: explain names its claim and
// request on each node, and why (the GPUs are in use), in text and json.
func TestExplainDevicesAgainstBerthd(t *testing.T) {
	addr, d := startBerthd(t)
	dir := t.TempDir()
	run := func(args ...string) result {
		t.Helper()
		return berthctl(t, nil, "", append([]string{"--server", addr}, args...)...)
	}
	apply := func(name, manifest string) {
		t.Helper()
		file := filepath.Join(dir, name)
		writeFile(t, file, manifest)
		if got := run("apply", "-f", file); got.code != exitOK {
			t.Fatalf("apply %s: %+v", name, got)
		}
	}
	// waitFor polls the scheduler's stats until ok.
	waitFor := func(what string, ok func(scheduler.Stats) bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(d.Scheduler().View().Stats()); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %+v", what, d.Scheduler().View().Stats())
			}
		}
	}
	apply("cluster.yaml", twoGPUNodes)
	waitFor("a and b bound", func(st scheduler.Stats) bool { return st.BindsInFlight == 2 })
	// train comes once both GPUs are taken, so it is the one left out.
	apply("train.yaml", `apiVersion: v1
kind: Pod
metadata: {name: train}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
`)
	waitFor("train unschedulable", func(st scheduler.Stats) bool { return st.Queue.Unschedulable == 1 })

	got := run("explain", "default/train")
	if got.code != exitOK {
		t.Fatalf("explain: %+v", got)
	}
	_, devices, ok := strings.Cut(got.stdout, "\nDevices, as they are now:\n")
	want := `
  NODE  WHY THE CLAIMS CANNOT BE ALLOCATED
  n1    claim default/train-gpu-2mxrw, request g: the devices matching it are in use
  n2    claim default/train-gpu-2mxrw, request g: the devices matching it are in use
`
	if diff := cmp.Diff(want, devices); !ok || diff != "" {
		t.Errorf("explain's devices (-want +got):\n%s\nwhole output:\n%s", diff, got.stdout)
	}
	for _, s := range []string{"Rejected by:    DynamicResources", "n1    cannot allocate all claims", "n2    cannot allocate all claims"} {
		if !strings.Contains(got.stdout, s) {
			t.Errorf("explain lacks %q:\n%s", s, got.stdout)
		}
	}

	js := run("explain", "-o", "json", "default/train")
	var resp struct {
		DeviceReasons []struct {
			Node    string   `json:"node"`
			Reasons []string `json:"reasons"`
		} `json:"device_reasons"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &resp); err != nil || len(resp.DeviceReasons) != 2 ||
		resp.DeviceReasons[0].Node != "n1" || resp.DeviceReasons[1].Node != "n2" ||
		!strings.Contains(resp.DeviceReasons[0].Reasons[0], "request g: the devices matching it are in use") {
		t.Errorf("explain -o json: %v\n%s", err, js.stdout)
	}
}
