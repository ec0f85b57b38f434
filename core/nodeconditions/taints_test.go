package nodeconditions

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
)

func TestTaints(t *testing.T) {
	cond := func(typ model.NodeConditionType, st model.ConditionStatus) model.NodeCondition {
		return model.NodeCondition{Type: typ, Status: st}
	}
	ns := func(key string) model.Taint { return model.Taint{Key: key, Effect: model.TaintEffectNoSchedule} }
	ne := func(key string) model.Taint { return model.Taint{Key: key, Effect: model.TaintEffectNoExecute} }
	tests := []struct {
		name  string
		conds []model.NodeCondition
		want  []model.Taint
	}{
		{"none", nil, nil},
		{"ready", []model.NodeCondition{cond(model.NodeReady, model.ConditionTrue)}, nil},
		{"not ready", []model.NodeCondition{cond(model.NodeReady, model.ConditionFalse)}, []model.Taint{ns(TaintNotReady), ne(TaintNotReady)}},
		{"unknown", []model.NodeCondition{cond(model.NodeReady, model.ConditionUnknown)}, []model.Taint{ns(TaintUnreachable), ne(TaintUnreachable)}},
		{"pressures", []model.NodeCondition{
			cond(model.NodeReady, model.ConditionTrue), cond(model.NodeMemoryPressure, model.ConditionTrue),
			cond(model.NodeDiskPressure, model.ConditionTrue), cond(model.NodePIDPressure, model.ConditionTrue),
			cond(model.NodeNetworkUnavailable, model.ConditionTrue),
		}, []model.Taint{ns(TaintMemoryPressure), ns(TaintDiskPressure), ns(TaintPIDPressure), ns(TaintNetworkUnavailable)}},
		{"pressure false or unknown", []model.NodeCondition{cond(model.NodeMemoryPressure, model.ConditionFalse), cond(model.NodeDiskPressure, model.ConditionUnknown)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Taints(tt.conds)); diff != "" {
				t.Errorf("Taints (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyKeepsSentTaintsApart(t *testing.T) {
	sent := model.Taint{Key: TaintNotReady, Effect: model.TaintEffectNoExecute}
	n := &model.Node{Name: "n1", Taints: []model.Taint{sent}, Conditions: []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionFalse}}}
	got := Apply(n)
	derived := []model.Taint{{Key: TaintNotReady, Effect: model.TaintEffectNoSchedule}}
	if diff := cmp.Diff(derived, got.DerivedTaints); diff != "" {
		t.Errorf("derived (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append([]model.Taint{sent}, derived...), got.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	if len(n.Taints) != 1 || n.DerivedTaints != nil {
		t.Errorf("Apply changed its input: %+v", n)
	}
	ready := &model.Node{Name: "n2", Conditions: []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}}}
	if Apply(ready) != ready {
		t.Error("Apply copied a node with nothing to add")
	}
}
