package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/core/model"
)

// The cluster of TestCrashUnderLoad: more low-priority cpu than the nodes
// hold, and high-priority pods that preempt.
const (
	loadNodes   = 40
	loadNodeCPU = 8000
	loadLow     = 600
	loadHigh    = 20
	loadKillAt  = 450 // decisions received before the kill
)

func loadPodCPU(name string) int64 {
	if name[0] == 'h' {
		return 3000
	}
	var i int
	fmt.Sscanf(name, "l%d", &i)
	return int64(100 + (i*37)%900)
}

func loadPod(name, node string) *berthv1.Object {
	prio := int32(0)
	if name[0] == 'h' {
		prio = 1000
	}
	return &berthv1.Object{Kind: &berthv1.Object_Pod{Pod: &berthv1.Pod{
		Uid: "uid-" + name, Namespace: "default", Name: name, NodeName: node, Priority: proto.Int32(prio),
		Containers: []*berthv1.Container{{Name: "c", Requests: map[string]int64{"cpu": loadPodCPU(name)}}},
	}}}
}

func loadNode(name string) *berthv1.Object {
	return &berthv1.Object{Kind: &berthv1.Object_Node{Node: &berthv1.Node{
		Name: name, Labels: map[string]string{model.LabelHostname: name},
		Allocatable: map[string]int64{"cpu": loadNodeCPU, "memory": 64 << 30, "pods": 110},
	}}}
}

func upsertMut(o *berthv1.Object) *berthv1.Mutation {
	return &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: o}}
}

// orchestrator plays the orchestrator: it starts each pod it receives a
// Bind for (so the pod runs there whatever Berth later hears) and
// confirms it, half by ReportBindResult, half by sending the pod back
// with its node; it stops each victim it receives an Evict for.
type orchestrator struct {
	state berthv1.StateServiceClient
	sync  berthv1.StateService_SyncClient

	mu       sync.Mutex
	sendMu   sync.Mutex
	received []*berthv1.Decision
	running  map[string]string // pod name -> node it runs on
	stopped  map[string]bool   // victims stopped
	reports  sync.WaitGroup
}

func newOrchestrator(t *testing.T, ctx context.Context, conn *grpc.ClientConn) *orchestrator {
	t.Helper()
	o := &orchestrator{state: berthv1.NewStateServiceClient(conn), running: map[string]string{}, stopped: map[string]bool{}}
	var err error
	if o.sync, err = o.state.Sync(ctx, grpc.WaitForReady(true)); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	go func() { // acks: refusals would show in the checks
		for {
			if _, err := o.sync.Recv(); err != nil {
				return
			}
		}
	}()
	return o
}

func (o *orchestrator) send(req *berthv1.SyncRequest) error {
	o.sendMu.Lock()
	defer o.sendMu.Unlock()
	return o.sync.Send(req)
}

// act handles one decision received; errors (berthd killed) are ignored:
// the re-list after the restart tells Berth the truth.
func (o *orchestrator) act(ctx context.Context, d *berthv1.Decision) {
	o.mu.Lock()
	o.received = append(o.received, d)
	name := d.GetPod().GetName()
	switch {
	case d.GetBind() != nil:
		node := d.GetBind().GetNode()
		o.running[name] = node
		o.mu.Unlock()
		if name[len(name)-1]%2 == 0 {
			_ = o.send(&berthv1.SyncRequest{Mutations: []*berthv1.Mutation{upsertMut(loadPod(name, node))}})
			return
		}
		o.reports.Go(func() {
			_, _ = o.state.ReportBindResult(ctx, &berthv1.ReportBindResultRequest{
				Pod: d.GetPod(), Node: node, Revision: d.GetRevision(), Outcome: berthv1.BindOutcome_BIND_OUTCOME_CONFIRMED,
			})
		})
	case d.GetEvict() != nil:
		v := d.GetEvict().GetVictim()
		o.stopped[v.GetName()] = true
		delete(o.running, v.GetName())
		o.mu.Unlock()
		_ = o.send(&berthv1.SyncRequest{Mutations: []*berthv1.Mutation{{Op: &berthv1.Mutation_Delete{Delete: &berthv1.ObjectRef{
			Kind: berthv1.ObjectKind_OBJECT_KIND_POD, Namespace: v.GetNamespace(), Name: v.GetName(), Uid: v.GetUid(),
		}}}}})
	default:
		o.mu.Unlock()
	}
}

// kill -9 berthd while binds flow and confirmations arrive, restart it,
// re-list and drive the cluster to rest: every decision received before
// the kill comes back with the same revision and content, no pod is bound
// twice, and no node runs more than it holds.
func TestCrashUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs berthd")
	}
	bin := buildBerthd(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "berthd.sock")
	args := []string{"--listen", "unix://" + sock, "--metrics-listen", "", "--data-dir", filepath.Join(dir, "data"), "--initial-sync-timeout", "1m"}

	first := startBerthd(t, bin, args...)
	conn := dial(t, sock)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var nodes []*berthv1.Object
	for i := range loadNodes {
		nodes = append(nodes, loadNode(fmt.Sprintf("n%02d", i)))
	}
	syncAll(t, conn, nodes)
	o := newOrchestrator(t, ctx, conn)
	watch, err := berthv1.NewDecisionServiceClient(conn).Watch(ctx, &berthv1.WatchRequest{}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Recv(); err != nil {
		t.Fatal(err)
	}
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for {
			r, err := watch.Recv()
			if err != nil {
				return
			}
			for _, d := range r.GetDecisions() {
				o.act(ctx, d)
			}
			o.mu.Lock()
			n := len(o.received)
			o.mu.Unlock()
			if n >= loadKillAt {
				_ = first.cmd.Process.Kill()
				return
			}
		}
	}()
	// The pods in the order the orchestrator creates them: the high ones
	// among the last low ones, once the cluster is nearly full.
	var order []string
	for i := range loadLow {
		order = append(order, fmt.Sprintf("l%03d", i))
		if k := i - 400; k >= 0 && k%10 == 0 && k/10 < loadHigh {
			order = append(order, fmt.Sprintf("h%02d", k/10))
		}
	}
	var sent []string
	load, err := berthv1.NewStateServiceClient(conn).Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			if _, err := load.Recv(); err != nil {
				return
			}
		}
	}()
	for i := 0; i < len(order); i += 10 {
		var muts []*berthv1.Mutation
		for _, name := range order[i:min(i+10, len(order))] {
			muts = append(muts, upsertMut(loadPod(name, "")))
		}
		if load.Send(&berthv1.SyncRequest{BatchId: uint64(i + 1), Mutations: muts}) != nil {
			break
		}
		sent = order[:min(i+10, len(order))]
		time.Sleep(2 * time.Millisecond)
	}
	<-killed
	<-first.exited
	o.reports.Wait()
	o.mu.Lock()
	before := append([]*berthv1.Decision(nil), o.received...)
	o.mu.Unlock()
	if len(before) < loadKillAt {
		t.Fatalf("only %d decisions before the end of the load; the kill did not happen while binds flowed", len(before))
	}
	binds := 0
	for _, d := range before {
		if d.GetBind() != nil {
			binds++
		}
	}
	t.Logf("killed after %d decisions (%d binds); %d pods sent", len(before), binds, len(sent))

	// Restart; the replay is what was received.
	startBerthd(t, bin, args...)
	conn2 := dial(t, sock)
	replay := watchAll(t, conn2, 1).waitFor(t, "the replay", func(got []*berthv1.Decision) bool { return len(got) >= len(before) })
	for i, d := range before {
		if !proto.Equal(d, replay[i]) {
			t.Fatalf("decision %d changed across the crash:\nbefore %v\nafter  %v", i, d, replay[i])
		}
	}

	// The orchestrator re-lists what exists: the pods it started on their
	// nodes, the others pending, not the victims it stopped. It sends the
	// nodes and the pending pods first, the running ones a moment later:
	// nothing may be placed on room they hold meanwhile.
	o2 := newOrchestrator(t, ctx, conn2)
	o.mu.Lock()
	o2.running, o2.stopped = o.running, o.stopped
	o.mu.Unlock()
	pendingFirst, runningLast := relistMutations(nodes, sent, o2.running, o2.stopped)
	resync, err := o2.state.Sync(ctx, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	sendRelist(t, resync, pendingFirst, runningLast, 300*time.Millisecond)

	// The orchestrator creates the pods it had not sent yet.
	var rest []*berthv1.Mutation
	for _, name := range order[len(sent):] {
		rest = append(rest, upsertMut(loadPod(name, "")))
	}
	if len(rest) > 0 {
		if err := resync.Send(&berthv1.SyncRequest{BatchId: 3, Mutations: rest}); err != nil {
			t.Fatal(err)
		}
		if ack, err := resync.Recv(); err != nil || len(ack.GetErrors()) > 0 {
			t.Fatalf("the rest of the pods: %v, %v", err, ack.GetErrors())
		}
	}

	// Drive to rest: decisions made before the kill and not received, then
	// new ones, until nothing happens for two seconds.
	from := before[len(before)-1].GetRevision() + 1
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	w2, err := berthv1.NewDecisionServiceClient(conn2).Watch(wctx, &berthv1.WatchRequest{FromRevision: from})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{}, 1)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			r, err := w2.Recv()
			if err != nil {
				return
			}
			for _, d := range r.GetDecisions() {
				o2.act(ctx, d)
			}
			select {
			case got <- struct{}{}:
			default:
			}
		}
	}()
	for quiet := time.NewTimer(2 * time.Second); ; {
		select {
		case <-got:
			quiet.Reset(2 * time.Second)
			continue
		case <-quiet.C:
		case <-t.Context().Done():
			t.Fatal("test ended before the cluster came to rest")
		}
		break
	}
	// The reader may be inside act when the watch ends: wait for it before
	// the reports it started, then read what it received under the lock.
	wcancel()
	<-readerDone
	o2.reports.Wait()

	// Checks over the whole log.
	o2.mu.Lock()
	all := append(append([]*berthv1.Decision(nil), before...), o2.received...)
	o2.mu.Unlock()
	revs := map[uint64]bool{}
	boundTo := map[string][]string{}
	for _, d := range all {
		if revs[d.GetRevision()] {
			t.Errorf("revision %d received twice", d.GetRevision())
		}
		revs[d.GetRevision()] = true
		if b := d.GetBind(); b != nil {
			boundTo[d.GetPod().GetUid()] = append(boundTo[d.GetPod().GetUid()], fmt.Sprintf("%s@%d", b.GetNode(), d.GetRevision()))
		}
	}
	for uid, bs := range boundTo {
		if len(bs) > 1 {
			t.Errorf("%s bound %d times: %v", uid, len(bs), bs)
		}
	}
	o2.mu.Lock()
	defer o2.mu.Unlock()
	used := map[string]int64{}
	for name, node := range o2.running {
		used[node] += loadPodCPU(name)
	}
	for node, cpu := range used {
		if cpu > loadNodeCPU {
			t.Errorf("node %s runs %dm cpu of %dm", node, cpu, loadNodeCPU)
		}
	}
	evicts := 0
	for _, d := range all {
		if d.GetEvict() != nil {
			evicts++
		}
	}
	t.Logf("after the restart: %d more decisions, %d pods running, %d stopped; %d evictions in all", len(o2.received), len(o2.running), len(o2.stopped), evicts)
}

// relistMutations are the two batches of an orchestrator's re-list: the
// nodes and the pods of names neither running nor stopped (pending), then
// the running ones on their nodes. Victims it stopped are left out.
func relistMutations(nodes []*berthv1.Object, names []string, running map[string]string, stopped map[string]bool) (pending, run []*berthv1.Mutation) {
	pending = upsertMutAll(nodes)
	for _, name := range names {
		switch {
		case stopped[name]:
		case running[name] != "":
			run = append(run, upsertMut(loadPod(name, running[name])))
		default:
			pending = append(pending, upsertMut(loadPod(name, "")))
		}
	}
	return pending, run
}

// sendRelist sends a re-list on s, the pending batch with RESYNC_BEGIN and
// the running one with RESYNC_END, pause apart, and checks both acks.
func sendRelist(t *testing.T, s berthv1.StateService_SyncClient, pending, running []*berthv1.Mutation, pause time.Duration) {
	t.Helper()
	for i, req := range []*berthv1.SyncRequest{
		{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: pending},
		{BatchId: 2, Resync: berthv1.Resync_RESYNC_END, Mutations: running},
	} {
		if err := s.Send(req); err != nil {
			t.Fatal(err)
		}
		ack, err := s.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(ack.GetErrors()) > 0 {
			t.Errorf("re-list batch %d refused: %v", i+1, ack.GetErrors()[:min(3, len(ack.GetErrors()))])
		}
		if i == 0 {
			time.Sleep(pause)
		}
	}
}

func upsertMutAll(objs []*berthv1.Object) []*berthv1.Mutation {
	out := make([]*berthv1.Mutation, len(objs))
	for i, o := range objs {
		out[i] = upsertMut(o)
	}
	return out
}
