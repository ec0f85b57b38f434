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

// taintedGPUs is a node with two GPUs, gpu-0 tainted by a DeviceTaintRule,
// and two pods claiming a GPU each without tolerating the taint.
const taintedGPUs = `apiVersion: resource.k8s.io/v1
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
spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1}, devices: [{name: gpu-0}, {name: gpu-1}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}}
`

// drainRule taints gpu-0 of n1.
const drainRule = `apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain-gpu-0}
spec:
  deviceSelector: {driver: gpu.example.com, pool: n1, device: gpu-0}
  taint: {key: example.com/maintenance, value: planned, effect: NoSchedule}
`

// podOnTemplate is a pod claiming one GPU through the template.
func podOnTemplate(name string) string {
	return `apiVersion: v1
kind: Pod
metadata: {name: ` + name + `}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
`
}

// DeviceTaintRules through berthd: a rule keeps its device from requests
// that do not tolerate it, a tolerating request may have it, deleting the
// rule frees it, get devicetaintrules lists it, and NoExecute is refused
// naming the field.
func TestDeviceTaintRulesAgainstBerthd(t *testing.T) {
	addr, d := startBerthd(t)
	dir := t.TempDir()
	run := func(args ...string) result {
		t.Helper()
		return berthctl(t, nil, "", append([]string{"--server", addr}, args...)...)
	}
	file := func(name, manifest string) string {
		f := filepath.Join(dir, name)
		writeFile(t, f, manifest)
		return f
	}
	apply := func(name, manifest string) {
		t.Helper()
		if got := run("apply", "-f", file(name, manifest)); got.code != exitOK {
			t.Fatalf("apply %s: %+v", name, got)
		}
	}
	waitFor := func(what string, ok func(scheduler.Stats) bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(d.Scheduler().View().Stats()); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %+v", what, d.Scheduler().View().Stats())
			}
		}
	}
	claims := func() string {
		t.Helper()
		got := run("get", "claims")
		if got.code != exitOK {
			t.Fatalf("get claims: %+v", got)
		}
		return got.stdout
	}

	ruleFile := file("rule.yaml", drainRule)
	if got := run("apply", "-f", file("cluster.yaml", taintedGPUs), "-f", ruleFile); got.code != exitOK || got.stdout != "5 applied\n" {
		t.Fatalf("apply: %+v", got)
	}
	want := "NAME         DEVICES                   TAINT\ndrain-gpu-0  gpu.example.com/n1/gpu-0  example.com/maintenance=planned:NoSchedule\n"
	if diff := cmp.Diff(want, run("get", "devicetaintrules").stdout); diff != "" {
		t.Errorf("get devicetaintrules (-want +got):\n%s", diff)
	}
	var listed struct {
		Objects []struct {
			Rule struct {
				Name  string `json:"name"`
				Taint struct {
					Effect string `json:"effect"`
				} `json:"taint"`
			} `json:"device_taint_rule"`
		} `json:"objects"`
	}
	js := run("get", "devicetaintrules", "-o", "json")
	if err := json.Unmarshal([]byte(js.stdout), &listed); err != nil || len(listed.Objects) != 1 ||
		listed.Objects[0].Rule.Name != "drain-gpu-0" || listed.Objects[0].Rule.Taint.Effect != "DEVICE_TAINT_EFFECT_NO_SCHEDULE" {
		t.Errorf("get devicetaintrules -o json: %v\n%s", err, js.stdout)
	}

	// a gets gpu-1; b, tolerating nothing, finds only the tainted gpu-0.
	apply("a.yaml", podOnTemplate("a"))
	waitFor("a bound", func(st scheduler.Stats) bool { return st.BindsInFlight == 1 })
	apply("b.yaml", podOnTemplate("b"))
	waitFor("b unschedulable", func(st scheduler.Stats) bool { return st.Queue.Unschedulable == 1 })
	want = `NAMESPACE  NAME         ALLOCATED  NODE  DEVICES                     RESERVED
default    a-gpu-zphxd  yes        n1    g=gpu.example.com/n1/gpu-1  a
default    b-gpu-gc9kl  no         -     -                           -
`
	if diff := cmp.Diff(want, claims()); diff != "" {
		t.Errorf("get claims with gpu-0 tainted (-want +got):\n%s", diff)
	}

	// Deleting the rule frees gpu-0 for b.
	if got := run("delete", "-f", ruleFile); got.code != exitOK {
		t.Fatalf("delete rule: %+v", got)
	}
	waitFor("b bound", func(st scheduler.Stats) bool { return st.BindsInFlight == 2 })
	if got := claims(); !strings.Contains(got, "b-gpu-gc9kl  yes        n1    g=gpu.example.com/n1/gpu-0  b") {
		t.Errorf("b did not get gpu-0 once the rule was deleted:\n%s", got)
	}
	if got := run("get", "devicetaintrules"); got.stdout != "NAME  DEVICES  TAINT\n" {
		t.Errorf("get devicetaintrules after the delete: %+v", got)
	}

	// The rule again, b gone: a request tolerating the taint gets gpu-0.
	apply("rule.yaml", drainRule)
	if got := run("delete", "pod", "default/b"); got.code != exitOK {
		t.Fatalf("delete b: %+v", got)
	}
	waitFor("b gone", func(st scheduler.Stats) bool { return st.BindsInFlight == 1 })
	apply("tolerant.yaml", `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: tolerant}
spec:
  devices:
    requests:
    - name: g
      exactly:
        deviceClassName: gpu
        tolerations: [{key: example.com/maintenance, operator: Exists, effect: NoSchedule}]
---
apiVersion: v1
kind: Pod
metadata: {name: t}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: tolerant}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
`)
	waitFor("t bound", func(st scheduler.Stats) bool { return st.BindsInFlight == 2 })
	if got := claims(); !strings.Contains(got, "tolerant     yes        n1    g=gpu.example.com/n1/gpu-0  t") {
		t.Errorf("the tolerating claim did not get gpu-0:\n%s", got)
	}

	// NoExecute is refused, naming the field, and the rule held is kept.
	got := run("apply", "-f", file("noexecute.yaml", strings.Replace(drainRule, "NoSchedule", "NoExecute", 1)))
	if got.code == exitOK || !strings.Contains(got.stderr, "device_taint_rule.taint.effect: NoExecute is not supported") ||
		!strings.Contains(got.stderr, "(INVALID_ARGUMENT)") {
		t.Errorf("apply of a NoExecute rule: %+v", got)
	}
	if got := run("get", "devicetaintrules"); !strings.Contains(got.stdout, ":NoSchedule") {
		t.Errorf("the refused NoExecute version replaced the rule: %+v", got)
	}
}

// simulate --server sends the manifests' DeviceTaintRules with the rest:
// berthd's simulation, like the offline one, keeps the tainted gpu-0 from
// the pod.
func TestSimulateDeviceTaintRuleInBerthd(t *testing.T) {
	addr, _ := startBerthd(t)
	f := filepath.Join(t.TempDir(), "all.yaml")
	writeFile(t, f, taintedGPUs+"---\n"+drainRule+"---\n"+podOnTemplate("a"))
	offline := berthctl(t, nil, "", "simulate", "-f", f)
	inBerthd := berthctl(t, nil, "", "simulate", "--server", addr, "-f", f)
	if inBerthd.code != exitOK || !strings.Contains(inBerthd.stdout, `"devices":["gpu.example.com/n1/gpu-1"]`) {
		t.Fatalf("simulate --server: %+v", inBerthd)
	}
	if diff := cmp.Diff(offline.stdout, inBerthd.stdout); diff != "" {
		t.Errorf("simulate offline and in berthd differ (-offline +berthd):\n%s", diff)
	}
}
