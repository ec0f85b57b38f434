package schedulinggates_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/schedulinggates"
)

func TestPreEnqueue(t *testing.T) {
	tests := []struct {
		name string
		pod  *model.Pod
		want *framework.Status
	}{
		{name: "no gates", pod: mt.MakePod("p").Obj()},
		{
			name: "gates listed as kube-scheduler does",
			pod:  mt.MakePod("p").Gate("example.com/quota").Gate("example.com/approval").Obj(),
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for scheduling gates: [example.com/quota example.com/approval]"),
		},
	}
	pl := &schedulinggates.SchedulingGates{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pl.PreEnqueue(context.Background(), tc.pod)
			if !got.Equal(tc.want) {
				t.Errorf("PreEnqueue = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestQueueingHint(t *testing.T) {
	pl := &schedulinggates.SchedulingGates{}
	events, err := pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wantEvent := framework.ClusterEvent{Resource: framework.EventPod, ActionType: framework.ActionUpdatePodSchedulingGatesEliminated}
	if len(events) != 1 || events[0].Event != wantEvent {
		t.Fatalf("events = %+v, want only %+v", events, wantEvent)
	}
	hint := events[0].QueueingHintFn
	gated := mt.MakePod("p").Gate("g").Obj()
	tests := []struct {
		name           string
		oldObj, newObj any
		want           framework.QueueingHint
	}{
		{name: "the pod's own gates removed", oldObj: gated, newObj: mt.MakePod("p").Obj(), want: framework.Queue},
		{name: "another pod", oldObj: mt.MakePod("q").Gate("g").Obj(), newObj: mt.MakePod("q").Obj(), want: framework.QueueSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := hint(gated, tc.oldObj, tc.newObj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("hint (-want +got):\n%s", diff)
			}
		})
	}
}
