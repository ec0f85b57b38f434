package scheduler

import (
	"context"
	"testing"
	"time"

	mt "github.com/berthsched/berth/core/model/modeltest"
)

// Pending pods added in a batch are queued when it ends, as they are
// then: a pod sent before its node is not tried without it, a pod deleted
// within the batch is never queued, an update within it is what is queued.
func TestBatchQueuesPodsAtItsEnd(t *testing.T) {
	ctx, e := runningEnv(t, nil)

	end := e.s.StartBatch()
	inner := e.s.StartBatch() // batches nest
	e.addPods(mt.MakePod("a").Obj(), mt.MakePod("gone").Obj(), mt.MakePod("b").Obj())
	if err := e.s.DeletePod(ctx, mt.MakePod("gone").Obj()); err != nil {
		t.Fatal(err)
	}
	e.addPods(mt.MakePod("b").Label("v", "2").Obj())
	inner(ctx)
	noDecision(t, e, "the batch ended")
	if got := e.reporter.reports(); len(got) != 0 {
		t.Fatalf("pods tried before the batch ended: %v", got)
	}
	e.addNodes(mt.MakeNode("n1").Obj())
	end(ctx)
	end(ctx) // a second end does nothing
	got := map[string]string{}
	for range 2 {
		d := waitDecision(t, e.sink.ch)
		got[d.Pod] = d.Node
	}
	if got["default/a"] != "n1" || got["default/b"] != "n1" || len(got) != 2 {
		t.Errorf("binds %v, want a and b on n1", got)
	}
	if p, ok := e.s.View().Pod("uid-b"); !ok || p.Labels["v"] != "2" {
		t.Errorf("b is %+v, want its update", p)
	}
	if got := e.reporter.reports(); len(got) != 0 {
		t.Errorf("unschedulable reports: %v", got)
	}
}

// Overlapping batches (two requests applied at once) hold a pod back only
// for the batches started before it was added: ending the first releases
// its pods while the second is still open, and the second's pods wait for
// the second.
func TestOverlappingBatchesReleaseTheirOwnPods(t *testing.T) {
	ctx, e := runningEnv(t, nil)
	e.addNodes(mt.MakeNode("n1").Obj())

	endFirst := e.s.StartBatch()
	e.addPods(mt.MakePod("first").Obj())
	endSecond := e.s.StartBatch()
	e.addPods(mt.MakePod("second").Obj())
	endFirst(ctx)
	if d := waitDecision(t, e.sink.ch); d.Pod != "default/first" {
		t.Fatalf("decision %+v, want first's bind", d)
	}
	noDecision(t, e, "the second batch ended")
	endSecond(ctx)
	if d := waitDecision(t, e.sink.ch); d.Pod != "default/second" {
		t.Fatalf("decision %+v, want second's bind", d)
	}
}

// A pod deleted and added again within overlapping batches waits for the
// batches open at its last addition.
func TestBatchReaddedPodWaitsForItsLastBatch(t *testing.T) {
	ctx, e := runningEnv(t, nil)
	e.addNodes(mt.MakeNode("n1").Obj())

	endFirst := e.s.StartBatch()
	e.addPods(mt.MakePod("p").Obj())
	if err := e.s.DeletePod(ctx, mt.MakePod("p").Obj()); err != nil {
		t.Fatal(err)
	}
	endSecond := e.s.StartBatch()
	e.addPods(mt.MakePod("p").Obj())
	endFirst(ctx)
	noDecision(t, e, "the second batch ended")
	endSecond(ctx)
	if d := waitDecision(t, e.sink.ch); d.Pod != "default/p" {
		t.Fatalf("decision %+v, want p's bind", d)
	}
}

// A batch that changed nodes brings the scheduling snapshot up to date
// when it ends, so the next pod's cycle does not copy the nodes itself;
// while a cycle runs, ending a batch leaves the snapshot to that cycle and
// does not wait for it.
func TestBatchOfNodesWarmsTheSnapshot(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, &testPlugins{}, nil)

	end := e.s.StartBatch()
	e.addNodes(mt.MakeNode("n1").Obj(), mt.MakeNode("n2").Obj())
	if n := e.s.snapshot.NumNodes(); n != 0 {
		t.Fatalf("snapshot has %d nodes before the batch ended", n)
	}
	end(ctx)
	if n := e.s.snapshot.NumNodes(); n != 2 {
		t.Fatalf("snapshot has %d nodes after the batch ended, want 2", n)
	}

	e.s.cycleMu.Lock() // a cycle is running
	end = e.s.StartBatch()
	e.addNodes(mt.MakeNode("n3").Obj())
	ended := make(chan struct{})
	go func() { end(ctx); close(ended) }()
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("ending a batch waited for the running cycle")
	}
	n := e.s.snapshot.NumNodes()
	e.s.cycleMu.Unlock()
	if n != 2 {
		t.Errorf("snapshot changed under a running cycle: %d nodes", n)
	}

	// The next batch to end, even one of pods only, copies what the cycle
	// may have missed.
	end = e.s.StartBatch()
	e.addPods(mt.MakePod("p").Obj())
	end(ctx)
	if n := e.s.snapshot.NumNodes(); n != 3 {
		t.Errorf("snapshot has %d nodes after the next batch ended, want 3", n)
	}
}
