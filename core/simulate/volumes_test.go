package simulate

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/model"
)

const engineVolumes = `apiVersion: v1
kind: Node
metadata: {name: a1, labels: {topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b1, labels: {topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: disk-b, labels: {topology.kubernetes.io/zone: b}}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  claimRef: {namespace: default, name: data}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  volumeName: disk-b
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
`

// Storage objects may come in any order: a pod whose claim is not there
// is unschedulable with kube's reason, never bound as if it had none;
// once the claim and its zonal volume arrive, it goes to the volume's
// zone (VolumeZone: the volume has no node affinity, only zone labels).
func TestEngineVolumesInAnyOrder(t *testing.T) {
	c, err := manifest.Decode("in.yaml", []byte(engineVolumes))
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, Input{Nodes: c.Nodes})
	ctx := context.Background()
	atts, err := e.Schedule(ctx, []*model.Pod{c.Pods[0]})
	if err != nil || len(atts) != 1 || atts[0].Result != ResultUnschedulable ||
		atts[0].Reasons["a1"][0] != `persistentvolumeclaim "data" not found` {
		t.Fatalf("without its claim: %+v, %v", atts, err)
	}
	for _, o := range []any{c.Volumes.Claims["default/data"], c.Volumes.Volumes["disk-b"]} {
		if err := e.Upsert(ctx, Object{Volume: o}); err != nil {
			t.Fatal(err)
		}
	}
	atts, err = e.Schedule(ctx, []*model.Pod{c.Pods[0]})
	if err != nil || len(atts) != 1 || atts[0].Result != ResultBound || atts[0].Node != "b1" {
		t.Fatalf("with its claim: %+v, %v", atts, err)
	}
	if err := e.Remove(ctx, Object{Volume: &corev1.PersistentVolume{}}); err != nil {
		t.Errorf("removing an unknown volume: %v", err)
	}
	if err := e.Remove(ctx, Object{Volume: "not a storage object"}); err == nil {
		t.Errorf("removing a string: no error")
	}
}

// The Bind of a pod with WaitForFirstConsumer claims carries what its
// Reserve decided: the volume chosen for a claim, or the node to provision
// one on; a claim already bound is not listed.
func TestBindCarriesVolumeBindings(t *testing.T) {
	c, err := manifest.LoadFiles("testdata/volumes/wait-for-first-consumer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, Input{Nodes: c.Nodes, Volumes: c.Volumes})
	want := map[string][]framework.VolumeBinding{
		"db":         {{Claim: "local-10", Volume: "lpv-a1-big"}},
		"cache":      {{Claim: "local-3", Volume: "lpv-a2"}},
		"shared-1":   {{Claim: "local-shared", Volume: "lpv-b1"}},
		"shared-2":   {{Claim: "local-shared", Volume: "lpv-b1"}},
		"fast-big":   {{Claim: "fast-20", SelectedNode: "n-a1"}},
		"fast-small": {{Claim: "fast-5", SelectedNode: "n-a2"}},
	}
	for _, p := range c.Pods {
		atts, err := e.Schedule(context.Background(), []*model.Pod{p})
		if err != nil || len(atts) != 1 {
			t.Fatalf("%s: %+v, %v", p.Name, atts, err)
		}
		if diff := cmp.Diff(want[p.Name], atts[0].Volumes); diff != "" {
			t.Errorf("%s (%s on %s): volume bindings (-want +got):\n%s", p.Name, atts[0].Result, atts[0].Node, diff)
		}
	}
}
