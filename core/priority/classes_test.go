package priority_test

import (
	"errors"
	"testing"

	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/priority"
)

func TestAdmit(t *testing.T) {
	five := int32(5)
	tests := []struct {
		name       string
		classes    []*model.PriorityClass
		pod        *model.Pod
		wantPrio   int32
		wantPolicy model.PreemptionPolicy
		wantClass  string
		wantErr    bool
	}{
		{name: "no class, no default: zero", pod: mt.MakePod("p").Obj(), wantPrio: 0, wantPolicy: model.PreemptLowerPriority},
		{
			name:    "named class gives value and policy",
			classes: []*model.PriorityClass{{Name: "high", Value: 1000, PreemptionPolicy: model.PreemptNever}},
			pod:     withClass(mt.MakePod("p").Obj(), "high"), wantPrio: 1000, wantPolicy: model.PreemptNever, wantClass: "high",
		},
		{
			name: "lowest global default wins",
			classes: []*model.PriorityClass{
				{Name: "d1", Value: 50, GlobalDefault: true}, {Name: "d2", Value: 10, GlobalDefault: true},
			},
			pod: mt.MakePod("p").Obj(), wantPrio: 10, wantPolicy: model.PreemptLowerPriority, wantClass: "d2",
		},
		{
			name:     "explicit priority without class is kept even with a default",
			classes:  []*model.PriorityClass{{Name: "d", Value: 50, GlobalDefault: true}},
			pod:      func() *model.Pod { p := mt.MakePod("p").Obj(); p.RequestedPriority = &five; return p }(),
			wantPrio: 5,
		},
		{name: "built-in class", pod: withClass(mt.MakePod("p").Obj(), priority.SystemNodeCritical), wantPrio: 2000001000, wantPolicy: model.PreemptLowerPriority, wantClass: priority.SystemNodeCritical},
		{name: "unknown class fails for a pending pod", pod: withClass(mt.MakePod("p").Obj(), "nope"), wantErr: true},
		{
			name:     "a bound pod naming an unknown class is admitted at 0",
			pod:      withClass(mt.MakePod("p").Node("n1").Obj(), "gone"),
			wantPrio: 0, wantClass: "gone",
		},
		{
			name:     "an explicit priority naming an unknown class is kept",
			pod:      withClass(mt.MakePod("p").RequestedPriority(500).Obj(), "gone"),
			wantPrio: 500, wantClass: "gone",
		},
		{
			name:     "an explicit priority wins over its class's value, the class's policy applies",
			classes:  []*model.PriorityClass{{Name: "c", Value: 10, PreemptionPolicy: model.PreemptNever}},
			pod:      withClass(mt.MakePod("p").RequestedPriority(9000).Node("n1").Obj(), "c"),
			wantPrio: 9000, wantPolicy: model.PreemptNever, wantClass: "c",
		},
		{
			name:     "an explicit priority and policy are both kept",
			classes:  []*model.PriorityClass{{Name: "c", Value: 10, PreemptionPolicy: model.PreemptNever}},
			pod:      withClass(mt.MakePod("p").RequestedPriority(10).PreemptionPolicy(model.PreemptLowerPriority).Obj(), "c"),
			wantPrio: 10, wantPolicy: model.PreemptLowerPriority, wantClass: "c",
		},
		{
			name:     "a class's policy replaces the pod's when the class gives the priority",
			classes:  []*model.PriorityClass{{Name: "c", Value: 10, PreemptionPolicy: model.PreemptNever}},
			pod:      withClass(mt.MakePod("p").PreemptionPolicy(model.PreemptLowerPriority).Obj(), "c"),
			wantPrio: 10, wantPolicy: model.PreemptNever, wantClass: "c",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := priority.NewClasses()
			for _, pc := range tc.classes {
				if err := c.Set(pc); err != nil {
					t.Fatal(err)
				}
			}
			err := c.Admit(tc.pod)
			if tc.wantErr {
				var unknown *priority.UnknownClassError
				if !errors.As(err, &unknown) || err.Error() != "no PriorityClass with name nope was found" {
					t.Fatalf("err = %v, want UnknownClassError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.pod.Priority != tc.wantPrio || tc.pod.PreemptionPolicy != tc.wantPolicy || tc.pod.PriorityClassName != tc.wantClass {
				t.Errorf("got priority %d policy %q class %q, want %d %q %q", tc.pod.Priority, tc.pod.PreemptionPolicy, tc.pod.PriorityClassName, tc.wantPrio, tc.wantPolicy, tc.wantClass)
			}
		})
	}
}

func withClass(p *model.Pod, class string) *model.Pod { p.PriorityClassName = class; return p }

func TestValidate(t *testing.T) {
	tests := []struct {
		pc    model.PriorityClass
		field string
	}{
		{model.PriorityClass{Name: "ok", Value: model.HighestUserDefinablePriority}, ""},
		{model.PriorityClass{Name: "ok", Value: -2147483648}, ""},
		{model.PriorityClass{Name: "too-high", Value: model.HighestUserDefinablePriority + 1}, "value"},
		{model.PriorityClass{Name: "system-mine", Value: 1}, "name"},
		{model.PriorityClass{Name: "", Value: 1}, "name"},
		{model.PriorityClass{Name: "p", PreemptionPolicy: "Sometimes"}, "preemptionPolicy"},
	}
	for _, tc := range tests {
		err := priority.Validate(&tc.pc)
		var inv *priority.InvalidClassError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", tc.pc, err)
		case tc.field != "" && (!errors.As(err, &inv) || inv.Field != tc.field):
			t.Errorf("%+v: err = %v, want an error on field %s", tc.pc, err, tc.field)
		}
	}
	c := priority.NewClasses()
	c.Delete(priority.SystemClusterCritical)
	if _, ok := c.Get(priority.SystemClusterCritical); !ok {
		t.Error("built-in classes cannot be deleted")
	}
}
