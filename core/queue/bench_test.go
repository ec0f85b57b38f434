package queue

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

const benchPods = 100_000

func benchPodList(n int) []*model.Pod {
	pods := make([]*model.Pod, n)
	for i := range pods {
		pods[i] = mt.MakePod(fmt.Sprintf("p%d", i)).Priority(int32(i % 10)).Req(mt.Res(100, 128*mt.Mi)).Obj()
	}
	return pods
}

// BenchmarkAddPop measures one Pop, Done and Add with 100k pods in activeQ:
// the popped pod is re-added, so the queue stays at 100k.
func BenchmarkAddPop(b *testing.B) {
	ctx := context.Background()
	q := newTestQueue(b, nil)
	for _, p := range benchPodList(benchPods) {
		q.add(b, p)
		q.clock.Step(time.Millisecond)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		pi, err := q.Pop(ctx)
		if err != nil {
			b.Fatal(err)
		}
		q.Done(pi.Pod.UID)
		q.clock.Step(time.Millisecond)
		if err := q.Add(ctx, pi.Pod); err != nil {
			b.Fatal(err)
		}
	}
}

// unschedulableQueue returns a queue holding 100k pods rejected by the
// given plugin.
func unschedulableQueue(b *testing.B, plugin string) *testQueue {
	q := newTestQueue(b, nil)
	for _, p := range benchPodList(benchPods) {
		q.add(b, p)
	}
	for range benchPods {
		q.fail(b, q.pop(b), []string{plugin}, nil)
	}
	if s := q.Stats(); s.Unschedulable != benchPods {
		b.Fatalf("setup: %+v", s)
	}
	return q
}

// BenchmarkMoveAllToActiveOrBackoffQueue measures one cluster event over
// 100k unschedulable pods.
func BenchmarkMoveAllToActiveOrBackoffQueue(b *testing.B) {
	ctx := context.Background()
	b.Run("hint skips every pod", func(b *testing.B) {
		q := unschedulableQueue(b, picky)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, smallNode, nil)
		}
		if s := q.Stats(); s.Unschedulable != benchPods {
			b.Fatalf("pods moved: %+v", s)
		}
	})
	b.Run("rejectors did not register the event", func(b *testing.B) {
		q := unschedulableQueue(b, fit)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			q.MoveAllToActiveOrBackoffQueue(ctx, nodeTaint, nil, bigNode, nil)
		}
		if s := q.Stats(); s.Unschedulable != benchPods {
			b.Fatalf("pods moved: %+v", s)
		}
	})
	b.Run("event nobody registered", func(b *testing.B) {
		q := unschedulableQueue(b, fit)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			q.MoveAllToActiveOrBackoffQueue(ctx, nodeLabel, nil, bigNode, nil)
		}
	})
	b.Run("every pod moves to backoffQ", func(b *testing.B) {
		q := unschedulableQueue(b, fit)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, bigNode, nil)
			b.StopTimer()
			if s := q.Stats(); s.Backoff != benchPods {
				b.Fatalf("pods not moved: %+v", s)
			}
			q.mu.Lock()
			for q.backoff.Len() > 0 {
				e := q.backoff.Items()[0]
				q.toUnschedulableLocked(e)
			}
			q.mu.Unlock()
			b.StartTimer()
		}
	})
}

// BenchmarkMemoryPerQueuedPod reports the heap the queue uses per pod in
// activeQ and among the unschedulable pods, the pods themselves excluded.
func BenchmarkMemoryPerQueuedPod(b *testing.B) {
	for _, unschedulable := range []bool{false, true} {
		name := "activeQ"
		if unschedulable {
			name = "unschedulable"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				pods := benchPodList(benchPods)
				before := heapAlloc()
				q := newTestQueue(b, nil)
				q.add(b, pods...)
				if unschedulable {
					for range benchPods {
						q.fail(b, q.pop(b), []string{fit}, nil)
					}
				}
				after := heapAlloc()
				b.ReportMetric(float64(after-before)/benchPods, "bytes/pod")
				runtime.KeepAlive(q)
				runtime.KeepAlive(pods)
			}
		})
	}
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
