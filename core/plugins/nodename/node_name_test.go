package nodename_test

import (
	"context"
	"testing"

	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/plugins/nodename"
)

func TestFilter(t *testing.T) {
	node := framework.NewNodeInfo(mt.MakeNode("n1").Obj())
	tests := []struct {
		name string
		pod  *model.Pod
		want *framework.Status
	}{
		{name: "no node named", pod: mt.MakePod("p").Obj()},
		{name: "this node named", pod: mt.MakePod("p").Node("n1").Obj()},
		{name: "another node named", pod: mt.MakePod("p").Node("n2").Obj(),
			want: framework.NewStatus(framework.UnschedulableAndUnresolvable, nodename.ErrReason)},
	}
	pl := &nodename.NodeName{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := pl.Filter(context.Background(), framework.NewCycleState(), tc.pod, node); !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
}
