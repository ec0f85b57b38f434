package queuesvc

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

// BenchmarkRound is one round over n pending pods in one ClusterQueue
// that admits half of them (the first round admits them; the others
// measure a round that decides nothing new): n one-pod workloads, or
// (jobs) n/10 Jobs of 10 pods, derived from their owner references.
func BenchmarkRound(b *testing.B) {
	for _, bc := range []struct {
		name string
		n    int
		job  int // pods per Job; 0: one-pod workloads
	}{{"1000", 1000, 0}, {"10000", 10000, 0}, {"jobs-1000", 1000, 10}, {"jobs-10000", 10000, 10}} {
		n := bc.n
		b.Run(bc.name, func(b *testing.B) {
			h := newHarness(b, quota.Config{})
			cq := &quota.ClusterQueue{Name: "cq", NamespaceSelector: &model.LabelSelector{},
				ResourceGroups: []quota.ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []quota.FlavorQuotas{{
					Name: "default", Resources: []quota.ResourceEntry{{Name: "cpu", ResourceQuota: quota.ResourceQuota{Nominal: int64(n/2) * 100}}},
				}}}}}
			quota.DefaultClusterQueue(cq)
			for _, o := range []any{&quota.ResourceFlavor{Name: "default"}, cq, &quota.LocalQueue{Namespace: "ns", Name: "lq", ClusterQueue: "cq"}} {
				if err := h.reg.Upsert(b.Context(), o); err != nil {
					b.Fatal(err)
				}
			}
			for i := range n {
				p := &model.Pod{UID: fmt.Sprint("u", i), Namespace: "ns", Name: fmt.Sprint("p", i),
					Labels:     map[string]string{integrations.QueueNameLabel: "lq"},
					Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": 100}}}}
				if bc.job > 0 {
					job := fmt.Sprint("j", i/bc.job)
					p.Runtime = &model.PodRuntime{Owners: []model.OwnerReference{{Kind: integrations.KindJob, Name: job, UID: job, Controller: true}}}
				}
				h.addPod(p)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := h.c.round(b.Context(), true); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			want := n / 2
			if bc.job > 0 {
				want = n / 2 / bc.job
			}
			if got := len(h.log.admissions()); got != want {
				b.Fatalf("%d admitted, want %d", got, want)
			}
		})
	}
}

// podEvents are update events of n pods, each pod alternating between two
// versions (a changed pod, as the object store sends it), labelled with a
// queue name or not; the harness holds the versions as sent.
func podEvents(h *harness, n int, labelled bool) []objstore.Event {
	var evs []objstore.Event
	for i := range n {
		var versions [2]*model.Pod
		for v := range versions {
			p := &model.Pod{UID: fmt.Sprint("u", i), Namespace: "ns", Name: fmt.Sprint("p", i), Labels: map[string]string{"app": fmt.Sprint(v)},
				Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": 100}}}}
			if labelled {
				p.Labels[integrations.QueueNameLabel] = "lq"
			}
			versions[v] = p
		}
		h.addPod(versions[0])
		evs = append(evs, objstore.Event{Kind: objstore.KindPod, Old: versions[0], New: versions[1]},
			objstore.Event{Kind: objstore.KindPod, Old: versions[1], New: versions[0]})
	}
	return evs
}

// BenchmarkPodEventNoClusterQueue is the cost of a pod event to the
// controller while no ClusterQueue is held (every pod event reaches it):
// no allocation, no round.
func BenchmarkPodEventNoClusterQueue(b *testing.B) {
	for _, labelled := range []bool{false, true} {
		b.Run(fmt.Sprintf("labelled=%v", labelled), func(b *testing.B) {
			h := newHarness(b, quota.Config{})
			evs := podEvents(h, 1000, labelled)
			ctx := b.Context()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ev := evs[i%len(evs)]
				if labelled {
					// The store keeps the version sent last.
					h.objects.mu.Lock()
					h.objects.pods[ev.New.(*model.Pod).UID] = ev.New.(*model.Pod)
					h.objects.mu.Unlock()
				}
				h.c.Handle(ctx, ev)
				i++
			}
		})
	}
}
