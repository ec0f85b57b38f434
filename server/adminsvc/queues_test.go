package adminsvc_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/server/adminsvc"
	"github.com/berthsched/berth/server/convert"
)

// fakeQueueStatus is the admission controller's status, as given.
type fakeQueueStatus struct {
	cqs []*berthv1.ClusterQueueStatus
	wls []*berthv1.WorkloadStatus
	// pods are the workloads of pods, by namespace/name.
	pods map[string]*berthv1.WorkloadStatus
}

func (f fakeQueueStatus) ClusterQueues() []*berthv1.ClusterQueueStatus { return f.cqs }
func (f fakeQueueStatus) Workloads() []*berthv1.WorkloadStatus         { return f.wls }
func (f fakeQueueStatus) PodWorkload(namespace, name string) *berthv1.WorkloadStatus {
	return f.pods[namespace+"/"+name]
}

// heldQueues is an object store holding the queueing kinds, with objs
// upserted.
func heldQueues(t *testing.T, objs ...any) *objstore.Store {
	t.Helper()
	r := objstore.NewRegistry()
	if err := holder.New().Register(r); err != nil {
		t.Fatal(err)
	}
	s := objstore.New(r, objstore.Options{})
	for _, o := range objs {
		if err := s.Upsert(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func queueObjects() []any {
	cq := func(name, cohort string) *quota.ClusterQueue {
		q := &quota.ClusterQueue{Name: name, Cohort: cohort, FairWeight: 1, ResourceGroups: []quota.ResourceGroup{{
			CoveredResources: []string{"cpu"},
			Flavors:          []quota.FlavorQuotas{{Name: "default", Resources: []quota.ResourceEntry{{Name: "cpu", ResourceQuota: quota.ResourceQuota{Nominal: 4000}}}}},
		}}}
		quota.DefaultClusterQueue(q)
		return q
	}
	wl := func(ns, name string) *quota.Workload {
		return &quota.Workload{Namespace: ns, Name: name, QueueName: "main", Active: true, PodSets: []quota.PodSet{{Name: "main", Count: 1}}}
	}
	return []any{
		&quota.ResourceFlavor{Name: "default"},
		cq("team-b", "org"), cq("team-a", "org"),
		&quota.Cohort{Name: "org", FairWeight: 1},
		&quota.LocalQueue{Namespace: "b", Name: "main", ClusterQueue: "team-b"},
		&quota.LocalQueue{Namespace: "a", Name: "main", ClusterQueue: "team-a"},
		&quota.WorkloadPriorityClass{Name: "high", Value: 100},
		wl("b", "job-1"), wl("a", "job-2"),
	}
}

func TestListQueueObjects(t *testing.T) {
	status := fakeQueueStatus{
		cqs: []*berthv1.ClusterQueueStatus{
			{Name: "team-b", PendingWorkloads: 1},
			{Name: "team-a", AdmittedWorkloads: 1, Resources: []*berthv1.FlavorResourceUsage{{Flavor: "default", Resource: "cpu", Nominal: 4000, Usage: 500}}},
		},
		wls: []*berthv1.WorkloadStatus{
			{Namespace: "b", Name: "job-1", State: berthv1.WorkloadState_WORKLOAD_STATE_PENDING, ClusterQueue: "team-b", Origin: berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_EXPLICIT},
			{Namespace: "a", Name: "pod-web-0", State: berthv1.WorkloadState_WORKLOAD_STATE_ADMITTED, ClusterQueue: "team-a", Origin: berthv1.WorkloadOrigin_WORKLOAD_ORIGIN_POD,
				PodSets: []*berthv1.PodSetAdmission{{Name: "main", Count: 1, Flavors: map[string]string{"cpu": "default"}}}},
		},
	}
	e := newEnv(t, func(o *adminsvc.Options) {
		o.QueueObjects = heldQueues(t, queueObjects()...)
		o.QueueStatus = status
	})
	names := func(objs []*berthv1.Object) []string {
		var out []string
		for _, o := range objs {
			r := convert.ObjectRefOf(o)
			key := r.GetName()
			if r.GetNamespace() != "" {
				key = r.GetNamespace() + "/" + key
			}
			out = append(out, key)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		req       *berthv1.ListQueueObjectsRequest
		want      []string
		wantCQs   []string
		wantWLs   []string
		wantField string
	}{
		{name: "flavors", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_RESOURCE_FLAVOR}, want: []string{"default"}},
		{name: "cluster queues with status", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE},
			want: []string{"team-a", "team-b"}, wantCQs: []string{"team-a", "team-b"}},
		{name: "cohorts", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_COHORT}, want: []string{"org"}},
		{name: "local queues", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE}, want: []string{"a/main", "b/main"}},
		{name: "local queues of a namespace", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE, Namespace: "b"}, want: []string{"b/main"}},
		{name: "priority classes", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD_PRIORITY_CLASS}, want: []string{"high"}},
		{name: "workloads: explicit ones held, and every one the controller knows", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD},
			want: []string{"a/job-2", "b/job-1"}, wantWLs: []string{"a/pod-web-0", "b/job-1"}},
		{name: "workloads of a namespace", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD, Namespace: "a"},
			want: []string{"a/job-2"}, wantWLs: []string{"a/pod-web-0"}},
		{name: "not a queueing kind", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_POD}, wantField: "kind"},
		{name: "namespace of a cluster-scoped kind", req: &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_COHORT, Namespace: "a"}, wantField: "namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := e.client.ListQueueObjects(t.Context(), tc.req)
			if tc.wantField != "" {
				if got := badRequestField(t, err); got != tc.wantField {
					t.Errorf("refused at %q, want %q", got, tc.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(resp.GetObjects())); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			var cqs, wls []string
			for _, s := range resp.GetClusterQueueStatuses() {
				cqs = append(cqs, s.GetName())
			}
			for _, s := range resp.GetWorkloadStatuses() {
				wls = append(wls, s.GetNamespace()+"/"+s.GetName())
			}
			if diff := cmp.Diff(tc.wantCQs, cqs); diff != "" {
				t.Errorf("cluster queue statuses (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWLs, wls); diff != "" {
				t.Errorf("workload statuses (-want +got):\n%s", diff)
			}
		})
	}
	// The objects are sent as held, defaults included.
	resp, err := e.client.ListQueueObjects(t.Context(), &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(convert.ClusterQueueToProto(queueObjects()[2].(*quota.ClusterQueue)), resp.GetObjects()[0].GetClusterQueue(), protocmp.Transform()); diff != "" {
		t.Errorf("team-a as listed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(status.cqs[1], resp.GetClusterQueueStatuses()[0], protocmp.Transform()); diff != "" {
		t.Errorf("team-a's status (-want +got):\n%s", diff)
	}
}

// Without the controller's status only the objects are listed; without
// the queueing objects the RPC is not there.
func TestListQueueObjectsUnconfigured(t *testing.T) {
	e := newEnv(t, func(o *adminsvc.Options) { o.QueueObjects = heldQueues(t, queueObjects()...) })
	resp, err := e.client.ListQueueObjects(t.Context(), &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetObjects()) != 2 || len(resp.GetWorkloadStatuses()) != 0 {
		t.Errorf("without status: %v, want the 2 workloads held and no status", resp)
	}
	bare := newEnv(t)
	_, err = bare.client.ListQueueObjects(t.Context(), &berthv1.ListQueueObjectsRequest{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("without queueing objects: %v, want UNIMPLEMENTED", err)
	}
}
