package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/plugins/nodename"
	"github.com/berthsched/berth/core/plugins/registry"
)

// cancellingFilter stands in for NodeName: it counts the nodes it filters
// and ends the run's context when it reaches the node named stopAt.
type cancellingFilter struct {
	stopAt   string
	cancel   context.CancelCauseFunc
	filtered *int
}

func (*cancellingFilter) Name() string { return nodename.Name }

func (f *cancellingFilter) Filter(_ context.Context, _ *framework.CycleState, _ *model.Pod, ni *framework.NodeInfo) *framework.Status {
	*f.filtered++
	if ni.Name() == f.stopAt {
		f.cancel(errStopped)
	}
	return nil
}

var errStopped = errors.New("the caller went away")

// TestScheduleEachStops: a run ends when its context does, within an
// attempt's filter pass (the nodes after the one that saw the context end
// are not filtered, the cut attempt is not reported) and between attempts
// (no pod after is tried), returning the context's cause.
func TestScheduleEachStops(t *testing.T) {
	nodes := make([]*model.Node, 6)
	for i := range nodes {
		nodes[i] = cpuNode(fmt.Sprintf("n%d", i), 4000)
	}
	pods := []*model.Pod{cpuPod("a", 100, 1).Obj(), cpuPod("b", 100, 2).Obj(), cpuPod("c", 100, 3).Obj()}
	tests := []struct {
		name string
		// stopAt is the node whose filtering ends the context; cancelAfter
		// the number of attempts after which yield ends it (-1: never).
		stopAt       string
		cancelAfter  int
		wantAttempts int
		wantFiltered int
	}{
		{name: "within a filter pass", stopAt: "n2", cancelAfter: -1, wantAttempts: 0, wantFiltered: 3},
		{name: "between attempts", cancelAfter: 1, wantAttempts: 1, wantFiltered: 6},
		{name: "before the first attempt", cancelAfter: 0, wantAttempts: 0, wantFiltered: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			filtered := 0
			reg := registry.InTree()
			reg[nodename.Name] = func(context.Context, json.RawMessage, framework.Handle) (framework.Plugin, error) {
				return &cancellingFilter{stopAt: tc.stopAt, cancel: cancel, filtered: &filtered}, nil
			}
			e, err := New(ctx, Input{Nodes: nodes, Config: withoutMissing(config.Default(), reg)}, Options{Registry: reg})
			if err != nil {
				t.Fatal(err)
			}
			if tc.cancelAfter == 0 {
				cancel(errStopped)
			}
			attempts := 0
			err = e.ScheduleEach(ctx, pods, func(Attempt) error {
				attempts++
				if attempts == tc.cancelAfter {
					cancel(errStopped)
				}
				return nil
			})
			if !errors.Is(err, errStopped) {
				t.Errorf("ScheduleEach = %v, want the context's cause %v", err, errStopped)
			}
			if attempts != tc.wantAttempts || filtered != tc.wantFiltered {
				t.Errorf("attempts, nodes filtered = %d, %d; want %d, %d", attempts, filtered, tc.wantAttempts, tc.wantFiltered)
			}
		})
	}
}

// TestScheduleEachYieldError: an error from yield ends the run as it is.
func TestScheduleEachYieldError(t *testing.T) {
	e := newEngine(t, Input{Nodes: []*model.Node{cpuNode("n1", 4000)}})
	stop := errors.New("enough")
	attempts := 0
	err := e.ScheduleEach(context.Background(), []*model.Pod{cpuPod("a", 100, 1).Obj(), cpuPod("b", 100, 2).Obj()}, func(Attempt) error {
		attempts++
		return stop
	})
	if !errors.Is(err, stop) || attempts != 1 {
		t.Errorf("ScheduleEach = %v after %d attempts, want %v after 1", err, attempts, stop)
	}
}
