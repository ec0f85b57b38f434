package podadmission_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/podadmission"
	"github.com/berthsched/berth/core/priority"
)

func ptr(v int32) *int32 { return &v }

// admittedPod is what the tests compare of an admitted pod.
type admittedPod struct {
	SchedulerName, Class, Group string
	Priority                    int32
	Policy                      model.PreemptionPolicy
}

func TestPod(t *testing.T) {
	classes := []*model.PriorityClass{
		{Name: "high", Value: 1000, PreemptionPolicy: model.PreemptNever},
		{Name: "default", Value: 7, GlobalDefault: true},
	}
	named := func(p *model.Pod, class string) *model.Pod { p.PriorityClassName = class; return p }
	tests := []struct {
		name     string
		pod, old *model.Pod
		held     bool // the holder keeps the pod on a node
		want     admittedPod
		wantErr  bool
	}{
		{
			name: "a new pod gets the default scheduler name and the global default class",
			pod:  mt.MakePod("p").Obj(),
			want: admittedPod{SchedulerName: model.DefaultSchedulerName, Class: "default", Priority: 7, Policy: model.PreemptLowerPriority},
		},
		{
			name: "a scheduler name given is kept; a named class gives its value and policy",
			pod:  named(mt.MakePod("p").SchedulerName("other").Obj(), "high"),
			want: admittedPod{SchedulerName: "other", Class: "high", Priority: 1000, Policy: model.PreemptNever},
		},
		{
			name:    "a new pending pod naming an unknown class is refused",
			pod:     named(mt.MakePod("p").Obj(), "gone"),
			wantErr: true,
		},
		{
			name: "a bound pod naming an unknown class is admitted at 0",
			pod:  named(mt.MakePod("p").Node("n1").Obj(), "gone"),
			want: admittedPod{SchedulerName: model.DefaultSchedulerName, Class: "gone"},
		},
		{
			name: "a pending pod held on a node naming an unknown class is admitted as a bound one",
			pod:  named(mt.MakePod("p").Obj(), "gone"), held: true,
			want: admittedPod{SchedulerName: model.DefaultSchedulerName, Class: "gone"},
		},
		{
			name: "held on a node, a known class still gives its value",
			pod:  named(mt.MakePod("p").Obj(), "high"), held: true,
			want: admittedPod{SchedulerName: model.DefaultSchedulerName, Class: "high", Priority: 1000, Policy: model.PreemptNever},
		},
		{
			name: "an update keeps the priority, policy, class and group it was admitted with",
			pod: func() *model.Pod {
				p := named(mt.MakePod("p").Obj(), "high")
				p.SchedulingGroup = "g2"
				return p
			}(),
			old: func() *model.Pod {
				p := mt.MakePod("p").Obj()
				p.PriorityClassName, p.Priority, p.PreemptionPolicy, p.SchedulingGroup = "default", 7, model.PreemptLowerPriority, "g1"
				return p
			}(),
			want: admittedPod{SchedulerName: model.DefaultSchedulerName, Class: "default", Group: "g1", Priority: 7, Policy: model.PreemptLowerPriority},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := podadmission.New(podadmission.Options{HeldOnNode: func(string) bool { return tc.held }})
			for _, pc := range classes {
				if _, err := a.SetClass(pc); err != nil {
					t.Fatal(err)
				}
			}
			sent := *tc.pod
			got, err := a.Pod(tc.pod, tc.old)
			if tc.wantErr {
				var unknown *priority.UnknownClassError
				if !errors.As(err, &unknown) {
					t.Fatalf("error %v, want an UnknownClassError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(sent, *tc.pod); diff != "" {
				t.Errorf("the pod sent was modified (-before +after):\n%s", diff)
			}
			g := admittedPod{got.SchedulerName, got.PriorityClassName, got.SchedulingGroup, got.Priority, got.PreemptionPolicy}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGroup(t *testing.T) {
	tests := []struct {
		name    string
		classes []*model.PriorityClass
		group   *model.PodGroup
		want    int32
		wantErr bool
	}{
		{name: "a priority given is kept", group: &model.PodGroup{Name: "g", PriorityClassName: "gone", RequestedPriority: ptr(5)}, want: 5},
		{name: "a named class gives its value", classes: []*model.PriorityClass{{Name: "c", Value: 40}}, group: &model.PodGroup{Name: "g", PriorityClassName: "c"}, want: 40},
		{name: "an unknown class is refused", group: &model.PodGroup{Name: "g", PriorityClassName: "gone"}, wantErr: true},
		{name: "else the global default's value", classes: []*model.PriorityClass{{Name: "d", Value: 3, GlobalDefault: true}}, group: &model.PodGroup{Name: "g"}, want: 3},
		{name: "else 0", group: &model.PodGroup{Name: "g", Priority: 9}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := podadmission.New(podadmission.Options{})
			for _, pc := range tc.classes {
				if _, err := a.SetClass(pc); err != nil {
					t.Fatal(err)
				}
			}
			got, err := a.Group(tc.group)
			if tc.wantErr {
				var unknown *priority.UnknownClassError
				if !errors.As(err, &unknown) {
					t.Fatalf("error %v, want an UnknownClassError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Priority != tc.want || got == tc.group {
				t.Errorf("priority %d (a copy: %v), want %d", got.Priority, got != tc.group, tc.want)
			}
		})
	}
}

// Classes: the built-in ones are always there; a class set is known, a
// deleted one is not; an invalid one is refused.
func TestClasses(t *testing.T) {
	a := podadmission.New(podadmission.Options{})
	if known, err := a.SetClass(&model.PriorityClass{Name: "c", Value: 1}); known || err != nil {
		t.Fatalf("SetClass: known %v, err %v", known, err)
	}
	if known, err := a.SetClass(&model.PriorityClass{Name: "c", Value: 2}); !known || err != nil {
		t.Fatalf("SetClass again: known %v, err %v", known, err)
	}
	var invalid *priority.InvalidClassError
	if _, err := a.SetClass(&model.PriorityClass{Name: "system-mine"}); !errors.As(err, &invalid) {
		t.Errorf("a reserved name: %v, want an InvalidClassError", err)
	}
	if _, ok := a.DeleteClass(priority.SystemNodeCritical); !ok {
		t.Error("the built-in class was not known")
	}
	if pc, ok := a.DeleteClass("c"); !ok || pc.Value != 2 {
		t.Errorf("DeleteClass = %v, %v", pc, ok)
	}
	var names []string
	for _, pc := range a.Classes() {
		names = append(names, pc.Name)
	}
	if diff := cmp.Diff([]string{priority.SystemClusterCritical, priority.SystemNodeCritical}, names); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}
}
