package queuesvc

import (
	"maps"
	"slices"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
	"github.com/berthsched/berth/core/quota/integrations"
)

// The pod mutator gates the pending pods of workloads not admitted,
// releases an admitted workload's pods with its flavors' node labels and
// tolerations (as admission.ApplyToPods does), and leaves unlabelled and
// bound pods as they are.
func TestMutate(t *testing.T) {
	h := newHarness(t, quota.Config{})
	spot := &quota.ResourceFlavor{Name: "spot", NodeLabels: map[string]string{"tier": "spot"},
		Tolerations: []model.Toleration{{Key: "spot", Operator: model.TolerationOpExists, Effect: model.TaintEffectNoSchedule}}}
	if err := h.upsert(t, spot); err != nil {
		t.Fatal(err)
	}
	queued := func(name string) *model.Pod {
		return &model.Pod{UID: "uid-" + name, Namespace: "ns", Name: name, Labels: map[string]string{integrations.QueueNameLabel: "lq"},
			NodeSelector: map[string]string{"zone": "a"}}
	}
	plain := &model.Pod{UID: "uid-plain", Namespace: "ns", Name: "plain"}
	bound := queued("bound")
	bound.NodeName = "n1"
	waiting, admitted := queued("waiting"), queued("admitted")

	if got := h.c.Mutate(plain); got != plain {
		t.Error("an unlabelled pod was changed")
	}
	if got := h.c.Mutate(bound); got != bound {
		t.Error("a bound pod was changed")
	}
	if got := h.c.Mutate(waiting); !slices.Equal(got.SchedulingGates, []string{admission.AdmissionGate}) || len(waiting.SchedulingGates) != 0 {
		t.Errorf("a pending pod's gates %v (sent %v), want [%s] on a copy", got.SchedulingGates, waiting.SchedulingGates, admission.AdmissionGate)
	}
	key, _, _ := workloadOfPod(admitted)
	h.c.Restore([]*berthv1.Admit{{WorkloadNamespace: "ns", WorkloadName: key[len("ns/"):], ClusterQueue: "cq",
		PodSets: []*berthv1.PodSetAdmission{{Name: "main", Count: 1, Flavors: map[string]string{"cpu": "spot"}}}}})
	got := h.c.Mutate(admitted)
	if len(got.SchedulingGates) != 0 {
		t.Errorf("an admitted pod's gates %v, want none", got.SchedulingGates)
	}
	if want := map[string]string{"zone": "a", "tier": "spot"}; !maps.Equal(got.NodeSelector, want) {
		t.Errorf("node selector %v, want %v", got.NodeSelector, want)
	}
	if len(got.Tolerations) != 1 || got.Tolerations[0].Key != "spot" {
		t.Errorf("tolerations %v, want the flavor's", got.Tolerations)
	}
	if len(admitted.NodeSelector) != 1 {
		t.Errorf("the pod sent was changed: %v", admitted.NodeSelector)
	}
	if n := testing.AllocsPerRun(100, func() { h.c.Mutate(plain) }); n != 0 {
		t.Errorf("the mutator allocates %.0f times for an unlabelled pod", n)
	}
}

// MayMutate keeps as sent exactly the pods Mutate may change: labelled
// ones and pod group members.
func TestMayMutate(t *testing.T) {
	tests := []struct {
		name string
		pod  *model.Pod
		want bool
	}{
		{"unlabelled", &model.Pod{Name: "a", Labels: map[string]string{"app": "x"}}, false},
		{"no labels", &model.Pod{Name: "a"}, false},
		{"queue label", &model.Pod{Name: "a", Labels: map[string]string{integrations.QueueNameLabel: "lq"}}, true},
		{"group member", &model.Pod{Name: "a", SchedulingGroup: "g"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MayMutate(tc.pod); got != tc.want {
				t.Errorf("MayMutate = %v, want %v", got, tc.want)
			}
		})
	}
}
