package fullloop_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/simulate/fullloop"
)

// A gang of two that fits only once a running pod of lower priority is
// preempted for it: the loop evicts the pod (and deletes it, as the
// orchestrator), then binds the whole group; a member of a group never
// sent waits at the gate, and its group is listed with minCount 0.
const cluster = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 100
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec: {priorityClassName: high, schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: v1
kind: Pod
metadata: {name: run}
spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: g-0}
spec: {priorityClassName: high, schedulingGroup: {podGroupName: g}, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: g-1}
spec: {priorityClassName: high, schedulingGroup: {podGroupName: g}, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: lost}
spec: {schedulingGroup: {podGroupName: missing}, containers: [{name: c}]}
`

func TestRun(t *testing.T) {
	c, err := manifest.Decode("cluster.yaml", []byte(cluster))
	if err != nil {
		t.Fatal(err)
	}
	in := fullloop.Input{Nodes: c.Nodes, Pods: c.Pods, PriorityClasses: c.PriorityClasses, PodGroups: c.PodGroups}
	res, err := fullloop.Run(t.Context(), in, fullloop.Options{Registry: registry.InTree()})
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, l := range res.Pods {
		results[l.Pod] = l.Result + " " + l.Node
	}
	if diff := cmp.Diff(map[string]string{
		"default/g-0": "bound n1", "default/g-1": "bound n1", "default/lost": "gated ", "default/run": "evicted n1",
	}, results); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	want := []fullloop.GroupLine{
		{Group: "default/g", Result: fullloop.GroupBound, MinCount: 2, Members: 2, Bound: 2},
		{Group: "default/missing", Result: fullloop.GroupWaiting, Members: 1, Message: "waiting for pod group default/missing: it does not exist"},
	}
	if diff := cmp.Diff(want, res.Groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if res.Stalled {
		t.Error("stalled")
	}

	// One cycle is not enough: the run says it stopped short.
	short, err := fullloop.Run(t.Context(), in, fullloop.Options{Registry: registry.InTree(), MaxCycles: 1})
	if err != nil || !short.Stalled || short.Cycles != 1 {
		t.Errorf("MaxCycles 1: %+v, %v; want stalled after 1 cycle", short, err)
	}
	if _, err := fullloop.Run(t.Context(), in, fullloop.Options{}); err == nil {
		t.Error("no registry: no error")
	}
}
