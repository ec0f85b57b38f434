package watch

import (
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/store/bboltstore"
)

// Admit and EvictWorkload decisions reach watchers as they were decided,
// with the quota Evict of the workload's pod, and the type filter knows
// them.
func TestWatchWorkloadDecisions(t *testing.T) {
	e := open(t, bboltstore.Options{}, Options{})
	if err := e.log.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	wl := framework.WorkloadRef{Namespace: "ns", Name: "pod-p0000-1a2b3", UID: "wl-ns-pod-p0000-1a2b3"}
	e.submit(t, &framework.Admission{Workload: wl, ClusterQueue: "cq",
		PodSets: []framework.PodSetAdmission{{Name: "main", Count: 1, Flavors: map[string]string{"cpu": "default"}}}})
	e.bindN(t, 0, 1)
	if _, err := e.log.Submit(t.Context(), framework.Plan{Items: []framework.PlanItem{
		&framework.WorkloadEviction{Workload: wl, ClusterQueue: "cq", Reason: "InClusterQueue", PreemptedBy: "ns/big", Message: "Preempted"},
		&framework.Eviction{Victim: pod(name(0)), Node: "n1", Cause: framework.EvictQuota, Message: "Preempted by workload ns/big (InClusterQueue): Preempted"},
	}}); err != nil {
		t.Fatal(err)
	}
	admit := &berthv1.Decision{Revision: 1, SchedulerName: "default-scheduler", Action: &berthv1.Decision_Admit{Admit: &berthv1.Admit{
		WorkloadNamespace: "ns", WorkloadName: wl.Name, WorkloadUid: wl.UID, ClusterQueue: "cq",
		PodSets: []*berthv1.PodSetAdmission{{Name: "main", Count: 1, Flavors: map[string]string{"cpu": "default"}}},
	}}}
	evictWorkload := &berthv1.Decision{Revision: 3, SchedulerName: "default-scheduler", Action: &berthv1.Decision_EvictWorkload{EvictWorkload: &berthv1.WorkloadEviction{
		WorkloadNamespace: "ns", WorkloadName: wl.Name, WorkloadUid: wl.UID, ClusterQueue: "cq",
		Reason: "InClusterQueue", PreemptedBy: "ns/big", Message: "Preempted",
	}}}
	victim := &berthv1.PodRef{Namespace: "ns", Name: name(0), Uid: "uid-" + name(0)}
	evict := &berthv1.Decision{Revision: 4, SchedulerName: "default-scheduler", Pod: victim, Action: &berthv1.Decision_Evict{Evict: &berthv1.Evict{
		Victim: victim, Node: "n1", Cause: berthv1.EvictCause_EVICT_CAUSE_QUOTA, Reason: "Preempted by workload ns/big (InClusterQueue): Preempted",
	}}}
	for _, tc := range []struct {
		name   string
		filter Filter
		want   []*berthv1.Decision
	}{
		{name: "all", want: []*berthv1.Decision{admit, bindOf(2, name(0), "n1"), evictWorkload, evict}},
		{name: "workload types", filter: Filter{Types: []berthv1.DecisionType{berthv1.DecisionType_DECISION_TYPE_ADMIT, berthv1.DecisionType_DECISION_TYPE_EVICT_WORKLOAD}}, want: []*berthv1.Decision{admit, evictWorkload}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCollector()
			watch(t, e.feed, 1, tc.filter, c.send)
			got := c.waitNext(t, 5)
			for _, d := range got {
				d.Time = nil
			}
			if diff := diffDecisions(tc.want, got); diff != "" {
				t.Errorf("watched (-want +got):\n%s", diff)
			}
		})
	}
}
