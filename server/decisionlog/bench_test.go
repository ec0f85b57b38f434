package decisionlog

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/berthsched/berth/core/model"
	"github.com/berthsched/berth/store/bboltstore"
)

// BenchmarkBind measures durable Bind decisions from many concurrent
// binding cycles (group-committed), and with one caller at a time.
func BenchmarkBind(b *testing.B) {
	for _, par := range []int{1, 64} {
		b.Run(fmt.Sprintf("callers=%d", par), func(b *testing.B) {
			st, err := bboltstore.Open(b.Context(), b.TempDir(), bboltstore.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			l := New(st, Options{})
			defer l.Close()
			var n atomic.Int64
			b.SetParallelism(par) // par * GOMAXPROCS goroutines
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					p := &model.Pod{UID: fmt.Sprint("uid-", i), Namespace: "ns", Name: fmt.Sprint("p", i)}
					if err := l.Bind(b.Context(), p, "node-1"); err != nil {
						b.Error(err)
						return
					}
				}
			})
			s := st.Stats()
			b.ReportMetric(float64(s.Batches)/float64(max(s.Transactions, 1)), "binds/tx")
		})
	}
}
