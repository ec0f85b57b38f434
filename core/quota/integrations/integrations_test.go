package integrations

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
)

func cpuPod(name string, cpu int64) *model.Pod {
	return &model.Pod{UID: "uid-" + name, Namespace: "ns", Name: name,
		Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": cpu}}}}
}

func TestForPodAndGroup(t *testing.T) {
	prio := Priorities{PriorityClasses: []*model.PriorityClass{{Name: "low", Value: 1, GlobalDefault: true}, {Name: "high", Value: 100}}}
	p := cpuPod("a", 500)
	w := ForPod(p, "lq", prio)
	if w.Name != Name("Pod", "", "a", "uid-a") || !strings.HasPrefix(w.Name, "pod-a-") || len(w.Name) != len("pod-a-")+5 {
		t.Errorf("name %q: want Kueue's pod-a-<5 hex>", w.Name)
	}
	if w.UID != "wl-ns-"+w.Name || w.QueueName != "lq" || w.Priority != 1 || !w.HasPriority || w.PodSets[0].Name != MainPodSet || w.PodSets[0].Requests["cpu"] != 500 {
		t.Errorf("workload %+v: want uid wl-ns-<name>, queue lq, the default class's priority, pod set main of 500m", w)
	}
	p.PriorityClassName = "missing"
	if w := ForPod(p, "lq", prio); w.Error != `PriorityClass "missing" not found` {
		t.Errorf("error %q, want the class named", w.Error)
	}

	g := &model.PodGroup{Namespace: "ns", Name: "train", PriorityClassName: "high"}
	small1, small2, big := cpuPod("w0", 500), cpuPod("w1", 500), cpuPod("ps", 2000)
	running := cpuPod("done", 500)
	running.NodeName = "n1"
	gw := ForGroup(g, "lq", []*model.Pod{small1, big, small2, running}, prio)
	if gw == nil || len(gw.PodSets) != 2 || gw.PodSets[0].Count != 2 || gw.PodSets[1].Count != 1 || gw.Priority != 100 {
		t.Fatalf("group workload %+v: want two pod sets (2 small, 1 big) of the pending members, priority 100", gw)
	}
	if gw.PodSetOf[small1.Key()] != PodSetName(small1) || gw.PodSetOf[big.Key()] != PodSetName(big) || PodSetName(small1) == PodSetName(big) {
		t.Errorf("pod set names %v: want PodSetName's, one per shape", gw.PodSetOf)
	}
	if ForGroup(g, "lq", []*model.Pod{running}, prio) != nil {
		t.Error("a group with no pending member made a workload")
	}
}

func TestForRunningPod(t *testing.T) {
	objs := &quota.Objects{
		Flavors: []*quota.ResourceFlavor{{Name: "spot", NodeLabels: map[string]string{"tier": "spot"}}, {Name: "on-demand", NodeLabels: map[string]string{"tier": "od"}}},
		ClusterQueues: []*quota.ClusterQueue{{Name: "cq", ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{"cpu"},
			Flavors: []quota.FlavorQuotas{{Name: "spot"}, {Name: "on-demand"}}}}}},
		LocalQueues: []*quota.LocalQueue{{Namespace: "ns", Name: "lq", ClusterQueue: "cq"}},
	}
	queues := NewQueues(objs)
	p := cpuPod("r", 1000)
	p.NodeName = "n1"
	for _, tc := range []struct {
		name, queue string
		labels      map[string]string
		flavor, err string
	}{
		{name: "second flavor", queue: "lq", labels: map[string]string{"tier": "od"}, flavor: "on-demand"},
		{name: "no flavor", queue: "lq", labels: map[string]string{"tier": "gpu"}, err: "running pod ns/r on node n1: no flavor of ClusterQueue cq for [cpu] has the node's labels"},
		{name: "no local queue", queue: "other", err: "running pod ns/r on node n1: its LocalQueue does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := ForRunningPod(p, tc.queue, tc.labels, queues, Priorities{})
			if w.Error != tc.err {
				t.Fatalf("error %q, want %q", w.Error, tc.err)
			}
			if tc.err != "" {
				return
			}
			if a := w.Admission; a == nil || a.ClusterQueue != "cq" || a.PodSetAssignments[0].Flavors["cpu"] != tc.flavor || len(w.Running) != 1 {
				t.Errorf("admission %+v, want cq with cpu in %s, the pod running", a, tc.flavor)
			}
		})
	}
}

func ownedPod(name, kind string, ann map[string]string, labels map[string]string) *model.Pod {
	p := cpuPod(name, 1000)
	p.Labels = map[string]string{QueueNameLabel: "lq"}
	for k, v := range labels {
		p.Labels[k] = v
	}
	p.Runtime = &model.PodRuntime{Owners: []model.OwnerReference{{Kind: "ReplicaSet", Name: "other"}, {Kind: kind, Name: "o", UID: "u", Controller: true}}, Annotations: ann}
	return p
}

func TestOwnerOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pod   *model.Pod
		owned bool
		want  Owner
		err   string
	}{
		{name: "job with count and minimum", pod: ownedPod("a", KindJob, map[string]string{PodGroupTotalCountAnnotation: "4", JobMinParallelismAnnotation: "2"}, map[string]string{PriorityClassLabel: "urgent"}),
			owned: true, want: Owner{Kind: KindJob, Namespace: "ns", Name: "o", UID: "u", Queue: "lq", Count: 4, MinCount: new(int32(2)), WorkloadClass: "urgent"}},
		{name: "statefulset ignores a job's minimum", pod: ownedPod("a", KindStatefulSet, map[string]string{JobMinParallelismAnnotation: "2"}, nil),
			owned: true, want: Owner{Kind: KindStatefulSet, Namespace: "ns", Name: "o", UID: "u", Queue: "lq"}},
		{name: "a replicaset's pod is its own workload", pod: ownedPod("a", "ReplicaSet", nil, nil)},
		{name: "no runtime", pod: func() *model.Pod { p := cpuPod("a", 1); p.Labels = map[string]string{QueueNameLabel: "lq"}; return p }()},
		{name: "not queued", pod: func() *model.Pod { p := ownedPod("a", KindJob, nil, nil); delete(p.Labels, QueueNameLabel); return p }()},
		{name: "bad minimum", pod: ownedPod("a", KindJob, map[string]string{JobMinParallelismAnnotation: "-1"}, nil), owned: true,
			want: Owner{Kind: KindJob, Namespace: "ns", Name: "o", UID: "u", Queue: "lq"},
			err:  `annotation kueue.x-k8s.io/job-min-parallelism: must be a non-negative integer, got "-1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, owned, err := OwnerOf(tc.pod)
			if owned != tc.owned || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
				t.Fatalf("owned %v, err %v; want %v, %q", owned, err, tc.owned, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("owner (-want +got):\n%s", diff)
			}
		})
	}
}

func TestForOwner(t *testing.T) {
	prio := Priorities{PriorityClasses: []*model.PriorityClass{{Name: "low", Value: 1, GlobalDefault: true}},
		WorkloadClasses: []*quota.WorkloadPriorityClass{{Name: "urgent", Value: 500}}}
	a, b := cpuPod("a", 1000), cpuPod("b", 1000)
	b.CreationTime = a.CreationTime.Add(-1)
	job := Owner{Kind: KindJob, Namespace: "ns", Name: "train", UID: "u", Queue: "lq", Count: 4, MinCount: new(int32(2)), WorkloadClass: "urgent"}
	w := ForOwner(job, a, []*model.Pod{a, b}, prio)
	if w.Name != Name("Job", "batch", "train", "u") || !strings.HasPrefix(w.Name, "job-train-") || w.Error != "" {
		t.Fatalf("workload %s (error %q), want Kueue's job-train-<hash>", w.Name, w.Error)
	}
	ps := w.PodSets[0]
	if len(w.PodSets) != 1 || ps.Name != MainPodSet || ps.Count != 4 || *ps.MinCount != 2 || ps.Requests["cpu"] != 1000 || w.Priority != 500 || !w.Created.Equal(b.CreationTime) {
		t.Errorf("workload %+v, pod set %+v: want main of 4 (min 2), priority 500, created with its first pod", w, ps)
	}
	set := Owner{Kind: KindStatefulSet, Namespace: "ns", Name: "db", Queue: "lq"}
	w = ForOwner(set, a, []*model.Pod{a, b}, prio)
	if !strings.HasPrefix(w.Name, "statefulset-db-") || w.PodSets[0].Name != PodSetName(a) || w.PodSets[0].Count != 2 || w.PodSets[0].MinCount != nil || w.Priority != 1 {
		t.Errorf("workload %+v: want statefulset-db-<hash>, one pod set by shape of the 2 pods, whole, the default priority", w)
	}
	over := job
	over.MinCount = new(int32(5))
	if w := ForOwner(over, a, []*model.Pod{a}, prio); w.Error != "annotation kueue.x-k8s.io/job-min-parallelism: 5 is more than the job's 4 pods" {
		t.Errorf("error %q", w.Error)
	}
}

func TestReleaseOrder(t *testing.T) {
	a, b, c := cpuPod("a", 1), cpuPod("b", 1), cpuPod("c", 1)
	c.NodeName = "n1"
	got := ReleaseOrder([]*model.Pod{b, a, c}, func(p *model.Pod) bool { return p.NodeName != "" })
	if names := []string{got[0].Name, got[1].Name, got[2].Name}; !slices.Equal(names, []string{"c", "a", "b"}) {
		t.Errorf("order %v, want the bound pod first, then by creation and name", names)
	}
}
