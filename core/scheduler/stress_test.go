package scheduler

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/berthsched/berth/core/model"
	mt "github.com/berthsched/berth/core/model/modeltest"
)

// TestConcurrentIngestAndBinding runs the loop with concurrent binding
// cycles while several goroutines add pods and an "orchestrator" confirms
// every bind it receives, then checks that no pod was bound twice and no
// node is overcommitted. Run it with -race.
func TestConcurrentIngestAndBinding(t *testing.T) {
	const nodes, pods, perNode = 10, 120, 8 // 80 fit, 40 do not
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := newFitEnv(t, func(o *Options) {
		o.Replay.BindInline, o.Deterministic, o.Clock = false, false, nil
	})
	binds := make(chan decision, pods)
	e.sink.ch = binds
	for i := range nodes {
		e.addNodes(mt.MakeNode(fmt.Sprintf("n%02d", i)).Capacity(mt.Res(perNode*500, 64*mt.Gi)).Obj())
	}
	done := make(chan struct{})
	go func() {
		e.s.Run(ctx)
		close(done)
	}()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < pods; i += 4 {
				if err := e.s.AddPod(ctx, podN(i)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	boundTo := map[string]string{}
	deadline := time.After(60 * time.Second)
	for len(boundTo) < nodes*perNode {
		select {
		case d := <-binds:
			if d.Kind != "bind" {
				continue
			}
			if prev, ok := boundTo[d.Pod]; ok {
				t.Fatalf("%s bound twice: %s and %s", d.Pod, prev, d.Node)
			}
			boundTo[d.Pod] = d.Node
			var i int
			fmt.Sscanf(d.Pod, "default/p%03d", &i)
			p := podN(i)
			p.NodeName = d.Node
			if err := e.s.AddPod(ctx, p); err != nil {
				t.Fatal(err)
			}
		case <-deadline:
			t.Fatalf("only %d of %d pods bound", len(boundTo), nodes*perNode)
		}
	}
	wg.Wait()
	cancel()
	<-done
	perNodeCount := map[string]int{}
	for _, n := range boundTo {
		perNodeCount[n]++
	}
	for n, c := range perNodeCount {
		if c > perNode {
			t.Errorf("%s got %d pods, room for %d", n, c, perNode)
		}
	}
	usage, err := e.s.View().Nodes()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range usage {
		if u.Requested.MilliCPU > u.Allocatable.MilliCPU {
			t.Errorf("%s overcommitted: %d of %d millicores", u.Node.Name, u.Requested.MilliCPU, u.Allocatable.MilliCPU)
		}
	}
	if st := e.s.View().Stats(); st.Cache.Pods != nodes*perNode || st.Cache.AssumedPods != 0 || st.BindsInFlight != 0 {
		t.Errorf("stats after the run: %+v", st)
	}
}

func podN(i int) *model.Pod {
	return mt.MakePod(fmt.Sprintf("p%03d", i)).Req(mt.Res(500, mt.Gi)).Obj()
}
