package defaultpreemption_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/framework/runtime"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/defaultpreemption"
	"github.com/berthsched/berth/core/plugins/helper/plugintest"
	"github.com/berthsched/berth/core/plugins/registry"
)

type evictions struct {
	mu      sync.Mutex
	victims []string
}

func (f *evictions) Evict(_ context.Context, v *model.Pod, node string, _ *model.Pod, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.victims = append(f.victims, v.Key()+"@"+node)
	return nil
}

// TestPostFilter runs the plugin through the runtime of the default
// profile, as the scheduling cycle does.
func TestPostFilter(t *testing.T) {
	big := mt.MakeNode("big").Capacity(mt.Res(2000, 8*mt.Gi)).Obj()
	tests := []struct {
		name        string
		pod         *model.Pod
		wantResult  *framework.PostFilterResult
		wantCode    framework.Code
		wantMessage string
		wantVictims []string
	}{
		{
			name:        "preempts the lower-priority pod",
			pod:         mt.MakePod("high").Priority(100).Req(mt.Res(1500, 0)).Obj(),
			wantResult:  &framework.PostFilterResult{NominatedNodeName: "big"},
			wantCode:    framework.Success,
			wantMessage: "preemption: found a potential placement for pod on node big, preempting 1 victims",
			wantVictims: []string{"default/low@big"},
		},
		{
			name:        "not eligible: no result, kube's message",
			pod:         mt.MakePod("high").Priority(100).Req(mt.Res(1500, 0)).PreemptionPolicy(model.PreemptNever).Obj(),
			wantCode:    framework.Unschedulable,
			wantMessage: "preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name:        "not helpful: an empty nomination clears the pod's",
			pod:         mt.MakePod("huge").Priority(100).Req(mt.Res(4000, 0)).Obj(),
			wantResult:  &framework.PostFilterResult{},
			wantCode:    framework.Unschedulable,
			wantMessage: "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ni := framework.NewNodeInfo(big, framework.MustPodInfo(mt.MakePod("low").Node("big").Priority(1).Req(mt.Res(1000, 0)).Obj()))
			sink := &evictions{}
			fwk, err := runtime.New(context.Background(), registry.InTree(), config.Default().Profiles[0],
				runtime.WithSnapshotLister(&plugintest.Lister{Nodes: []*framework.NodeInfo{ni}}),
				runtime.WithDecisions(sink), runtime.WithParallelism(1), runtime.WithDeterministic(true))
			if err != nil {
				t.Fatal(err)
			}
			state := framework.NewCycleState()
			if _, st, _ := fwk.RunPreFilterPlugins(context.Background(), state, tc.pod, []*framework.NodeInfo{ni}); !st.IsSuccess() {
				t.Fatal(st)
			}
			m := framework.NewNodeToStatus()
			m.Set("big", fwk.RunFilterPluginsWithNominatedPods(context.Background(), state, tc.pod, ni))
			res, st := fwk.RunPostFilterPlugins(context.Background(), state, tc.pod, m)
			if diff := cmp.Diff(tc.wantResult, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if st.Code() != tc.wantCode || st.Message() != tc.wantMessage {
				t.Errorf("status %v %q, want %v %q", st.Code(), st.Message(), tc.wantCode, tc.wantMessage)
			}
			if diff := cmp.Diff(tc.wantVictims, sink.victims); diff != "" {
				t.Errorf("victims (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	h := plugintest.NewListerHandle(nil, nil)
	pl, err := defaultpreemption.New(context.Background(), []byte(`{"minCandidateNodesAbsolute":7}`), h)
	if err != nil {
		t.Fatal(err)
	}
	dp := pl.(*defaultpreemption.DefaultPreemption)
	if dp.Name() != "DefaultPreemption" || *dp.Args().MinCandidateNodesAbsolute != 7 || *dp.Args().MinCandidateNodesPercentage != 10 {
		t.Errorf("got %s %+v", dp.Name(), dp.Args())
	}
	if _, err := defaultpreemption.New(context.Background(), []byte(`{"minCandidateNodesPercentage":200}`), h); err == nil {
		t.Error("invalid args accepted")
	}
}

// Submit hands each decision of the plan to the fake's method for it.
func (f *evictions) Submit(ctx context.Context, plan framework.Plan) (framework.PlanResult, error) {
	for _, item := range plan.Items {
		var err error
		switch it := item.(type) {
		case *framework.Eviction:
			err = f.Evict(ctx, it.Victim, it.Node, it.Preemptor, it.Message)
		}
		if err != nil {
			return framework.PlanResult{}, err
		}
	}
	return framework.PlanResult{}, nil
}
