package parity

import (
	"context"
	"fmt"
	"testing"

	"github.com/berthsched/berth/core/manifest"
	"github.com/berthsched/berth/core/quota"
	"github.com/berthsched/berth/core/quota/admission"
)

// BenchmarkAdmission measures Berth's admission end to end over the
// scale scenario (reading excluded): 1,000 ClusterQueues in 50 cohorts,
// 1k, 10k and 60k workloads, Kueue's cycles (as kueueoracle stops them)
// and the no-throttle pass. ns/op divided by the admitted count is the
// cost per admission (reported as ns/admission).
func BenchmarkAdmission(b *testing.B) {
	for _, n := range []int{1000, 10000, 60000} {
		c, err := manifest.Decode("scale.yaml", []byte(GenerateScale(1, ScaleOptions{ClusterQueues: 1000, Cohorts: 50, Workloads: n})))
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []struct {
			name string
			o    admission.Options
		}{{"cycles", admission.Options{}}, {"nothrottle", admission.Options{NoThrottle: true}}} {
			b.Run(fmt.Sprintf("workloads=%d/%s", n, mode.name), func(b *testing.B) {
				admitted, cycles := 0, 0
				for i := 0; i < b.N; i++ {
					lines, sum, err := admission.RunWith(context.Background(), c.Queueing, c.Namespaces, mode.o)
					if err != nil {
						b.Fatal(err)
					}
					admitted, cycles = countAdmitted(lines), sum.Cycles
				}
				b.ReportMetric(float64(admitted), "admitted")
				b.ReportMetric(float64(cycles), "cycles")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(max(1, admitted)), "ns/admission")
			})
		}
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

// TestScaleYAML: the queueing benchmark's input decodes to what it says,
// as Workload objects (kueueoracle's input) and as queued Jobs with nodes
// (admission and placement end to end), the same workloads either way.
func TestScaleYAML(t *testing.T) {
	o := ScaleOptions{ClusterQueues: 6, Cohorts: 2, Workloads: 40, Nodes: 3}
	wl, err := manifest.Decode("workloads.yaml", []byte(GenerateScale(7, o)))
	if err != nil {
		t.Fatal(err)
	}
	o.Jobs = true
	jobs, err := manifest.Decode("jobs.yaml", []byte(GenerateScale(7, o)))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*manifest.Cluster{"workloads": wl, "jobs": jobs} {
		q := c.Queueing
		if len(c.Nodes) != 3 || len(q.ClusterQueues) != 6 || len(q.LocalQueues) != 6 || len(q.Workloads) != 40 {
			t.Fatalf("%s: %d nodes, %d ClusterQueues, %d LocalQueues, %d workloads", name, len(c.Nodes), len(q.ClusterQueues), len(q.LocalQueues), len(q.Workloads))
		}
	}
	pods := 0
	shape := func(w *quota.Workload) string {
		return fmt.Sprintf("%s q=%s prio=%d count=%d cpu=%d", w.Namespace, w.QueueName, w.Priority, w.PodSets[0].Count, w.PodSets[0].Requests["cpu"])
	}
	for i := range wl.Queueing.Workloads {
		a, b := wl.Queueing.Workloads[i], jobs.Queueing.Workloads[i]
		if shape(a) != shape(b) || !a.Created.Equal(b.Created) {
			t.Errorf("workload %d: %s vs job %s", i, shape(a), shape(b))
		}
		pods += int(b.PodSets[0].Count)
	}
	if len(jobs.Pods) != pods || len(wl.Pods) != 0 {
		t.Errorf("%d pods of Jobs, want %d; %d pods from Workloads, want 0", len(jobs.Pods), pods, len(wl.Pods))
	}
}
