package deschedule

import (
	"testing"
	"time"

	"github.com/berthsched/berth/core/deschedule/policy"
	"github.com/berthsched/berth/core/model"
)

func TestDefaultEvictorFilter(t *testing.T) {
	now := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	rs := []model.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: "rs-1"}}
	pod := func(edit func(*model.Pod)) *model.Pod {
		p := &model.Pod{Namespace: "default", Name: "p", NodeName: "n1", Labels: map[string]string{"app": "web"},
			StartTime: now.Add(-time.Hour), Runtime: &model.PodRuntime{Owners: rs}}
		if edit != nil {
			edit(p)
		}
		return p
	}
	defaults := func() *policy.EvictorArgs {
		return &policy.EvictorArgs{PriorityThreshold: model.SystemCriticalPriority, Protections: map[policy.Protection]bool{
			policy.PodsWithLocalStorage: true, policy.DaemonSetPods: true, policy.SystemCriticalPods: true, policy.FailedBarePods: true,
		}}
	}
	age := 2 * time.Hour
	sel := model.SelectorFromSet(map[string]string{"app": "db"})
	tests := []struct {
		name string
		args func(*policy.EvictorArgs)
		pod  *model.Pod
		want string
	}{
		{name: "owned pod", pod: pod(nil)},
		{name: "bare pod", pod: pod(func(p *model.Pod) { p.Runtime.Owners = nil }), want: "pod does not have any ownerRefs"},
		{name: "bare pod, runtime unknown", pod: pod(func(p *model.Pod) { p.Runtime = nil }), want: "pod does not have any ownerRefs"},
		{name: "failed bare pod allowed", args: func(a *policy.EvictorArgs) { a.Protections[policy.FailedBarePods] = false },
			pod: pod(func(p *model.Pod) { p.Runtime.Owners, p.Runtime.Phase = nil, model.PodFailed })},
		{name: "running bare pod with failed-bare allowed", args: func(a *policy.EvictorArgs) { a.Protections[policy.FailedBarePods] = false },
			pod: pod(func(p *model.Pod) { p.Runtime.Owners = nil }), want: "pod does not have any ownerRefs and is not in failed phase"},
		{name: "evict annotation wins", pod: pod(func(p *model.Pod) {
			p.Runtime.Owners, p.Terminating = nil, true
			p.Runtime.Annotations = map[string]string{evictAnnotation: ""}
		})},
		{name: "mirror", pod: pod(func(p *model.Pod) { p.Runtime.Annotations = map[string]string{mirrorPodAnnotation: "x"} }), want: "pod is a mirror pod"},
		{name: "static", pod: pod(func(p *model.Pod) { p.Runtime.Annotations = map[string]string{configSourceAnnotation: "file"} }), want: "pod is a static pod"},
		{name: "terminating", pod: pod(func(p *model.Pod) { p.Terminating = true }), want: "pod is terminating"},
		{name: "system critical", pod: pod(func(p *model.Pod) { p.Priority = model.SystemCriticalPriority }), want: "pod has system critical priority"},
		{name: "system critical allowed", args: func(a *policy.EvictorArgs) { a.Protections[policy.SystemCriticalPods] = false },
			pod: pod(func(p *model.Pod) { p.Priority = model.SystemCriticalPriority })},
		{name: "at priority threshold", args: func(a *policy.EvictorArgs) { a.PriorityThreshold = 100 },
			pod: pod(func(p *model.Pod) { p.Priority = 100 }), want: "pod has higher priority than the priority threshold"},
		{name: "local storage", pod: pod(func(p *model.Pod) { p.Runtime.LocalStorage = true }), want: "pod has local storage"},
		{name: "daemonset", pod: pod(func(p *model.Pod) { p.Runtime.Owners = []model.OwnerReference{{Kind: "DaemonSet", Name: "ds"}} }), want: "pod is a DaemonSet pod"},
		{name: "pvc not protected by default", pod: pod(func(p *model.Pod) { p.Runtime.PVCClaims = []string{"data"} })},
		{name: "pvc protected", args: func(a *policy.EvictorArgs) { a.Protections[policy.PodsWithPVC] = true },
			pod: pod(func(p *model.Pod) { p.Runtime.PVCClaims = []string{"data"} }), want: "pod has a PVC"},
		{name: "without pdb", args: func(a *policy.EvictorArgs) { a.Protections[policy.PodsWithoutPDB] = true }, pod: pod(nil), want: "pod has no PodDisruptionBudget"},
		{name: "label selector", args: func(a *policy.EvictorArgs) { a.LabelSelector = &sel }, pod: pod(nil), want: "pod labels do not match the labelSelector"},
		{name: "min replicas", args: func(a *policy.EvictorArgs) { a.MinReplicas = 2 }, pod: pod(nil), want: "owner has fewer replicas than minReplicas"},
		{name: "min pod age", args: func(a *policy.EvictorArgs) { a.MinPodAge = &age }, pod: pod(nil), want: "pod is younger than minPodAge"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := defaults()
			if tc.args != nil {
				tc.args(a)
			}
			e := &evictor{args: a, s: newState(&Cluster{Pods: []*model.Pod{tc.pod}}), now: now}
			if got := e.why(tc.pod); got != tc.want {
				t.Errorf("why = %q; want %q", got, tc.want)
			}
		})
	}
}
