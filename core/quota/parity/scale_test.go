package parity

import (
	"context"
	"fmt"
	"testing"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/quota/admission"
)

// BenchmarkAdmission measures Berth's admission end to end over the
// scale scenario (reading excluded): 1,000 ClusterQueues in 50 cohorts,
// 1k, 10k and 60k workloads. ns/op divided by the admitted count is the
// cost per admission (reported as ns/admission).
func BenchmarkAdmission(b *testing.B) {
	for _, n := range []int{1000, 10000, 60000} {
		b.Run(fmt.Sprintf("workloads=%d", n), func(b *testing.B) {
			c, err := manifest.Decode("scale.yaml", []byte(GenerateScale(1, ScaleOptions{ClusterQueues: 1000, Cohorts: 50, Workloads: n})))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			admitted := 0
			for i := 0; i < b.N; i++ {
				lines, _, err := admission.Run(context.Background(), c.Queueing, c.Namespaces)
				if err != nil {
					b.Fatal(err)
				}
				admitted = 0
				for _, l := range lines {
					if l.Result == admission.ResultAdmitted {
						admitted++
					}
				}
			}
			b.ReportMetric(float64(admitted), "admitted")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(max(1, admitted)), "ns/admission")
		})
	}
}

// BenchmarkQuiescence is time to quiescence at depth, Kueue's way and
// Berth's: 100 ClusterQueues in 10 cohorts with about 200 pending
// workloads each, run cycle by cycle over every ClusterQueue (Kueue's
// loop, until quiet) and with NoThrottle (each cohort tree on its own).
// cycles is the longest run of cycles: with NoThrottle they are one
// admission pass, without it one pass each.
func BenchmarkQuiescence(b *testing.B) {
	for _, cohorts := range []int{10, 100} {
		c, err := manifest.Decode("depth.yaml", []byte(GenerateScale(1, ScaleOptions{ClusterQueues: 100, Cohorts: cohorts, Workloads: 20000})))
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []struct {
			name string
			o    admission.Options
		}{{"cycles", admission.Options{Quiesce: true}}, {"nothrottle", admission.Options{NoThrottle: true}}} {
			b.Run(fmt.Sprintf("cohorts=%d/%s", cohorts, mode.name), func(b *testing.B) {
				var sum admission.Summary
				admitted := 0
				for i := 0; i < b.N; i++ {
					lines, s, err := admission.RunWith(context.Background(), c.Queueing, c.Namespaces, mode.o)
					if err != nil {
						b.Fatal(err)
					}
					sum, admitted = s, countAdmitted(lines)
				}
				b.ReportMetric(float64(sum.Cycles), "cycles")
				b.ReportMetric(float64(admitted), "admitted")
			})
		}
	}
}

func countAdmitted(lines []admission.Line) int {
	n := 0
	for _, l := range lines {
		if l.Result == admission.ResultAdmitted {
			n++
		}
	}
	return n
}
