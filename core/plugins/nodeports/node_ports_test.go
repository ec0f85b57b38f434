package nodeports_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/nodeports"
)

func TestHostPorts(t *testing.T) {
	pod := mt.MakePod("p").HostPort(80, "", "").Obj()
	pod.Containers = append(pod.Containers, model.Container{Name: "no-host", Ports: []model.ContainerPort{{ContainerPort: 8080}}})
	pod.InitContainers = []model.Container{
		{Name: "setup", Ports: []model.ContainerPort{{ContainerPort: 7070, HostPort: 7070}}},
		{Name: "proxy", RestartAlways: true, Ports: []model.ContainerPort{{ContainerPort: 9090, HostPort: 9090, Protocol: "UDP"}}},
	}
	want := []model.ContainerPort{
		{ContainerPort: 9090, HostPort: 9090, Protocol: "UDP"},
		{ContainerPort: 80, HostPort: 80},
	}
	if diff := cmp.Diff(want, nodeports.HostPorts(pod)); diff != "" {
		t.Errorf("HostPorts (-want +got):\n%s", diff)
	}
}

func TestPreFilterAndFilter(t *testing.T) {
	used := framework.NewNodeInfo(mt.MakeNode("n").Obj(),
		framework.MustPodInfo(mt.MakePod("web").Node("n").HostPort(80, "", "").HostPort(53, "UDP", "10.0.0.1").Obj()))
	tests := []struct {
		name      string
		pod       *model.Pod
		wantSkip  bool
		wantFilt  *framework.Status
		wantFitsF bool
	}{
		{name: "no host ports", pod: mt.MakePod("p").Obj(), wantSkip: true},
		{name: "free port", pod: mt.MakePod("p").HostPort(8080, "", "").Obj(), wantFitsF: true},
		{name: "port in use on 0.0.0.0", pod: mt.MakePod("p").HostPort(80, "TCP", "10.0.0.9").Obj(),
			wantFilt: framework.NewStatus(framework.Unschedulable, nodeports.ErrReason)},
		{name: "same port, other protocol", pod: mt.MakePod("p").HostPort(53, "TCP", "").Obj(), wantFitsF: true},
		{name: "wildcard against a specific address", pod: mt.MakePod("p").HostPort(53, "UDP", "").Obj(),
			wantFilt: framework.NewStatus(framework.Unschedulable, nodeports.ErrReason)},
		{name: "other specific address", pod: mt.MakePod("p").HostPort(53, "UDP", "10.0.0.2").Obj(), wantFitsF: true},
	}
	pl := &nodeports.NodePorts{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			state := framework.NewCycleState()
			_, st := pl.PreFilter(context.Background(), state, tc.pod, nil)
			if st.IsSkip() != tc.wantSkip {
				t.Fatalf("PreFilter = %v, want skip %v", st, tc.wantSkip)
			}
			if tc.wantSkip {
				return
			}
			if got := pl.Filter(context.Background(), state, tc.pod, used); !got.Equal(tc.wantFilt) {
				t.Errorf("Filter = %v, want %v", got, tc.wantFilt)
			}
			if got := nodeports.Fits(tc.pod, used); got != tc.wantFitsF {
				t.Errorf("Fits = %v, want %v", got, tc.wantFitsF)
			}
		})
	}
}

func TestFilterWithoutPreFilter(t *testing.T) {
	pl := &nodeports.NodePorts{}
	st := pl.Filter(context.Background(), framework.NewCycleState(), mt.MakePod("p").HostPort(80, "", "").Obj(), framework.NewNodeInfo(mt.MakeNode("n").Obj()))
	if st.Code() != framework.Error {
		t.Errorf("Filter without PreFilter state = %v, want an Error status", st)
	}
}

func TestQueueingHints(t *testing.T) {
	pod := mt.MakePod("p").HostPort(80, "", "").Obj()
	podDelete := framework.ClusterEvent{Resource: framework.EventAssignedPod, ActionType: framework.ActionDelete}
	nodeAdd := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionAdd}
	nodeRelabel := framework.ClusterEvent{Resource: framework.EventNode, ActionType: framework.ActionUpdateNodeLabel}
	tests := []struct {
		name           string
		event          framework.ClusterEvent
		oldObj, newObj any
		want           framework.QueueingHint
	}{
		{name: "placed pod holding the port deleted", event: podDelete, oldObj: mt.MakePod("web").Node("n").HostPort(80, "", "10.0.0.1").Obj(), want: framework.Queue},
		{name: "nominated pod holding the port deleted", event: podDelete, oldObj: mt.MakePod("web").Nominated("n").HostPort(80, "", "").Obj(), want: framework.Queue},
		{name: "pending pod deleted", event: podDelete, oldObj: mt.MakePod("web").HostPort(80, "", "").Obj(), want: framework.QueueSkip},
		{name: "placed pod without host ports deleted", event: podDelete, oldObj: mt.MakePod("web").Node("n").Obj(), want: framework.QueueSkip},
		{name: "placed pod with other ports deleted", event: podDelete, oldObj: mt.MakePod("web").Node("n").HostPort(81, "", "").Obj(), want: framework.QueueSkip},
		{name: "node added", event: nodeAdd, newObj: mt.MakeNode("n").Obj(), want: framework.Queue},
		{name: "node relabelled", event: nodeRelabel, oldObj: mt.MakeNode("n").Obj(), newObj: mt.MakeNode("n").Label("a", "b").Obj(), want: framework.QueueSkip},
	}
	pl := &nodeports.NodePorts{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := plugintest.Hint(t, pl, tc.event, pod, tc.oldObj, tc.newObj); got != tc.want {
				t.Errorf("hint = %v, want %v", got, tc.want)
			}
		})
	}
}
