package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// explain says whether quota holds a pod of a Kueue workload: its
// workload, state, Kueue's message and the workloads it would preempt.
func TestExplainWorkload(t *testing.T) {
	for _, tc := range []struct {
		name string
		wl   *berthv1.WorkloadStatus
		want []string
	}{
		{name: "waits for quota", wl: &berthv1.WorkloadStatus{
			Namespace: "team-a", Name: "pod-a4-32618", QueueName: "lq", ClusterQueue: "cq-a",
			State:   berthv1.WorkloadState_WORKLOAD_STATE_INADMISSIBLE,
			Message: "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed",
		}, want: []string{
			"Workload:       team-a/pod-a4-32618 in LocalQueue lq (ClusterQueue cq-a): inadmissible, waiting for quota until something changes\n",
			"Quota:          couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed\n",
		}},
		{name: "preempts", wl: &berthv1.WorkloadStatus{
			Namespace: "team-b", Name: "pod-b1-1a2b3", QueueName: "lq", ClusterQueue: "cq-b",
			State: berthv1.WorkloadState_WORKLOAD_STATE_PENDING, Victims: []string{"team-a/pod-a2-9f8e7"},
		}, want: []string{
			"Workload:       team-b/pod-b1-1a2b3 in LocalQueue lq (ClusterQueue cq-b): pending, waiting for quota\n",
			"Preempts:       team-a/pod-a2-9f8e7 (admitted once their quota is released)\n",
		}},
		{name: "admitted", wl: &berthv1.WorkloadStatus{
			Namespace: "team-a", Name: "pod-a1-00000", QueueName: "lq", ClusterQueue: "cq-a",
			State:   berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED,
			PodSets: []*berthv1.PodSetAdmission{{Name: "main", Count: 1, Flavors: map[string]string{"memory": "default", "cpu": "spot"}}},
		}, want: []string{
			"Workload:       team-a/pod-a1-00000 in LocalQueue lq (ClusterQueue cq-a): admitted (quota does not hold it) [main/cpu=spot, main/memory=default]\n",
		}},
		{name: "unknown queue", wl: &berthv1.WorkloadStatus{
			Namespace: "x", Name: "pod-p-11111", QueueName: "nope", State: berthv1.WorkloadState_WORKLOAD_STATE_INADMISSIBLE,
			Message: `LocalQueue nope doesn't exist`,
		}, want: []string{
			"Workload:       x/pod-p-11111 in LocalQueue nope: inadmissible, waiting for quota until something changes\n",
			"Quota:          LocalQueue nope doesn't exist\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			r := &berthv1.ExplainResponse{Pod: &berthv1.PodRef{Namespace: tc.wl.GetNamespace(), Name: "p", Uid: "u"},
				SchedulerName: "default-scheduler", State: berthv1.QueueState_QUEUE_STATE_GATED, Workload: tc.wl}
			if err := writeExplain(&b, r); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.SplitAfter(b.String(), "\n") {
				if strings.HasPrefix(line, "Workload:") || strings.HasPrefix(line, "Quota:") || strings.HasPrefix(line, "Preempts:") {
					got = append(got, line)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("explain's workload lines (-want +got):\n%s\nall:\n%s", diff, b.String())
			}
		})
	}
}
