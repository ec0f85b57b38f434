package statesvc_test

import (
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/config"
	"github.com/berthsched/berth/core/plugins/registry"
	"github.com/berthsched/berth/core/scheduler"
	"github.com/berthsched/berth/server/statesvc"
)

// benchService is a Service over a real scheduler with nodes nodes, called
// directly (no gRPC): what the Sync handler does per request.
func benchService(b *testing.B, nodes int) (*statesvc.Service, *scheduler.Scheduler) {
	b.Helper()
	reg := registry.InTree()
	sched, err := scheduler.New(b.Context(), scheduler.Options{
		Config: withoutMissing(config.Default(), reg), Registry: reg, Decisions: &sink{}, Deterministic: true, Replay: scheduler.Replay{BindInline: true},
	})
	if err != nil {
		b.Fatal(err)
	}
	svc := statesvc.New(sides{sched, sched.View()}, statesvc.Options{})
	var objs []*berthv1.Object
	for i := range nodes {
		objs = append(objs, nodeObj(fmt.Sprintf("n%d", i)))
	}
	apply(b, svc, objs...)
	return svc, sched
}

func apply(b *testing.B, svc *statesvc.Service, objs ...*berthv1.Object) {
	b.Helper()
	resp, err := svc.Apply(b.Context(), &berthv1.ApplyRequest{Objects: objs})
	if err != nil || len(resp.GetErrors()) > 0 {
		b.Fatalf("Apply = %v, %v", resp, err)
	}
}

// basicPod is a pod as bench/workload's basic workload sends it.
func basicPod(i int, node string) *berthv1.Object {
	secs := int64(300)
	name := fmt.Sprintf("pod-%06d", i)
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: "pod-default-" + name, Namespace: "default", Name: name,
		Labels:        map[string]string{"app": "basic"},
		SchedulerName: "default-scheduler",
		NodeName:      node,
		Ready:         true,
		CreationTime:  timestamppb.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)),
		Containers:    []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": 10, "memory": 1 << 20}}},
		Tolerations: []*berthv1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS, Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE, TolerationSeconds: &secs},
			{Key: "node.kubernetes.io/unreachable", Operator: berthv1.TolerationOperator_TOLERATION_OPERATOR_EXISTS, Effect: berthv1.TaintEffect_TAINT_EFFECT_NO_EXECUTE, TolerationSeconds: &secs},
		},
	}}}
}

// BenchmarkApplyPendingPod upserts new pending basic pods, one Apply of one
// pod per op (the pods are built 100 at a time, off the clock).
func BenchmarkApplyPendingPod(b *testing.B) {
	svc, _ := benchService(b, 10)
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

// BenchmarkApplyConfirm upserts bound pods again with node_name set, as a
// binder confirms the binds it made: one confirmation per op.
func BenchmarkApplyConfirm(b *testing.B) {
	svc, sched := benchService(b, 10)
	const batch = 100
	var confirms []*berthv1.Object
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if len(confirms) == 0 {
			b.StopTimer()
			// The previous batch goes, so the nodes never fill up.
			var refs []*berthv1.ObjectRef
			for j := i - batch; j >= 0 && j < i; j++ {
				refs = append(refs, &berthv1.ObjectRef{Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: "default", Name: fmt.Sprintf("pod-%06d", j)})
			}
			if resp, err := svc.Delete(b.Context(), &berthv1.DeleteRequest{Refs: refs}); err != nil || len(resp.GetErrors()) > 0 {
				b.Fatalf("Delete = %v, %v", resp, err)
			}
			var pending []*berthv1.Object
			for j := range batch {
				pending = append(pending, basicPod(i+j, ""))
			}
			apply(b, svc, pending...)
			for range batch {
				att, err := sched.ScheduleOne(b.Context())
				if err != nil || att.Node == "" {
					b.Fatalf("ScheduleOne = %+v, %v", att, err)
				}
				var k int
				if _, err := fmt.Sscanf(att.Pod.Name, "pod-%06d", &k); err != nil {
					b.Fatal(err)
				}
				confirms = append(confirms, basicPod(k, att.Node))
			}
			i += batch
			b.StartTimer()
		}
		apply(b, svc, confirms[0])
		confirms = confirms[1:]
	}
}
