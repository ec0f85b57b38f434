package holder

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
)

func newRegistry(t *testing.T) (*Holder, *objstore.Registry) {
	t.Helper()
	h, r := New(), objstore.NewRegistry()
	if err := h.Register(r); err != nil {
		t.Fatal(err)
	}
	return h, r
}

func clusterQueue(name string, nominal int64) *quota.ClusterQueue {
	cq := &quota.ClusterQueue{
		Name: name, QueueingStrategy: quota.BestEffortFIFO,
		ResourceGroups: []quota.ResourceGroup{{
			CoveredResources: []string{model.ResourceCPU},
			Flavors: []quota.FlavorQuotas{{Name: "default", Resources: []quota.ResourceEntry{
				{Name: model.ResourceCPU, ResourceQuota: quota.ResourceQuota{Nominal: nominal}},
			}}},
		}},
	}
	quota.DefaultClusterQueue(cq)
	return cq
}

func TestUpsertValidatesAndReplaces(t *testing.T) {
	ctx := context.Background()
	h, r := newRegistry(t)
	if got := r.Kinds(); len(got) != len(Kinds()) {
		t.Fatalf("registered %v, want %v", got, Kinds())
	}
	before := h.Revision()
	if err := r.Upsert(ctx, clusterQueue("team-a", 4000)); err != nil {
		t.Fatal(err)
	}
	if err := r.Upsert(ctx, clusterQueue("team-a", 8000)); err != nil {
		t.Fatal(err)
	}
	if h.Revision() != before+2 {
		t.Fatalf("revision %d, want %d", h.Revision(), before+2)
	}
	objs := h.Objects(quota.Config{})
	if len(objs.ClusterQueues) != 1 || objs.ClusterQueues[0].ResourceGroups[0].Flavors[0].Resources[0].Nominal != 8000 {
		t.Fatalf("cluster queues %+v, want team-a replaced with nominal 8000", objs.ClusterQueues)
	}

	if got := clusterQueue("x", 1).StopPolicy; got != quota.StopPolicyNone {
		t.Fatalf("defaulted stop policy %q, want None", got)
	}
	bad := clusterQueue("team-b", 1000)
	bad.QueueingStrategy = "Fastest"
	err := r.Upsert(ctx, bad)
	var inv *InvalidError
	if !errors.As(err, &inv) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("upsert of an invalid queue: %v, want an *InvalidError", err)
	}
	if len(inv.Errs) == 0 || inv.Errs[0].Field != "spec.queueingStrategy" {
		t.Fatalf("fields %v, want spec.queueingStrategy", inv.Errs)
	}
	if n := len(h.Objects(quota.Config{}).ClusterQueues); n != 1 {
		t.Fatalf("%d cluster queues after a refusal, want 1", n)
	}
	if err := r.Upsert(ctx, (*quota.LocalQueue)(nil)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("upsert of nil: %v, want ErrInvalid", err)
	}
	if err := r.Upsert(ctx, &quota.LocalQueue{Namespace: "ns", Name: "q"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a LocalQueue without its ClusterQueue: %v, want ErrInvalid", err)
	}
}

func TestDeleteAndList(t *testing.T) {
	ctx := context.Background()
	h, r := newRegistry(t)
	for _, q := range []*quota.LocalQueue{
		{Namespace: "b", Name: "q", ClusterQueue: "cq"},
		{Namespace: "a", Name: "q", ClusterQueue: "cq"},
	} {
		if err := r.Upsert(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	got, err := r.List(KindLocalQueue)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].(*quota.LocalQueue).Namespace != "a" {
		t.Fatalf("list %v, want a/q then b/q", got)
	}
	if err := r.Delete(ctx, objstore.Ref{Kind: KindLocalQueue, Namespace: "a", Name: "q"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, objstore.Ref{Kind: KindLocalQueue, Namespace: "a", Name: "q"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v, want ErrNotFound", err)
	}
	if n := len(h.Objects(quota.Config{}).LocalQueues); n != 1 {
		t.Fatalf("%d local queues, want 1", n)
	}
}

func TestWorkloadsInCreationOrder(t *testing.T) {
	ctx := context.Background()
	h, r := newRegistry(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, w := range []*quota.Workload{
		{Namespace: "ns", Name: "late", QueueName: "q", Active: true, Created: t0.Add(time.Minute)},
		{Namespace: "ns", Name: "b", QueueName: "q", Active: true, Created: t0},
		{Namespace: "ns", Name: "a", QueueName: "q", Active: true, Created: t0},
	} {
		w.PodSets = []quota.PodSet{{Name: "main", Count: 1, Requests: model.ResourceList{model.ResourceCPU: 100}}}
		if err := r.Upsert(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, w := range h.Objects(quota.Config{FairSharing: true}).Workloads {
		names = append(names, w.Name)
	}
	if want := []string{"a", "b", "late"}; !slices.Equal(names, want) {
		t.Fatalf("workloads %v, want %v", names, want)
	}
	if !h.Objects(quota.Config{FairSharing: true}).Config.FairSharing {
		t.Fatal("the configuration given is not the snapshot's")
	}
}
