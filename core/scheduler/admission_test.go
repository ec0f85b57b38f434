package scheduler

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
	"github.com/berthsched/berth/core/priority"
)

// TestAdmissionOfRelistedPods: pods re-listed after a restart keep the
// priority they carry and, when running, always occupy their node, even if
// their class was deleted or re-created with another value meanwhile. Only a
// new pending pod without priority is resolved from its class, and refused
// when the class is unknown.
func TestAdmissionOfRelistedPods(t *testing.T) {
	type got struct {
		Err      string
		Priority int32
		Policy   model.PreemptionPolicy
		OnNode   bool // in the cache: it uses its node
	}
	classC := &model.PriorityClass{Name: "c", Value: 10, PreemptionPolicy: model.PreemptNever}
	tests := []struct {
		name  string
		class string // the class the pod names; "c" is known, with value 10
		pod   *model.Pod
		want  got
	}{
		{
			name: "running, naming a deleted class, with its priority", class: "gone",
			pod:  mt.MakePod("p").Node("n1").RequestedPriority(500).Obj(),
			want: got{Priority: 500, OnNode: true},
		},
		{
			name: "running, naming a deleted class, without priority", class: "gone",
			pod:  mt.MakePod("p").Node("n1").Obj(),
			want: got{Priority: 0, OnNode: true},
		},
		{
			name: "running, its class re-created with another value", class: "c",
			pod:  mt.MakePod("p").Node("n1").RequestedPriority(9000).Obj(),
			want: got{Priority: 9000, Policy: model.PreemptNever, OnNode: true},
		},
		{
			name: "pending, naming a deleted class, with its priority", class: "gone",
			pod:  mt.MakePod("p").RequestedPriority(500).Obj(),
			want: got{Priority: 500},
		},
		{
			name: "pending, naming a deleted class, without priority", class: "gone",
			pod:  mt.MakePod("p").Obj(),
			want: got{Err: "admit pod default/p: no PriorityClass with name gone was found"},
		},
		{
			name: "pending, naming a known class, without priority", class: "c",
			pod:  mt.MakePod("p").Obj(),
			want: got{Priority: 10, Policy: model.PreemptNever},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, &testPlugins{}, nil)
			if err := e.s.setPriorityClass(context.Background(), classC); err != nil {
				t.Fatal(err)
			}
			e.addNodes(mt.MakeNode("n1").Obj())
			pod := tc.pod
			pod.PriorityClassName = tc.class
			var g got
			if err := e.s.AddPod(context.Background(), pod); err != nil {
				g.Err = err.Error()
				if unknown := (*priority.UnknownClassError)(nil); !errors.As(err, &unknown) {
					t.Errorf("error %v is not an UnknownClassError", err)
				}
				if _, check := e.s.Kinds().Admit(pod); check == nil || check.Error() != err.Error() {
					t.Errorf("the pod kind's admission refused it with %v, want AddPod's error", check)
				}
			} else {
				admitted, _ := e.s.View().Pod(pod.UID)
				g.Priority, g.Policy = admitted.Priority, admitted.PreemptionPolicy
				if g.Policy == model.PreemptLowerPriority {
					g.Policy = ""
				}
				_, g.OnNode = e.s.cache.Pod(pod.UID)
			}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
