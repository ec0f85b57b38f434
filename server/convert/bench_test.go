package convert_test

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/server/convert"
)

// BenchmarkPodFromProto measures validating and converting a fully
// populated pod, the ingest path of every pod upsert.
func BenchmarkPodFromProto(b *testing.B) {
	p := fullPod()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.PodFromProto(p); err != nil {
			b.Fatal(err)
		}
	}
}

// basicPodObject is a pod as bench/workload's basic workload sends it
// (bench/cli podObject): one container, two default tolerations.
func basicPodObject(nodeName string) *berthv1.Object {
	secs := int64(300)
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: "pod-default-pod-000042", Namespace: "default", Name: "pod-000042",
		Labels:        map[string]string{"app": "basic"},
		SchedulerName: "default-scheduler",
		NodeName:      nodeName,
		Ready:         true,
		CreationTime:  timestamppb.New(time.Date(2026, 1, 1, 0, 0, 42, 0, time.UTC)),
		Containers:    []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": 100, "memory": 256 << 20}}},
		Tolerations: []*berthv1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS, Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE, TolerationSeconds: &secs},
			{Key: "node.kubernetes.io/unreachable", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS, Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE, TolerationSeconds: &secs},
		},
	}}}
}

// BenchmarkObjectFromProtoBasicPod measures the Sync path's conversion of a
// basic workload pod (the paths start at "pod", as in Sync).
func BenchmarkObjectFromProtoBasicPod(b *testing.B) {
	o := basicPodObject("")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.ObjectFromProto(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObjectFromProtoRichPod is BenchmarkPodFromProto through
// ObjectFromProto.
func BenchmarkObjectFromProtoRichPod(b *testing.B) {
	o := &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: fullPod()}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.ObjectFromProto(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObjectFromProtoNode converts a node as bench/workload makes
// them.
func BenchmarkObjectFromProtoNode(b *testing.B) {
	o := &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: "node-000042",
		Labels: map[string]string{
			"kubernetes.io/hostname": "node-000042", "topology.kubernetes.io/zone": "zone-2",
			"topology.kubernetes.io/region": "region-1", "kubernetes.io/os": "linux",
			"kubernetes.io/arch": "amd64", "node.kubernetes.io/pool": "default",
		},
		Allocatable: map[string]int64{"cpu": 32000, "memory": 128 << 30, "pods": 110},
	}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.ObjectFromProto(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObjectFromProtoHeldBasicPod converts a bind confirmation: the
// basic pod again with node_name set, with the version held.
func BenchmarkObjectFromProtoHeldBasicPod(b *testing.B) {
	held, err := convert.ObjectFromProto(basicPodObject(""))
	if err != nil {
		b.Fatal(err)
	}
	o := basicPodObject("node-000007")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.ObjectFromProtoHeld(o, held.Pod); err != nil {
			b.Fatal(err)
		}
	}
}
