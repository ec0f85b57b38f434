package preemption_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/berthsched/berth/core/preemption"
)

// BenchmarkPreemption: nodes of 8 cpu full with eight 1-cpu pods of
// priorities 1..4; one 2-cpu pod of priority 1000 preempts. Each
// iteration runs the whole PostFilter (eligibility, dry run over
// max(10%, 100) candidates, choice, decisions) on an unchanged snapshot.
func BenchmarkPreemption(b *testing.B) {
	for _, n := range []int{500, 5000} {
		for _, par := range []int{1, 16} {
			b.Run(fmt.Sprintf("nodes=%d/parallelism=%d", n, par), func(b *testing.B) {
				spec := clusterSpec{parallelism: par}
				for i := range n {
					name := fmt.Sprintf("node-%05d", i)
					spec.nodes = append(spec.nodes, node(name, 8000))
					for j := range 8 {
						spec.pods = append(spec.pods, running(fmt.Sprintf("p-%05d-%d", i, j), name, int32(1+(i+j)%4), 1000, time.Duration(i+j)*time.Minute).Obj())
					}
				}
				c := newCluster(b, spec)
				pod := preemptor(1000, 2000).Obj()
				state, m := c.filter(b, pod)
				ev := preemption.New(c.fwk, preemption.Options{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100, Deterministic: true})
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					c.sink.log = c.sink.log[:0]
					res, st := ev.Preempt(context.Background(), state, pod, m)
					if !st.IsSuccess() || res == nil || res.NominatedNodeName == "" {
						b.Fatalf("%v %v", res, st)
					}
				}
			})
		}
	}
}
