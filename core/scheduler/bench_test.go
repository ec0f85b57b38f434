package scheduler

import (
	"context"
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/registry"
)

// benchWorkloads are kubeoracle's synthetic workloads (its throughput
// mode): every pod requests 100m cpu and 256Mi.
var benchWorkloads = []struct {
	name string
	pod  func(i int) *model.Pod
}{
	{"basic", func(i int) *model.Pod { return benchPod(i).Obj() }},
	{"spread", func(i int) *model.Pod {
		return benchPod(i).Label("app", "spread").Spread(model.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: model.LabelZone, WhenUnsatisfiable: model.DoNotSchedule,
			LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
		}).Obj()
	}},
	{"antiaffinity", func(i int) *model.Pod {
		group := fmt.Sprintf("g%d", i%10)
		return benchPod(i).Label("group", group).PodAntiAffinity(0, model.PodAffinityTerm{
			LabelSelector: &model.LabelSelector{MatchLabels: map[string]string{"group": group}},
			TopologyKey:   model.LabelHostname,
		}).Obj()
	}},
}

func benchPod(i int) *mt.PodBuilder {
	return mt.MakePod(fmt.Sprintf("pod-%06d", i)).Req(mt.Res(100, 256*mt.Mi))
}

// BenchmarkScheduleOne measures a pod's way through the scheduler: adding
// it, its scheduling cycle (pop, filter, score, assume, reserve, permit),
// the inline binding cycle and the confirmation of its bind, on clusters
// of kubeoracle's synthetic nodes (32 cpu, 128Gi, 110 pods, 10 zones) with
// the default profile, parallelism 16 and the adaptive percentage of
// nodes to score. The oldest pods are deleted once there are five per node. The cycles are Run's:
// they keep no details for the caller.
func BenchmarkScheduleOne(b *testing.B) {
	for _, w := range benchWorkloads {
		for _, nodes := range []int{500, 5000} {
			b.Run(fmt.Sprintf("%s/%dnodes", w.name, nodes), func(b *testing.B) { benchmarkScheduleOne(b, nodes, w.pod) })
		}
	}
}

func benchmarkScheduleOne(b *testing.B, nodes int, makePod func(int) *model.Pod) {
	ctx := context.Background()
	reg := registry.InTree()
	s, err := New(ctx, Options{
		Config:    withoutMissing(config.Default(), reg),
		Registry:  reg,
		Decisions: &fakeSink{},
		Replay:    Replay{BindInline: true},
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range nodes {
		n := mt.MakeNode(fmt.Sprintf("node-%05d", i)).Zone(fmt.Sprintf("zone-%d", i%10)).
			Capacity(model.ResourceList{model.ResourceCPU: 32000, model.ResourceMemory: 128 * mt.Gi, model.ResourcePods: 110}).Obj()
		if err := s.addNode(ctx, n); err != nil {
			b.Fatal(err)
		}
	}
	var running []*model.Pod
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		p := makePod(i)
		if err := s.AddPod(ctx, p); err != nil {
			b.Fatal(err)
		}
		att, err := s.scheduleNext(ctx, false)
		if err != nil || att.Result != ResultScheduled || att.BindStatus != nil {
			b.Fatalf("attempt %d: %v %+v", i, err, att)
		}
		bound := *p
		bound.NodeName = att.Node
		if err := s.AddPod(ctx, &bound); err != nil {
			b.Fatal(err)
		}
		// Keep five pods per node on average, so that any b.N fits
		// (anti-affinity allows one pod of each of the ten groups per node).
		running = append(running, &bound)
		if len(running) > 5*nodes {
			if err := s.DeletePod(ctx, running[0]); err != nil {
				b.Fatal(err)
			}
			running = running[1:]
		}
	}
}

// BenchmarkScheduleOneDRA is BenchmarkScheduleOne's basic workload with a
// device claim per pod: 8 GPUs per node, each pod's own claim asking for
// one GPU with ECC (half the GPUs have it); a pod's claim is sent before
// it, deleted with it.
func BenchmarkScheduleOneDRA(b *testing.B) {
	for _, nodes := range []int{500} {
		b.Run(fmt.Sprintf("%dnodes", nodes), func(b *testing.B) { benchmarkScheduleOneDRA(b, nodes) })
	}
}

func benchmarkScheduleOneDRA(b *testing.B, nodes int) {
	ctx := context.Background()
	reg := registry.InTree()
	s, err := New(ctx, Options{Config: withoutMissing(config.Default(), reg), Registry: reg, Decisions: &fakeSink{}, Replay: Replay{BindInline: true}})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.upsertDeviceObject(ctx, gpuClass()); err != nil {
		b.Fatal(err)
	}
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		n := mt.MakeNode(name).Label(model.LabelHostname, name).Zone(fmt.Sprintf("zone-%d", i%10)).
			Capacity(model.ResourceList{model.ResourceCPU: 32000, model.ResourceMemory: 128 * mt.Gi, model.ResourcePods: 110}).Obj()
		if err := s.addNode(ctx, n); err != nil {
			b.Fatal(err)
		}
		sl := gpuSlice(name, 8)
		for d := range sl.Spec.Devices {
			sl.Spec.Devices[d].Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"ecc": {BoolValue: new(d%2 == 0)}}
		}
		if err := s.upsertDeviceObject(ctx, sl); err != nil {
			b.Fatal(err)
		}
	}
	var running []*model.Pod
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		c := gpuClaim(fmt.Sprintf("claim-%06d", i), 1)
		c.Spec.Devices.Requests[0].Exactly.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].ecc`}}}
		if err := s.upsertDeviceObject(ctx, c); err != nil {
			b.Fatal(err)
		}
		p := benchPod(i).Obj()
		p.ResourceClaims = []model.PodResourceClaim{{Name: "gpu", ClaimName: c.Name}}
		if err := s.AddPod(ctx, p); err != nil {
			b.Fatal(err)
		}
		att, err := s.scheduleNext(ctx, false)
		if err != nil || att.Result != ResultScheduled || att.BindStatus != nil {
			b.Fatalf("attempt %d: %v %+v", i, err, att)
		}
		bound := *p
		bound.NodeName = att.Node
		if err := s.AddPod(ctx, &bound); err != nil {
			b.Fatal(err)
		}
		running = append(running, &bound)
		if len(running) > 2*nodes { // four ECC GPUs per node
			if err := s.DeletePod(ctx, running[0]); err != nil {
				b.Fatal(err)
			}
			if err := s.deleteDeviceObject(ctx, "ResourceClaim", "default", running[0].ResourceClaims[0].ClaimName); err != nil {
				b.Fatal(err)
			}
			running = running[1:]
		}
	}
}
