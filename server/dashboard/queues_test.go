package dashboard

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// fakeQueues returns fixed statuses.
type fakeQueues struct {
	cqs []*berthv1.ClusterQueueStatus
	wls []*berthv1.WorkloadStatus
}

func (f fakeQueues) ClusterQueues() []*berthv1.ClusterQueueStatus { return f.cqs }
func (f fakeQueues) Workloads() []*berthv1.WorkloadStatus         { return f.wls }

func TestQueuesPage(t *testing.T) {
	cqs := []*berthv1.ClusterQueueStatus{
		{Name: "team-b", Cohort: "teams", AdmittedWorkloads: 1, Resources: []*berthv1.FlavorResourceUsage{
			{Flavor: "default", Resource: "cpu", Nominal: 4000, Usage: 1000}}},
		{Name: "team-a", Cohort: "teams", AdmittedWorkloads: 6, PendingWorkloads: 2, Resources: []*berthv1.FlavorResourceUsage{
			{Flavor: "default", Resource: "cpu", Nominal: 4000, Usage: 6000, Borrowed: 2000, BorrowingLimit: proto.Int64(4000)}}},
	}
	created := timestamppb.New(testTime.Add(-time.Minute))
	wls := []*berthv1.WorkloadStatus{
		{Namespace: "a", Name: "low", QueueName: "jobs", ClusterQueue: "team-a", State: berthv1.WorkloadState_WORKLOAD_STATE_PENDING,
			Priority: 0, CreationTime: created, Message: "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed"},
		{Namespace: "a", Name: "high", QueueName: "jobs", ClusterQueue: "team-a", State: berthv1.WorkloadState_WORKLOAD_STATE_INADMISSIBLE,
			Priority: 100, CreationTime: created, Message: "LocalQueue jobs is stopped"},
		{Namespace: "a", Name: "run", State: berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED},
		{Namespace: "b", Name: "going", State: berthv1.WorkloadState_WORKLOAD_STATE_EVICTING},
	}
	tests := []struct {
		name      string
		q         Queues
		want, not []string
	}{
		{name: "no controller", q: nil,
			want: []string{"runs no admission controller"},
			not:  []string{`href="/queues"`, `id="clusterqueues"`}},
		{name: "no queue yet", q: fakeQueues{},
			want: []string{`href="/queues"`, "No ClusterQueue yet", "berthctl apply -f"},
			not:  []string{`id="clusterqueues"`}},
		{name: "queues and workloads", q: fakeQueues{cqs: cqs, wls: wls},
			want: []string{`aria-current="page"`, `<dd id="cq-count">2</dd>`, `<dd id="admitted-count">1</dd>`,
				`<dd id="waiting-count">2</dd>`, `<dd id="evicting-count">1</dd>`,
				"default cpu: 6 of 4 (2 borrowed), may borrow 4", `<rect class="own" width="50"`, `<rect class="lent" x="50" width="25"`,
				"default cpu: 1 of 4", `id="cohorts"`, "team-a, team-b", "default cpu: 7 of 8",
				"a/high", "inadmissible", "LocalQueue jobs is stopped", "1 more needed"},
			not: []string{"a/run", "b/going", "more waiting"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dash, err := New(fakeAdmin{}, fakeExplainer{}, &fakeLog{first: 1, froms: make(chan uint64, 8)},
				Options{Now: func() time.Time { return testTime }, Queues: tc.q})
			if err != nil {
				t.Fatal(err)
			}
			w := get(dash, "/queues", nil)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d", w.Code)
			}
			body := w.Body.String()
			for _, s := range tc.want {
				if !strings.Contains(body, s) {
					t.Errorf("page lacks %q", s)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(body, s) {
					t.Errorf("page has %q", s)
				}
			}
			// The higher-priority workload waits first.
			if tc.q != nil && len(wls) > 0 && strings.Contains(body, "a/low") && strings.Index(body, "a/high") > strings.Index(body, "a/low") {
				t.Error("a/low is listed before a/high, which has the higher priority")
			}
		})
	}
}
