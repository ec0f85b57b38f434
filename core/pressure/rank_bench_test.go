package pressure

import (
	"time"

	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	statsv1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// BenchmarkSynchronize110 is one memory-pressure pass over a node with 110
// pods (the kubelet's default maximum): observe, rank, pick, message.
func BenchmarkSynchronize110(b *testing.B) {
	cfg, err := Settings{}.Parse()
	if err != nil {
		b.Fatal(err)
	}
	s, pods := node110()
	b.ReportAllocs()
	for b.Loop() {
		if r := Synchronize(cfg, State{}, benchNow, s, pods); r.Evicted == nil {
			b.Fatal("nothing evicted")
		}
	}
}

// BenchmarkRank110 is the ranking alone, for memory, of 110 pods.
func BenchmarkRank110(b *testing.B) {
	s, pods := node110()
	b.ReportAllocs()
	for b.Loop() {
		if r := Rank(SignalMemoryAvailable, pods, s); len(r) != len(pods) {
			b.Fatal("lost pods")
		}
	}
}

// node110: 110 pods requesting 500Mi and using 100Mi..1000Mi, five
// priorities, on a node with 50Mi available.
func node110() (*statsv1.Summary, []*Pod) {
	avail, ws := uint64(50<<20), uint64(60<<30)
	s := &statsv1.Summary{Node: statsv1.NodeStats{NodeName: "n1", Memory: &statsv1.MemoryStats{AvailableBytes: &avail, WorkingSetBytes: &ws}}}
	var pods []*Pod
	for i := range 110 {
		uid := fmt.Sprintf("u%d", i)
		use := uint64(100+(i*37)%900) << 20
		pods = append(pods, &Pod{UID: uid, Namespace: "d", Name: fmt.Sprintf("p%d", i), Priority: int32(i % 5),
			MemoryRequest: *resource.NewQuantity(int64(500<<20), resource.BinarySI),
			Containers:    []Container{{Name: "app", MemoryRequest: *resource.NewQuantity(int64(500<<20), resource.BinarySI)}}})
		s.Pods = append(s.Pods, statsv1.PodStats{PodRef: statsv1.PodReference{Name: fmt.Sprintf("p%d", i), Namespace: "d", UID: uid},
			Memory:     &statsv1.MemoryStats{WorkingSetBytes: &use},
			Containers: []statsv1.ContainerStats{{Name: "app", Memory: &statsv1.MemoryStats{WorkingSetBytes: &use}}}})
	}
	return s, pods
}

var benchNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
