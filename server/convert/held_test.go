package convert_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/server/convert"
)

func mustPod(t *testing.T, o *berthv1.Object) *model.Pod {
	t.Helper()
	obj, err := convert.ObjectFromProto(o)
	if err != nil {
		t.Fatal(err)
	}
	return obj.Pod
}

// sameMap reports whether two maps are the same map (shared, not equal).
func sameMap[M ~map[K]V, K comparable, V any](a, b M) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestObjectFromProtoHeld: converting an update with the held version gives
// what converting it alone gives, sharing what did not change.
func TestObjectFromProtoHeld(t *testing.T) {
	basic := func(edit func(*berthv1.Pod)) *berthv1.Object {
		o := proto.Clone(basicPodObject("")).(*berthv1.Object)
		edit(o.GetPod())
		return o
	}
	tests := []struct {
		name                           string
		held, in                       *berthv1.Object
		wantLabels, wantCtrs, wantTols bool // shared with held
	}{
		{name: "basic pod confirmed", held: basicPodObject(""), in: basicPodObject("n1"), wantLabels: true, wantCtrs: true, wantTols: true},
		{name: "rich pod updated", held: podObject(func(*berthv1.Pod) {}), in: podObject(func(p *berthv1.Pod) { p.NodeName = "n1" }), wantLabels: true, wantTols: true},
		{name: "labels changed", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) { p.Labels["app"] = "other" }), wantCtrs: true, wantTols: true},
		{name: "labels dropped", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) { p.Labels = map[string]string{} }), wantCtrs: true, wantTols: true},
		{name: "request changed", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) { p.Containers[0].Requests["cpu"] = 200 }), wantLabels: true, wantTols: true},
		{name: "requests emptied", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) { p.Containers[0].Requests = map[string]int64{} }), wantLabels: true, wantTols: true},
		{name: "container renamed", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) { p.Containers[0].Name = "d" }), wantLabels: true, wantTols: true},
		{name: "init container added", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) { p.InitContainers = []*berthv1.Container{{Name: "i"}} }), wantLabels: true, wantTols: true},
		{name: "toleration seconds changed", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) { p.Tolerations[1].TolerationSeconds = proto.Int64(5) }), wantLabels: true, wantCtrs: true},
		{name: "toleration seconds dropped", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) { p.Tolerations[0].TolerationSeconds = nil }), wantLabels: true, wantCtrs: true},
		{name: "toleration effect changed", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) {
			p.Tolerations[0].Effect, p.Tolerations[0].TolerationSeconds = berthv1.TaintEffect_TAINT_EFFECT_NO_SCHEDULE, nil
		}), wantLabels: true, wantCtrs: true},
		{name: "another uid", held: basicPodObject(""), in: basic(func(p *berthv1.Pod) { p.Uid = "other" })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			held := mustPod(t, tc.held)
			want := mustPod(t, tc.in)
			got, err := convert.ObjectFromProtoHeld(tc.in, held)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got.Pod); diff != "" {
				t.Errorf("pod (-alone +with held):\n%s", diff)
			}
			if s := sameMap(got.Pod.Labels, held.Labels); s != tc.wantLabels {
				t.Errorf("labels shared = %v, want %v", s, tc.wantLabels)
			}
			if s := len(got.Pod.Containers) > 0 && &got.Pod.Containers[0] == &held.Containers[0]; s != tc.wantCtrs {
				t.Errorf("containers shared = %v, want %v", s, tc.wantCtrs)
			}
			if s := len(got.Pod.Tolerations) > 0 && &got.Pod.Tolerations[0] == &held.Tolerations[0]; s != tc.wantTols {
				t.Errorf("tolerations shared = %v, want %v", s, tc.wantTols)
			}
		})
	}
}

// TestObjectFromProtoHeldErrors: the held version changes no error, whether
// the fault is in a part that could be shared or elsewhere.
func TestObjectFromProtoHeldErrors(t *testing.T) {
	basic := func(edit func(*berthv1.Pod)) *berthv1.Object {
		o := proto.Clone(basicPodObject("")).(*berthv1.Object)
		edit(o.GetPod())
		return o
	}
	rich, basicHeld := mustPod(t, podObject(func(*berthv1.Pod) {})), mustPod(t, basicPodObject(""))
	for i, tc := range []struct {
		held *model.Pod
		in   *berthv1.Object
	}{
		{rich, podObject(func(p *berthv1.Pod) { p.Name = "Web_0" })},
		{rich, podObject(func(p *berthv1.Pod) { p.Labels["bad key"] = "v" })},
		{rich, podObject(func(p *berthv1.Pod) { p.Containers[1].Requests["cpu"] = -1 })},
		{rich, podObject(func(p *berthv1.Pod) { p.InitContainers[0].Name = "app" })},
		{rich, podObject(func(p *berthv1.Pod) { p.Tolerations[0].Operator = 7 })},
		{rich, podObject(func(p *berthv1.Pod) { p.Tolerations[1].Effect = -1 })},
		{rich, podObject(func(p *berthv1.Pod) { p.WorkloadSelectors[0].MatchLabels["app"] = "db" })},
		{rich, podObject(func(p *berthv1.Pod) { p.SchedulingGates = []string{"a", "a"} })},
		{rich, podObject(func(p *berthv1.Pod) { p.Overhead["cpu"] = model.MaxAmount })},
		{basicHeld, basic(func(p *berthv1.Pod) { p.NodeName = "N1" })},
		{basicHeld, basic(func(p *berthv1.Pod) { p.Overhead = map[string]int64{"cpu": model.MaxAmount} })},
		{basicHeld, basic(func(p *berthv1.Pod) { p.PodLevelRequests = map[string]int64{"cpu": 1} })},
		{basicHeld, basic(func(p *berthv1.Pod) { p.InitContainers = []*berthv1.Container{{Name: "c"}} })},
		{basicHeld, basic(func(p *berthv1.Pod) { p.Tolerations[0].Key = "bad key" })},
		{basicHeld, basic(func(p *berthv1.Pod) { p.Tolerations[0].Value = "x" })},
		{basicHeld, basic(func(p *berthv1.Pod) { p.Containers[0].Requests["gpu"] = 1 })},
		{basicHeld, basic(func(p *berthv1.Pod) {
			p.WorkloadSelectors = []*berthv1.LabelSelector{{MatchLabels: map[string]string{"app": "x"}}}
		})},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, want := convert.ObjectFromProto(tc.in)
			_, got := convert.ObjectFromProtoHeld(tc.in, tc.held)
			if want == nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("error with held = %v, alone = %v", got, want)
			}
		})
	}
}
