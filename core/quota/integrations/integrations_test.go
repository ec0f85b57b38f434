package integrations

import (
	"strings"
	"testing"

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
