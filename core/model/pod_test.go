package model_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

func TestComputeRequests(t *testing.T) {
	tests := []struct {
		name string
		pod  *model.Pod
		want model.PodRequests
	}{
		{
			name: "no containers requests nothing but gets scoring defaults from none",
			pod:  mt.MakePod("p").Obj(),
			want: model.PodRequests{},
		},
		{
			name: "containers add up",
			pod:  mt.MakePod("p").Req(mt.Res(500, 100*mt.Mi)).Req(mt.Res(1500, 100*mt.Mi)).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{MilliCPU: 2000, Memory: 200 * mt.Mi},
				NonZeroMilliCPU: 2000, NonZeroMemory: 200 * mt.Mi,
			},
		},
		{
			name: "overhead is added on top",
			pod: mt.MakePod("p").Req(mt.Res(500, 100*mt.Mi)).Req(mt.Res(1500, 100*mt.Mi)).
				Overhead(mt.Res(250, 120*mt.Mi)).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{MilliCPU: 2250, Memory: 320 * mt.Mi},
				NonZeroMilliCPU: 2250, NonZeroMemory: 320 * mt.Mi,
			},
		},
		{
			name: "a big init container dominates",
			pod:  mt.MakePod("p").Req(mt.Res(100, 10)).Init(mt.Res(3000, 5), false).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{MilliCPU: 3000, Memory: 10},
				NonZeroMilliCPU: 3000, NonZeroMemory: 10,
			},
		},
		{
			name: "sidecars run beside containers and beside later init containers",
			pod: mt.MakePod("p").Req(mt.Res(100, 10)).
				Init(mt.Res(200, 20), true).   // sidecar
				Init(mt.Res(250, 100), false). // runs beside the sidecar: 450 / 120
				Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{MilliCPU: 450, Memory: 120},
				NonZeroMilliCPU: 450, NonZeroMemory: 120,
			},
		},
		{
			name: "missing cpu and memory get scoring defaults, explicit zero does not",
			pod: mt.MakePod("p").
				Req(model.ResourceList{model.ResourceEphemeralStorage: 5}).
				Req(model.ResourceList{model.ResourceCPU: 0, model.ResourceMemory: 0}).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{EphemeralStorage: 5},
				NonZeroMilliCPU: model.DefaultMilliCPURequest, NonZeroMemory: model.DefaultMemoryRequest,
			},
		},
		{
			name: "extended resources take the init peak too",
			pod: mt.MakePod("p").Req(model.ResourceList{"example.com/gpu": 1}).
				Init(model.ResourceList{"example.com/gpu": 2}, false).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{Scalar: map[string]int64{"example.com/gpu": 2}},
				NonZeroMilliCPU: model.DefaultMilliCPURequest, NonZeroMemory: model.DefaultMemoryRequest,
			},
		},
		{
			name: "pod-level cpu replaces the containers' cpu, memory stays theirs",
			pod: mt.MakePod("p").Req(mt.Res(500, 100*mt.Mi)).Req(model.ResourceList{model.ResourceCPU: 500}).Req(nil).
				PodLevel(model.ResourceList{model.ResourceCPU: 4000}).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{MilliCPU: 4000, Memory: 100 * mt.Mi},
				NonZeroMilliCPU: 4000, NonZeroMemory: 100 * mt.Mi,
				// NodeResourcesFit scores the containers without the pod level.
				FitScore: &model.Resources{MilliCPU: 1000 + model.DefaultMilliCPURequest, Memory: 100*mt.Mi + 2*model.DefaultMemoryRequest},
			},
		},
		{
			name: "pod-level requests replace the init peak and take overhead on top",
			pod: mt.MakePod("p").Req(mt.Res(100, 10)).Init(mt.Res(3000, 5), false).
				PodLevel(model.ResourceList{model.ResourceCPU: 1000, model.ResourceMemory: 50, "hugepages-2Mi": 4 << 20}).
				Overhead(mt.Res(100, 1)).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{MilliCPU: 1100, Memory: 51, Scalar: map[string]int64{"hugepages-2Mi": 4 << 20}},
				NonZeroMilliCPU: 1100, NonZeroMemory: 51,
				FitScore: &model.Resources{MilliCPU: 3100, Memory: 11},
			},
		},
		{
			name: "with pod-level requests, a resource somebody requests gets no default on the node",
			pod: mt.MakePod("p").Req(model.ResourceList{model.ResourceCPU: 200}).Req(nil).
				PodLevel(model.ResourceList{model.ResourceMemory: 1 << 30}).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{MilliCPU: 200, Memory: 1 << 30},
				NonZeroMilliCPU: 200, NonZeroMemory: 1 << 30,
				FitScore: &model.Resources{MilliCPU: 200 + model.DefaultMilliCPURequest, Memory: 2 * model.DefaultMemoryRequest},
			},
		},
		{
			name: "with pod-level requests, a resource nobody requests is defaulted per container",
			pod: mt.MakePod("p").Req(nil).Req(nil).
				PodLevel(model.ResourceList{model.ResourceMemory: 1 << 30}).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{Memory: 1 << 30},
				NonZeroMilliCPU: 2 * model.DefaultMilliCPURequest, NonZeroMemory: 1 << 30,
				FitScore: &model.Resources{MilliCPU: 2 * model.DefaultMilliCPURequest, Memory: 2 * model.DefaultMemoryRequest},
			},
		},
		{
			name: "only cpu, memory and hugepages count at pod level",
			pod: mt.MakePod("p").Req(mt.Res(100, 10)).
				PodLevel(model.ResourceList{"example.com/gpu": 3}).Obj(),
			want: model.PodRequests{
				Requests:        model.Resources{MilliCPU: 100, Memory: 10},
				NonZeroMilliCPU: 100, NonZeroMemory: 10,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := model.ComputeRequests(tc.pod)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ComputeRequests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResourcesArithmetic(t *testing.T) {
	a := model.ResourcesFromList(model.ResourceList{"cpu": 100, "memory": 5, "example.com/gpu": 1, "pods": 3})
	b := model.ResourcesFromList(model.ResourceList{"cpu": 50, "example.com/gpu": 2, "ephemeral-storage": 7})
	sum := a.Clone()
	sum.Add(&b)
	want := model.Resources{MilliCPU: 150, Memory: 5, EphemeralStorage: 7, Pods: 3, Scalar: map[string]int64{"example.com/gpu": 3}}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Fatalf("Add (-want +got):\n%s", diff)
	}
	sum.Sub(&b)
	if diff := cmp.Diff(a, sum); diff != "" {
		t.Fatalf("Sub did not undo Add (-want +got):\n%s", diff)
	}
	if a.Scalar["example.com/gpu"] != 1 {
		t.Fatalf("Clone shared the scalar map with the original")
	}
	if got := sum.Get("example.com/gpu"); got != 1 {
		t.Errorf("Get(gpu) = %d, want 1", got)
	}
	var zero model.Resources
	if !zero.IsZero() || a.IsZero() {
		t.Errorf("IsZero wrong: zero=%v a=%v", zero.IsZero(), a.IsZero())
	}
}
