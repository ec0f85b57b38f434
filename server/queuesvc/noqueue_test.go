package queuesvc

import (
	"testing"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/holder"
)

// Without a ClusterQueue a pod event allocates nothing and schedules no
// round, labelled or not; the pods kept meanwhile are admitted by the
// round the first ClusterQueue's arrival runs.
func TestNoClusterQueueCostsNothing(t *testing.T) {
	for _, labelled := range []bool{false, true} {
		h := newHarness(t, quota.Config{})
		evs := podEvents(h, 10, labelled)
		i := 0
		allocs := testing.AllocsPerRun(200, func() {
			ev := evs[i%len(evs)]
			h.objects.mu.Lock()
			h.objects.pods[ev.New.(*model.Pod).UID] = ev.New.(*model.Pod)
			h.objects.mu.Unlock()
			h.c.Handle(t.Context(), ev)
			i++
		})
		if allocs != 0 {
			t.Errorf("labelled=%v: %v allocations per pod event, want 0", labelled, allocs)
		}
		h.c.mu.Lock()
		events := h.c.events
		h.c.mu.Unlock()
		if events != 0 || len(h.c.kick) != 0 {
			t.Errorf("labelled=%v: %d events counted (kicked: %v), want no round scheduled", labelled, events, len(h.c.kick) != 0)
		}
		if !labelled {
			continue
		}
		cq := &quota.ClusterQueue{Name: "cq", NamespaceSelector: &model.LabelSelector{},
			ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []quota.FlavorQuotas{{
				Name: "default", Resources: []quota.ResourceEntry{{Name: "cpu", ResourceQuota: quota.ResourceQuota{Nominal: 10000}}},
			}}}}}
		quota.DefaultClusterQueue(cq)
		for _, o := range []any{&quota.ResourceFlavor{Name: "default"}, &quota.LocalQueue{Namespace: "ns", Name: "lq", ClusterQueue: "cq"}, cq} {
			if err := h.upsert(t, o); err != nil {
				t.Fatal(err)
			}
		}
		h.c.Handle(t.Context(), objstore.Event{Kind: holder.KindClusterQueue, New: cq})
		if len(h.c.kick) != 1 {
			t.Fatal("the ClusterQueue's arrival scheduled no round")
		}
		if err := h.c.round(t.Context(), true); err != nil {
			t.Fatal(err)
		}
		if got := len(h.log.admissions()); got != 10 {
			t.Errorf("%d workloads admitted once the ClusterQueue came, want the 10 pods kept meanwhile", got)
		}
	}
}
