package statesvc_test

import (
	"context"
	"slices"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/statesvc"
)

// storeSides is the scheduler behind an object store that also holds the
// queueing kinds, as berthd's is.
type storeSides struct {
	sides
	store *objstore.Store
}

func (s storeSides) Upsert(ctx context.Context, obj any) error { return s.store.Upsert(ctx, obj) }
func (s storeSides) Delete(ctx context.Context, ref objstore.Ref) error {
	return s.store.Delete(ctx, ref)
}
func (s storeSides) List(kind objstore.Kind) ([]any, error) { return s.store.List(kind) }

// newQueueEnv is an env whose object store holds the queueing kinds in h.
func newQueueEnv(t *testing.T) (*env, *holder.Holder) {
	t.Helper()
	h := holder.New()
	e := newEnvOf(t, statesvc.Options{}, func(sched *scheduler.Scheduler) statesvc.Cluster {
		kinds := sched.Kinds()
		if err := h.Register(kinds); err != nil {
			t.Fatal(err)
		}
		return storeSides{sides{sched, sched.View()}, objstore.New(kinds, objstore.Options{})}
	})
	return e, h
}

func flavorObj(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_ResourceFlavor{ResourceFlavor: &berthv1.ResourceFlavor{Name: name}}}
}

func clusterQueueObj(name, flavor string, nominal int64) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_ClusterQueue{ClusterQueue: &berthv1.ClusterQueue{
		Name: name, NamespaceSelector: &berthv1.LabelSelector{},
		ResourceGroups: []*berthv1.ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []*berthv1.FlavorQuotas{
			{Name: flavor, Resources: []*berthv1.ResourceQuota{{Name: "cpu", NominalQuota: nominal}}},
		}}},
	}}}
}

func localQueueObj(ns, name, cq string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_LocalQueue{LocalQueue: &berthv1.LocalQueue{Namespace: ns, Name: name, ClusterQueue: cq}}}
}

func workloadObj(ns, name, queue string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Workload{Workload: &berthv1.Workload{
		Namespace: ns, Name: name, QueueName: queue,
		PodSets: []*berthv1.PodSet{{Count: 2, Template: &berthv1.PodSetTemplate{Requests: map[string]int64{"cpu": 500}}}},
	}}}
}

func heldNames(h *holder.Holder) (flavors, cqs, lqs, wls []string) {
	o := h.Objects(quota.Config{})
	for _, f := range o.Flavors {
		flavors = append(flavors, f.Name)
	}
	for _, cq := range o.ClusterQueues {
		cqs = append(cqs, cq.Name)
	}
	for _, lq := range o.LocalQueues {
		lqs = append(lqs, lq.Key())
	}
	for _, w := range o.Workloads {
		wls = append(wls, w.Key())
	}
	return
}

// Queueing objects through Apply and Delete: held by the holder once
// converted, refused with their proto field path, deleted by kind and name
// (and namespace), NOT_FOUND when not held.
func TestQueueApplyAndDelete(t *testing.T) {
	e, h := newQueueEnv(t)
	ctx := t.Context()
	bad := clusterQueueObj("bad", "default-flavor", -1)
	resp, err := e.client.Apply(ctx, &berthv1.ApplyRequest{Objects: []*berthv1.Object{
		flavorObj("default-flavor"), clusterQueueObj("team-a", "default-flavor", 4000), bad,
		localQueueObj("", "main", "team-a"), workloadObj("", "w1", "main"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetApplied() != 4 || len(resp.GetErrors()) != 1 {
		t.Fatalf("Apply = %v, want 4 applied and the bad ClusterQueue refused", resp)
	}
	if e0 := resp.GetErrors()[0]; e0.GetIndex() != 2 || e0.GetCode() != berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT ||
		e0.GetFieldPath() != "cluster_queue.resource_groups[0].flavors[0].resources[0].nominal_quota" ||
		e0.GetRef().GetKind() != berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE || e0.GetRef().GetName() != "bad" {
		t.Errorf("refusal = %v", e0)
	}
	flavors, cqs, lqs, wls := heldNames(h)
	if !slices.Equal(flavors, []string{"default-flavor"}) || !slices.Equal(cqs, []string{"team-a"}) ||
		!slices.Equal(lqs, []string{"default/main"}) || !slices.Equal(wls, []string{"default/w1"}) {
		t.Errorf("held: flavors %v, cluster queues %v, local queues %v, workloads %v", flavors, cqs, lqs, wls)
	}

	dresp, err := e.client.Delete(ctx, &berthv1.DeleteRequest{Refs: []*berthv1.ObjectRef{
		{Kind: berthv1.ObjectKind_OBJECT_KIND_WORKLOAD, Namespace: "default", Name: "w1"},
		{Kind: berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE, Namespace: "default", Name: "main"},
		{Kind: berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, Name: "team-a"},
		{Kind: berthv1.ObjectKind_OBJECT_KIND_CLUSTER_QUEUE, Name: "team-a"},
		{Kind: berthv1.ObjectKind_OBJECT_KIND_LOCAL_QUEUE, Name: "main"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if dresp.GetDeleted() != 3 || len(dresp.GetErrors()) != 2 {
		t.Fatalf("Delete = %v, want 3 deleted, the second team-a not found and the local queue without namespace refused", dresp)
	}
	if e3 := dresp.GetErrors()[0]; e3.GetIndex() != 3 || e3.GetCode() != berthv1.ErrorCode_ERROR_CODE_NOT_FOUND {
		t.Errorf("second delete of team-a: %v, want NOT_FOUND", e3)
	}
	if e4 := dresp.GetErrors()[1]; e4.GetIndex() != 4 || e4.GetCode() != berthv1.ErrorCode_ERROR_CODE_INVALID_ARGUMENT || e4.GetFieldPath() != "namespace" {
		t.Errorf("local queue without namespace: %v, want INVALID_ARGUMENT at namespace", e4)
	}
	flavors, cqs, lqs, wls = heldNames(h)
	if !slices.Equal(flavors, []string{"default-flavor"}) || len(cqs)+len(lqs)+len(wls) != 0 {
		t.Errorf("after delete: flavors %v, cluster queues %v, local queues %v, workloads %v", flavors, cqs, lqs, wls)
	}
}

// A re-list of every kind deletes the queueing objects not re-sent; one of
// other kinds leaves them alone.
func TestQueueResync(t *testing.T) {
	e, h := newQueueEnv(t)
	_, send := e.sync(t)
	resp := send(&berthv1.SyncRequest{BatchId: 1, Mutations: upserts(
		flavorObj("f1"), flavorObj("f2"), clusterQueueObj("q1", "f1", 1000), clusterQueueObj("q2", "f2", 1000),
		localQueueObj("team", "lq", "q1"), workloadObj("team", "w", "lq"),
	)})
	if len(resp.GetErrors()) != 0 {
		t.Fatalf("upserts: %v", resp)
	}
	send(&berthv1.SyncRequest{BatchId: 2, Resync: berthv1.Resync_RESYNC_BEGIN, ResyncKinds: []berthv1.ObjectKind{kindNode}})
	send(&berthv1.SyncRequest{BatchId: 3, Resync: berthv1.Resync_RESYNC_END})
	if flavors, cqs, lqs, wls := heldNames(h); len(flavors) != 2 || len(cqs) != 2 || len(lqs) != 1 || len(wls) != 1 {
		t.Fatalf("a re-list of nodes changed the queueing objects: %v %v %v %v", flavors, cqs, lqs, wls)
	}
	send(&berthv1.SyncRequest{BatchId: 4, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: upserts(flavorObj("f1"), clusterQueueObj("q1", "f1", 1000))})
	resp = send(&berthv1.SyncRequest{BatchId: 5, Resync: berthv1.Resync_RESYNC_END})
	if got := resp.GetResyncDeleted(); got != 4 {
		t.Errorf("resync deleted %d objects, want 4 (f2, q2, team/lq, team/w)", got)
	}
	flavors, cqs, lqs, wls := heldNames(h)
	if !slices.Equal(flavors, []string{"f1"}) || !slices.Equal(cqs, []string{"q1"}) || len(lqs)+len(wls) != 0 {
		t.Errorf("after the re-list: flavors %v, cluster queues %v, local queues %v, workloads %v", flavors, cqs, lqs, wls)
	}
}
