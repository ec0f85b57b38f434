package statesvc_test

import (
	"fmt"
	"testing"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/objstore"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/statesvc"
)

// BenchmarkApplyPendingPodStore is BenchmarkApplyPendingPod with an object
// store in front of the scheduler, as berthd has it: every pod goes
// through the store's stages (the kind's admission, its Upsert, the
// index).
func BenchmarkApplyPendingPodStore(b *testing.B) {
	reg := registry.InTree()
	sched, err := scheduler.New(b.Context(), scheduler.Options{
		Config: withoutMissing(config.Default(), reg), Registry: reg, Decisions: &sink{}, Deterministic: true, Replay: scheduler.Replay{BindInline: true},
	})
	if err != nil {
		b.Fatal(err)
	}
	svc := statesvc.New(storeSides{sides{sched, sched.View()}, objstore.New(sched.Kinds(), objstore.Options{})}, statesvc.Options{})
	var nodes []*berthv1.Object
	for i := range 10 {
		nodes = append(nodes, nodeObj(fmt.Sprintf("n%d", i)))
	}
	apply(b, svc, nodes...)
	const batch = 100
	var objs []*berthv1.Object
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if len(objs) == 0 {
			b.StopTimer()
			for range batch {
				objs = append(objs, basicPod(i, ""))
				i++
			}
			b.StartTimer()
		}
		apply(b, svc, objs[0])
		objs = objs[1:]
	}
}
