package queuesvc

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/integrations"
)

// BenchmarkRound is one round over n pending one-pod workloads in one
// ClusterQueue that admits half of them (the first round admits them; the
// others measure a round that decides nothing new).
func BenchmarkRound(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
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
				h.addPod(&model.Pod{UID: fmt.Sprint("u", i), Namespace: "ns", Name: fmt.Sprint("p", i),
					Labels:     map[string]string{integrations.QueueNameLabel: "lq"},
					Containers: []model.Container{{Name: "c", Requests: model.ResourceList{"cpu": 100}}}})
			}
			b.ResetTimer()
			for b.Loop() {
				if err := h.c.round(b.Context(), true); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if got := len(h.log.admissions()); got != n/2 {
				b.Fatalf("%d admitted, want %d", got, n/2)
			}
		})
	}
}
