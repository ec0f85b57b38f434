package noderesources_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/noderesources"
)

func gpu(n int64) model.ResourceList { return model.ResourceList{"example.com/gpu": n} }

func TestFilter(t *testing.T) {
	// n has 4 cpu, 8Gi, 3 pods, 2 gpus, of which a running pod uses 3 cpu,
	// 6Gi and 1 gpu.
	node := mt.MakeNode("n").Capacity(model.ResourceList{"cpu": 4000, "memory": 8 * mt.Gi, "pods": 3, "example.com/gpu": 2}).Obj()
	running := framework.MustPodInfo(mt.MakePod("run").Node("n").Req(model.ResourceList{"cpu": 3000, "memory": 6 * mt.Gi, "example.com/gpu": 1}).Obj())
	ni := framework.NewNodeInfo(node, running)
	full := framework.NewNodeInfo(node, running,
		framework.MustPodInfo(mt.MakePod("a").Node("n").Obj()), framework.MustPodInfo(mt.MakePod("b").Node("n").Obj()))
	tests := []struct {
		name string
		args string
		pod  *model.Pod
		node *framework.NodeInfo
		want *framework.Status
	}{
		{name: "fits", pod: mt.MakePod("p").Req(mt.Res(1000, 2*mt.Gi)).Req(gpu(1)).Obj(), node: ni},
		{name: "no requests fit anywhere there is pod room", pod: mt.MakePod("p").Req(nil).Obj(), node: ni},
		{name: "short now: preemption may help", pod: mt.MakePod("p").Req(mt.Res(1500, 3*mt.Gi)).Obj(), node: ni,
			want: framework.NewStatus(framework.Unschedulable, noderesources.ReasonInsufficientCPU, noderesources.ReasonInsufficientMemory)},
		{name: "larger than the node: unresolvable", pod: mt.MakePod("p").Req(mt.Res(5000, mt.Gi)).Obj(), node: ni,
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, noderesources.ReasonInsufficientCPU)},
		{name: "one unresolvable resource decides the code", pod: mt.MakePod("p").Req(mt.Res(1500, 9*mt.Gi)).Obj(), node: ni,
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, noderesources.ReasonInsufficientCPU, noderesources.ReasonInsufficientMemory)},
		{name: "extended resource", pod: mt.MakePod("p").Req(gpu(2)).Obj(), node: ni,
			want: framework.NewStatus(framework.Unschedulable, "Insufficient example.com/gpu")},
		{name: "extended resource the node lacks", pod: mt.MakePod("p").Req(model.ResourceList{"example.com/fpga": 1, "example.com/asic": 1}).Obj(), node: ni,
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, "Insufficient example.com/asic", "Insufficient example.com/fpga")},
		{name: "ignored resource", args: `{"ignoredResources":["example.com/fpga"]}`, pod: mt.MakePod("p").Req(model.ResourceList{"example.com/fpga": 1}).Obj(), node: ni},
		{name: "ignored group", args: `{"ignoredResourceGroups":["example.com"]}`, pod: mt.MakePod("p").Req(gpu(5)).Obj(), node: ni},
		{name: "ignoring applies to extended resources only", args: `{"ignoredResources":["hugepages-2Mi"]}`,
			pod: mt.MakePod("p").Req(model.ResourceList{"hugepages-2Mi": 1}).Obj(), node: ni,
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, "Insufficient hugepages-2Mi")},
		{name: "names that are no resource are not checked", pod: mt.MakePod("p").Req(model.ResourceList{"foo": 1, "pods": 9}).Obj(), node: ni},
		{name: "too many pods", pod: mt.MakePod("p").Req(mt.Res(2000, mt.Gi)).Obj(), node: full,
			want: framework.NewStatus(framework.Unschedulable, noderesources.ReasonTooManyPods, noderesources.ReasonInsufficientCPU)},
		{name: "init container peak", pod: mt.MakePod("p").Req(mt.Res(500, mt.Gi)).Init(mt.Res(1500, 0), false).Obj(), node: ni,
			want: framework.NewStatus(framework.Unschedulable, noderesources.ReasonInsufficientCPU)},
		{name: "sidecar adds up", pod: mt.MakePod("p").Req(mt.Res(600, mt.Gi)).Init(mt.Res(500, 0), true).Obj(), node: ni,
			want: framework.NewStatus(framework.Unschedulable, noderesources.ReasonInsufficientCPU)},
		{name: "overhead counts", pod: mt.MakePod("p").Req(mt.Res(900, mt.Gi)).Overhead(mt.Res(200, 0)).Obj(), node: ni,
			want: framework.NewStatus(framework.Unschedulable, noderesources.ReasonInsufficientCPU)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := plugintest.New[*noderesources.Fit](t, noderesources.NewFit, tc.args, nil)
			state := framework.NewCycleState()
			if _, st := pl.PreFilter(context.Background(), state, tc.pod, nil); !st.IsSuccess() {
				t.Fatalf("PreFilter: %v", st)
			}
			if got := pl.Filter(context.Background(), state, tc.pod, tc.node); !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFits(t *testing.T) {
	ni := framework.NewNodeInfo(mt.MakeNode("n").Capacity(mt.Res(1000, mt.Gi)).Obj(),
		framework.MustPodInfo(mt.MakePod("run").Node("n").Req(mt.Res(600, 0)).Obj()))
	got := noderesources.Fits(mt.MakePod("p").Req(mt.Res(500, 2*mt.Gi)).Obj(), ni)
	want := []noderesources.InsufficientResource{
		{ResourceName: "cpu", Reason: noderesources.ReasonInsufficientCPU, Requested: 500, Used: 600, Capacity: 1000},
		{ResourceName: "memory", Reason: noderesources.ReasonInsufficientMemory, Requested: 2 * mt.Gi, Capacity: mt.Gi, Unresolvable: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Fits (-want +got):\n%s", diff)
	}
}

func TestFilterWithoutPreFilter(t *testing.T) {
	pl := plugintest.New[*noderesources.Fit](t, noderesources.NewFit, "", nil)
	st := pl.Filter(context.Background(), framework.NewCycleState(), mt.MakePod("p").Obj(), framework.NewNodeInfo(mt.MakeNode("n").Obj()))
	if st.Code() != framework.Error {
		t.Errorf("Filter without PreFilter state = %v, want an Error status", st)
	}
}

func TestQueueingHints(t *testing.T) {
	pod := mt.MakePod("p").Req(model.ResourceList{"cpu": 1000, "example.com/gpu": 1}).Obj()
	small := mt.MakeNode("n").Capacity(model.ResourceList{"cpu": 500, "memory": mt.Gi, "example.com/gpu": 1}).Obj()
	big := mt.MakeNode("n").Capacity(model.ResourceList{"cpu": 2000, "memory": mt.Gi, "example.com/gpu": 1}).Obj()
	bigMoreMemory := mt.MakeNode("n").Capacity(model.ResourceList{"cpu": 2000, "memory": 2 * mt.Gi, "example.com/gpu": 1}).Obj()
	bigMoreGPUs := mt.MakeNode("n").Capacity(model.ResourceList{"cpu": 2000, "memory": mt.Gi, "example.com/gpu": 2}).Obj()
	bigMorePods := mt.MakeNode("n").Capacity(model.ResourceList{"cpu": 2000, "memory": mt.Gi, "example.com/gpu": 1, "pods": 200}).Obj()
	nodeAdd := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd}
	resize := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeAllocatable}
	relabel := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeLabel}
	podDelete := framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionDelete}
	scaleDown := framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionUpdatePodScaleDown}
	placed := func(reqs model.ResourceList) *model.Pod { return mt.MakePod("other").Node("n").Req(reqs).Obj() }
	tests := []struct {
		name           string
		event          framework.ClusterEvent
		oldObj, newObj any
		want           framework.QueueingHint
	}{
		{name: "node that fits added", event: nodeAdd, newObj: big, want: framework.Queue},
		{name: "node too small added", event: nodeAdd, newObj: small, want: framework.QueueSkip},
		{name: "node grew to fit", event: resize, oldObj: small, newObj: big, want: framework.Queue},
		{name: "node grew in what the pod does not ask", event: resize, oldObj: big, newObj: bigMoreMemory, want: framework.QueueSkip},
		{name: "node grew in an extended resource the pod asks", event: resize, oldObj: big, newObj: bigMoreGPUs, want: framework.Queue},
		{name: "node takes more pods", event: resize, oldObj: big, newObj: bigMorePods, want: framework.Queue},
		{name: "node still too small", event: resize, oldObj: small, newObj: small, want: framework.QueueSkip},
		{name: "labels are not registered", event: relabel, oldObj: small, newObj: big, want: framework.QueueSkip},
		{name: "placed pod deleted", event: podDelete, oldObj: placed(mt.Res(100, 0)), want: framework.Queue},
		{name: "nominated pod deleted", event: podDelete, oldObj: mt.MakePod("other").Nominated("n").Obj(), want: framework.Queue},
		{name: "pending pod deleted", event: podDelete, oldObj: mt.MakePod("other").Obj(), want: framework.QueueSkip},
		{name: "placed pod gives back cpu", event: scaleDown, oldObj: placed(mt.Res(500, 0)), newObj: placed(mt.Res(100, 0)), want: framework.Queue},
		{name: "placed pod gives back gpus", event: scaleDown, oldObj: placed(gpu(2)), newObj: placed(gpu(1)), want: framework.Queue},
		{name: "placed pod gives back memory only", event: scaleDown, oldObj: placed(mt.Res(500, mt.Gi)), newObj: placed(mt.Res(500, 0)), want: framework.QueueSkip},
		{name: "pending pod scaled down", event: scaleDown, oldObj: mt.MakePod("other").Req(mt.Res(500, 0)).Obj(), newObj: mt.MakePod("other").Req(mt.Res(100, 0)).Obj(), want: framework.QueueSkip},
		{name: "the pod itself scaled down", event: scaleDown, oldObj: pod, newObj: mt.MakePod("p").Req(mt.Res(500, 0)).Obj(), want: framework.Queue},
	}
	pl := plugintest.New[*noderesources.Fit](t, noderesources.NewFit, "", nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := plugintest.Hint(t, pl, tc.event, pod, tc.oldObj, tc.newObj); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
