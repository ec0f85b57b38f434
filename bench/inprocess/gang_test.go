package inprocess

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/berthsched/berth/bench/workload"
	"github.com/berthsched/berth/core/framework"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
)

// groupSink takes a group's binds in one plan (the scheduler runs with
// GroupDecisions) and every decision without a trace: the benchmark
// measures the scheduling side only.
type groupSink struct{}

func (groupSink) Submit(context.Context, framework.Plan) (framework.PlanResult, error) {
	return framework.PlanResult{}, nil
}

// BenchmarkGangAttempt is kube scheduler_perf's GangScheduling measure:
// 1000, 2000 and 3000 groups of 3 pods at 5000 nodes, reporting the
// average duration of a group's scheduling attempt (its one cycle: every
// member filtered, scored and assumed). kube's thresholds are 8/10/12 ms.
//
//	go test -run '^$' -bench BenchmarkGangAttempt -benchtime 1x ./bench/inprocess
func BenchmarkGangAttempt(b *testing.B) {
	for _, groups := range []int{1000, 2000, 3000} {
		b.Run(fmt.Sprintf("%dgroups/5000nodes", groups), func(b *testing.B) {
			var total time.Duration
			attempts := 0
			for range b.N {
				d, n := gangAttempts(b, 5000, groups*workload.GangSize)
				total += d
				attempts += n
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(attempts), "ms/group-attempt")
		})
	}
}

// gangAttempts schedules the Gang workload and returns the summed
// duration and the number of its group attempts; every group must be
// placed at its first attempt.
func gangAttempts(b *testing.B, nodes, pods int) (time.Duration, int) {
	ctx := context.Background()
	w, err := workload.Generate(workload.Gang, workload.Spec{Nodes: nodes, Pods: pods})
	if err != nil {
		b.Fatal(err)
	}
	reg := registry.InTree()
	s, err := scheduler.New(ctx, scheduler.Options{Registry: reg, Config: DefaultConfig(reg), Decisions: groupSink{}, GroupDecisions: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := Load(ctx, s, w); err != nil {
		b.Fatal(err)
	}
	for _, p := range w.Pending {
		if err := s.AddPod(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	var total time.Duration
	attempts := 0
	for attempts < len(w.PodGroups) {
		att, err := s.ScheduleOne(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if att == nil || att.Result == scheduler.ResultSkipped {
			continue
		}
		if att.Result != scheduler.ResultScheduled {
			b.Fatalf("group of %s: %s %q", att.Pod.Name, att.Result, att.Message)
		}
		total += att.Duration
		attempts++
	}
	return total, attempts
}
