package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// v1alpha2Warning is what berthctl says of a 1.36 PodGroup in document 2
// of standard input.
const v1alpha2Warning = "berthctl: warning: <stdin>: document 2 (PodGroup default/train): " +
	"scheduling.k8s.io/v1alpha2 PodGroup is Kubernetes 1.36's spelling, removed in 1.37: write scheduling.k8s.io/v1beta1 " +
	"(spec.workloadRef {workloadName, templateName} instead of spec.podGroupTemplateRef.workload, " +
	"spec.disruptionMode {single: {}} | {all: {}} instead of Pod | PodGroup)\n"

// gangCluster is a node, a pod group written in apiVersion and its two
// members.
func gangCluster(apiVersion, disruptionMode string) string {
	return `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: ` + apiVersion + `
kind: PodGroup
metadata: {name: train}
spec: {schedulingPolicy: {gang: {minCount: 2}}, disruptionMode: ` + disruptionMode + `}
---
apiVersion: v1
kind: Pod
metadata: {name: w0}
spec: {schedulingGroup: {podGroupName: train}, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: w1}
spec: {schedulingGroup: {podGroupName: train}, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`
}

// berthctl simulate reads 1.36's PodGroup spelling with a warning on
// standard error; the trace on standard output is byte for byte the one
// of 1.37's spelling, which warns of nothing.
func TestSimulateWarnsV1alpha2(t *testing.T) {
	for _, output := range []string{"json", "text"} {
		t.Run(output, func(t *testing.T) {
			old := berthctl(t, nil, gangCluster("scheduling.k8s.io/v1alpha2", "Pod"), "simulate", "-f", "-", "-o", output)
			cur := berthctl(t, nil, gangCluster("scheduling.k8s.io/v1beta1", "{single: {}}"), "simulate", "-f", "-", "-o", output)
			if old.code != exitOK || cur.code != exitOK {
				t.Fatalf("v1alpha2: %+v\nv1beta1: %+v", old, cur)
			}
			if diff := cmp.Diff(v1alpha2Warning, old.stderr); diff != "" {
				t.Errorf("v1alpha2 stderr (-want +got):\n%s", diff)
			}
			if cur.stderr != "" {
				t.Errorf("v1beta1 stderr %q, want nothing", cur.stderr)
			}
			if !strings.Contains(cur.stdout, "default/w1") {
				t.Fatalf("v1beta1 trace lacks default/w1:\n%s", cur.stdout)
			}
			if diff := cmp.Diff(cur.stdout, old.stdout); diff != "" {
				t.Errorf("trace (-v1beta1 +v1alpha2):\n%s", diff)
			}
		})
	}
}
