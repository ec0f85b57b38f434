package convert

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

func TestPodGroupFromProto(t *testing.T) {
	obj := func(g *berthv1.PodGroup) *berthv1.Object {
		return &berthv1.Object{Kind: &berthv1.Object_PodGroup{PodGroup: g}}
	}
	tests := []struct {
		name string
		in   *berthv1.PodGroup
		want *model.PodGroup
		path string // of the error, when one is wanted
	}{
		{name: "valid", in: &berthv1.PodGroup{Namespace: "ml", Name: "train", MinCount: 4, TopologyKey: "topology.kubernetes.io/zone"},
			want: &model.PodGroup{Namespace: "ml", Name: "train", MinCount: 4, TopologyKey: "topology.kubernetes.io/zone"}},
		{name: "kube 1.37's fields", in: &berthv1.PodGroup{Namespace: "ml", Name: "train", MinCount: 4, PriorityClassName: "urgent",
			Priority: ptrTo[int32](770), DisruptionMode: berthv1.DisruptionMode_DISRUPTION_MODE_ALL, PreemptionPolicy: berthv1.PreemptionPolicy_PREEMPTION_POLICY_NEVER},
			want: &model.PodGroup{Namespace: "ml", Name: "train", MinCount: 4, PriorityClassName: "urgent", RequestedPriority: ptrTo[int32](770), DisruptionAll: true,
				PreemptionPolicy: model.PreemptNever}},
		{name: "unknown preemption policy", in: &berthv1.PodGroup{Namespace: "ml", Name: "g", MinCount: 1, PreemptionPolicy: 9}, path: "pod_group.preemption_policy"},
		{name: "bad class name", in: &berthv1.PodGroup{Namespace: "ml", Name: "g", MinCount: 1, PriorityClassName: "Urgent!"}, path: "pod_group.priority_class_name"},
		{name: "unknown disruption mode", in: &berthv1.PodGroup{Namespace: "ml", Name: "g", MinCount: 1, DisruptionMode: 9}, path: "pod_group.disruption_mode"},
		{name: "min_count 0", in: &berthv1.PodGroup{Namespace: "ml", Name: "train"}, path: "pod_group.min_count"},
		{name: "min_count MaxInt32", in: &berthv1.PodGroup{Namespace: "ml", Name: "train", MinCount: math.MaxInt32}, path: "pod_group.min_count"},
		{name: "min_count at the cap", in: &berthv1.PodGroup{Namespace: "ml", Name: "train", MinCount: MaxMinCount},
			want: &model.PodGroup{Namespace: "ml", Name: "train", MinCount: MaxMinCount}},
		{name: "no name", in: &berthv1.PodGroup{Namespace: "ml", MinCount: 1}, path: "pod_group.name"},
		{name: "bad namespace", in: &berthv1.PodGroup{Namespace: "ML", Name: "g", MinCount: 1}, path: "pod_group.namespace"},
		{name: "bad topology key", in: &berthv1.PodGroup{Namespace: "ml", Name: "g", MinCount: 1, TopologyKey: "a b"}, path: "pod_group.topology_key"},
		{name: "labels", in: &berthv1.PodGroup{Namespace: "ml", Name: "g", MinCount: 1, Labels: map[string]string{"kueue.x-k8s.io/queue-name": "lq"}},
			want: &model.PodGroup{Namespace: "ml", Name: "g", MinCount: 1, Labels: map[string]string{"kueue.x-k8s.io/queue-name": "lq"}}},
		{name: "bad label key", in: &berthv1.PodGroup{Namespace: "ml", Name: "g", MinCount: 1, Labels: map[string]string{"a b": "x"}}, path: "pod_group.labels[a b]"},
		{name: "bad label value", in: &berthv1.PodGroup{Namespace: "ml", Name: "g", MinCount: 1, Labels: map[string]string{"kueue.x-k8s.io/queue-name": "not a name"}},
			path: "pod_group.labels[kueue.x-k8s.io/queue-name]"},
		{name: "a composite parent", in: &berthv1.PodGroup{Namespace: "ml", Name: "g", MinCount: 2, ParentCompositePodGroupName: "job"},
			want: &model.PodGroup{Namespace: "ml", Name: "g", MinCount: 2, Parent: "job"}},
		{name: "bad parent name", in: &berthv1.PodGroup{Namespace: "ml", Name: "g", MinCount: 1, ParentCompositePodGroupName: "Job!"}, path: "pod_group.parent_composite_pod_group_name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ObjectFromProto(obj(tc.in))
			if tc.path != "" {
				fe, ok := err.(*FieldError)
				if !ok || fe.Path != tc.path {
					t.Fatalf("error %v, want one at %s", err, tc.path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.PodGroup); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.in, PodGroupToProto(out.PodGroup), cmp.Comparer(func(a, b *berthv1.PodGroup) bool {
				return a.String() == b.String()
			})); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
	// A pod naming a group with an invalid name is refused at the field.
	p := &berthv1.Pod{Uid: "u", Namespace: "ml", Name: "p", SchedulingGroup: "Not_Valid",
		Containers: []*berthv1.Container{{Name: "c"}}}
	if _, err := ObjectFromProto(&berthv1.Object{Kind: &berthv1.Object_Pod{Pod: p}}); err == nil || err.(*FieldError).Path != "pod.scheduling_group" {
		t.Errorf("invalid scheduling_group: %v", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestCompositePodGroupFromProto(t *testing.T) {
	obj := func(g *berthv1.CompositePodGroup) *berthv1.Object {
		return &berthv1.Object{Kind: &berthv1.Object_CompositePodGroup{CompositePodGroup: g}}
	}
	tests := []struct {
		name string
		in   *berthv1.CompositePodGroup
		want *model.CompositePodGroup
		path string // of the error, when one is wanted
	}{
		{name: "a root", in: &berthv1.CompositePodGroup{Namespace: "ml", Name: "job", MinGroupCount: 2, PriorityClassName: "urgent"},
			want: &model.CompositePodGroup{Namespace: "ml", Name: "job", MinGroupCount: 2, PriorityClassName: "urgent"}},
		{name: "a child, its priority given", in: &berthv1.CompositePodGroup{Namespace: "ml", Name: "side", ParentCompositePodGroupName: "job", MinGroupCount: 1, Priority: ptrTo[int32](5)},
			want: &model.CompositePodGroup{Namespace: "ml", Name: "side", Parent: "job", MinGroupCount: 1, RequestedPriority: ptrTo[int32](5)}},
		{name: "min_group_count 0", in: &berthv1.CompositePodGroup{Namespace: "ml", Name: "job"}, path: "composite_pod_group.min_group_count"},
		{name: "its own parent", in: &berthv1.CompositePodGroup{Namespace: "ml", Name: "job", ParentCompositePodGroupName: "job", MinGroupCount: 1},
			path: "composite_pod_group.parent_composite_pod_group_name"},
		{name: "bad parent", in: &berthv1.CompositePodGroup{Namespace: "ml", Name: "job", ParentCompositePodGroupName: "a b", MinGroupCount: 1},
			path: "composite_pod_group.parent_composite_pod_group_name"},
		{name: "bad class name", in: &berthv1.CompositePodGroup{Namespace: "ml", Name: "job", MinGroupCount: 1, PriorityClassName: "Urgent!"},
			path: "composite_pod_group.priority_class_name"},
		{name: "no name", in: &berthv1.CompositePodGroup{Namespace: "ml", MinGroupCount: 1}, path: "composite_pod_group.name"},
		{name: "bad namespace", in: &berthv1.CompositePodGroup{Namespace: "ML", Name: "job", MinGroupCount: 1}, path: "composite_pod_group.namespace"},
		{name: "missing", path: "composite_pod_group"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ObjectFromProto(obj(tc.in))
			if tc.path != "" {
				fe, ok := err.(*FieldError)
				if !ok || fe.Path != tc.path {
					t.Fatalf("error %v, want one at %s", err, tc.path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.CompositePodGroup); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got := out.Kind(); got != berthv1.ObjectKind_OBJECT_KIND_COMPOSITE_POD_GROUP {
				t.Errorf("kind %v", got)
			}
			back := ObjectToProto(out).GetCompositePodGroup()
			if back.String() != tc.in.String() {
				t.Errorf("round trip: %v, want %v", back, tc.in)
			}
		})
	}
}
