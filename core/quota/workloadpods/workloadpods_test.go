package workloadpods

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

func ptr[T any](v T) *T { return &v }

func workload() *quota.Workload {
	return &quota.Workload{
		Namespace: "team", Name: "train", UID: "u1", QueueName: "lq", HoldPods: true,
		Created: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		PodSets: []quota.PodSet{
			{Name: "driver", Count: 1, Requests: model.ResourceList{"cpu": 500},
				Tolerations: []model.Toleration{{Key: "k", Operator: model.TolerationOpExists}}},
			{Name: "workers", Count: 3, MinCount: ptr[int32](2), Requests: model.ResourceList{"cpu": 1000, "memory": 1 << 30},
				NodeSelector: map[string]string{"pool": "a"}},
		},
	}
}

func TestPods(t *testing.T) {
	w := workload()
	pods := Pods(w)
	type summary struct {
		Name, UID, PodSet, Queue string
		Requests                 model.ResourceList
		Selector                 map[string]string
		Tolerations              int
		Owner                    model.OwnerReference
	}
	var got []summary
	for _, p := range pods {
		got = append(got, summary{
			Name: p.Name, UID: p.UID, PodSet: p.Labels[PodSetLabel], Queue: p.Labels["kueue.x-k8s.io/queue-name"],
			Requests: p.Containers[0].Requests, Selector: p.NodeSelector, Tolerations: len(p.Tolerations), Owner: p.Runtime.Owners[0],
		})
		if p.Namespace != "team" || !p.CreationTime.Equal(w.Created) || p.RequestedPriority != nil || p.NodeName != "" {
			t.Errorf("%s: namespace %q, created %v, priority %v, node %q", p.Name, p.Namespace, p.CreationTime, p.RequestedPriority, p.NodeName)
		}
	}
	owner := model.OwnerReference{Kind: "Workload", Name: "train", UID: "u1", Controller: true}
	worker := func(i string) summary {
		return summary{Name: "train-workers-" + i, UID: "u1-workers-" + i, PodSet: "workers", Queue: "lq",
			Requests: model.ResourceList{"cpu": 1000, "memory": 1 << 30}, Selector: map[string]string{"pool": "a"}, Owner: owner}
	}
	want := []summary{
		{Name: "train-driver-0", UID: "u1-driver-0", PodSet: "driver", Queue: "lq", Requests: model.ResourceList{"cpu": 500}, Tolerations: 1, Owner: owner},
		worker("0"), worker("1"), worker("2"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	// Generated again, the same pods: a restart re-derives them.
	if diff := cmp.Diff(pods, Pods(w)); diff != "" {
		t.Errorf("not deterministic (-first +second):\n%s", diff)
	}
	// The template is copied, not shared.
	pods[1].NodeSelector["pool"] = "b"
	if w.PodSets[1].NodeSelector["pool"] != "a" {
		t.Error("a pod shares its template's node selector")
	}
}

func TestPodsVariants(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(*quota.Workload)
		wantN    int
		wantUID0 string
		wantPrio *int32
		wantQ    bool
	}{
		{name: "not held", edit: func(w *quota.Workload) { w.HoldPods = false }},
		{name: "no uid", edit: func(w *quota.Workload) { w.UID = "" }, wantN: 4, wantUID0: "wl-team-train-driver-0", wantQ: true},
		{name: "priority value", edit: func(w *quota.Workload) { w.Priority, w.HasPriority = 7, true }, wantN: 4, wantUID0: "u1-driver-0", wantPrio: ptr[int32](7), wantQ: true},
		{name: "count 0 set", edit: func(w *quota.Workload) { w.PodSets[1].Count = 0 }, wantN: 1, wantUID0: "u1-driver-0", wantQ: true},
		{name: "not queued: labelled still, so gated", edit: func(w *quota.Workload) { w.QueueName = "" }, wantN: 4, wantUID0: "u1-driver-0", wantQ: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := workload()
			tt.edit(w)
			pods := Pods(w)
			if len(pods) != tt.wantN {
				t.Fatalf("%d pods, want %d", len(pods), tt.wantN)
			}
			if tt.wantN == 0 {
				return
			}
			p := pods[0]
			_, queued := p.Labels["kueue.x-k8s.io/queue-name"]
			if p.UID != tt.wantUID0 || !cmp.Equal(p.RequestedPriority, tt.wantPrio) || queued != tt.wantQ {
				t.Errorf("first pod: uid %q priority %v queued %v; want %q %v %v", p.UID, p.RequestedPriority, queued, tt.wantUID0, tt.wantPrio, tt.wantQ)
			}
		})
	}
}

func TestOf(t *testing.T) {
	w := workload()
	w.Name = "a-workers-1" // a name that looks like a pod's
	for _, p := range Pods(w) {
		r, ok := Of(p)
		if !ok {
			t.Fatalf("%s: not a held pod", p.Name)
		}
		if r.WorkloadKey() != "team/a-workers-1" || r.WorkloadUID != "u1" || PodName(r.Workload, r.PodSet, r.Index) != p.Name {
			t.Errorf("%s: %+v", p.Name, r)
		}
	}
	held := Pods(workload())[3]
	tests := []struct {
		name string
		edit func(*model.Pod)
	}{
		{"no runtime", func(p *model.Pod) { p.Runtime = nil }},
		{"owner not controller", func(p *model.Pod) { p.Runtime.Owners[0].Controller = false }},
		{"owner a Job", func(p *model.Pod) { p.Runtime.Owners[0].Kind = "Job" }},
		{"no pod set label", func(p *model.Pod) { delete(p.Labels, PodSetLabel) }},
		{"other pod set", func(p *model.Pod) { p.Labels[PodSetLabel] = "driver" }},
		{"index not a number", func(p *model.Pod) { p.Name = "train-workers-x" }},
		{"index with a zero", func(p *model.Pod) { p.Name = "train-workers-02" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := *held
			p.Labels = map[string]string{PodSetLabel: "workers"}
			p.Runtime = &model.PodRuntime{Owners: []model.OwnerReference{held.Runtime.Owners[0]}}
			tt.edit(&p)
			if r, ok := Of(&p); ok {
				t.Errorf("held pod %+v", r)
			}
		})
	}
}

func TestChanged(t *testing.T) {
	tests := []struct {
		name string
		edit func(*quota.Workload)
		want string
	}{
		{"same", func(*quota.Workload) {}, ""},
		{"queue only", func(w *quota.Workload) { w.QueueName = "other" }, ""},
		{"count", func(w *quota.Workload) { w.PodSets[1].Count = 5 }, "pod_sets[1].count"},
		{"min count", func(w *quota.Workload) { w.PodSets[1].MinCount = nil }, "pod_sets[1].min_count"},
		{"requests", func(w *quota.Workload) { w.PodSets[0].Requests = model.ResourceList{"cpu": 1} }, "pod_sets[0].template"},
		{"toleration", func(w *quota.Workload) { w.PodSets[0].Tolerations[0].Key = "j" }, "pod_sets[0].template"},
		{"renamed", func(w *quota.Workload) { w.PodSets[0].Name = "d" }, "pod_sets[0].name"},
		{"one more", func(w *quota.Workload) { w.PodSets = append(w.PodSets, quota.PodSet{Name: "x", Count: 1}) }, "pod_sets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := workload()
			tt.edit(cur)
			if got := Changed(workload(), cur); got != tt.want {
				t.Errorf("Changed = %q, want %q", got, tt.want)
			}
		})
	}
}
