package heldpods

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
)

// fakeObjects records what the controller asks of the object store.
type fakeObjects struct{ calls []string }

func (f *fakeObjects) Upsert(_ context.Context, obj any) error {
	f.calls = append(f.calls, "upsert "+obj.(*model.Pod).Name)
	return nil
}

func (f *fakeObjects) Delete(_ context.Context, ref objstore.Ref) error {
	f.calls = append(f.calls, "delete "+ref.Name)
	return nil
}

func wl(count int32, hold bool) *quota.Workload {
	return &quota.Workload{Namespace: "ns", Name: "w", UID: "u", QueueName: "lq", HoldPods: hold,
		PodSets: []quota.PodSet{{Name: "main", Count: count, Requests: model.ResourceList{"cpu": 100}}}}
}

func TestHandle(t *testing.T) {
	bound := map[string]bool{}
	objs := &fakeObjects{}
	c, err := New(Options{Objects: objs, Bound: func(uid string) bool { return bound[uid] }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	workload := func(w *quota.Workload) { c.Handle(ctx, objstore.Event{Kind: holder.KindWorkload, New: w}) }
	step := func(what string, want ...string) {
		t.Helper()
		if diff := cmp.Diff(want, objs.calls); diff != "" {
			t.Errorf("%s: calls (-want +got):\n%s", what, diff)
		}
		objs.calls = nil
	}

	workload(wl(2, false))
	step("admission only: no pods")
	workload(wl(11, true))
	var all []string
	for _, i := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"} {
		all = append(all, "upsert w-main-"+i)
	}
	step("held", all...)
	if k, ok := c.Holds("u-main-3"); !ok || k != "ns/w" {
		t.Errorf("Holds(u-main-3) = %q, %v", k, ok)
	}
	if _, ok := c.HoldsName("ns", "w-main-10"); !ok {
		t.Error("HoldsName(w-main-10) = false")
	}
	workload(wl(11, true))
	step("re-sent unchanged")
	workload(wl(2, true))
	step("shrunk: the highest indexes go, in order", "delete w-main-2", "delete w-main-3", "delete w-main-4", "delete w-main-5",
		"delete w-main-6", "delete w-main-7", "delete w-main-8", "delete w-main-9", "delete w-main-10")
	if _, ok := c.Holds("u-main-5"); ok {
		t.Error("a pod shrunk away is still held")
	}
	// Its own deletions' events are not deletions by the orchestrator.
	c.Handle(ctx, objstore.Event{Kind: objstore.KindPod, Old: &model.Pod{UID: "u-main-5", Namespace: "ns", Name: "w-main-5"}})
	step("its own deletion's event")
	// The orchestrator deletes a held pod: it is made again, pending.
	c.Handle(ctx, objstore.Event{Kind: objstore.KindPod, Old: &model.Pod{UID: "u-main-1", Namespace: "ns", Name: "w-main-1"}})
	step("deleted by the orchestrator", "upsert w-main-1")
	// A pending pod whose template changed is upserted again; a bound one
	// is not made pending.
	bound["u-main-0"] = true
	changed := wl(2, true)
	changed.PodSets[0].Requests = model.ResourceList{"cpu": 200}
	workload(changed)
	step("template changed", "upsert w-main-1")
	c.Handle(ctx, objstore.Event{Kind: holder.KindWorkload, Old: changed})
	step("Workload deleted", "delete w-main-0", "delete w-main-1")
	if _, ok := c.Holds("u-main-0"); ok {
		t.Error("a pod of a deleted Workload is still held")
	}
	// A pod that is no held pod changes nothing.
	c.Handle(ctx, objstore.Event{Kind: objstore.KindPod, Old: &model.Pod{UID: "x", Namespace: "ns", Name: "x"}})
	step("another pod")
	if !slices.Equal(objs.calls, nil) {
		t.Error("calls left")
	}
}
