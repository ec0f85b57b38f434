package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// The cluster of TestChaos.
const (
	chaosNodes     = 24
	chaosVanishing = 3 // watchers that read a little and go away, over and over
)

// chaosConfig is the size of a TestChaos run; the environment overrides
// the defaults (docs/reliability.md runs it larger).
type chaosConfig struct {
	seed     uint64
	rounds   int // kill -9 rounds
	streams  int // concurrent Sync streams creating pods
	watchers int // slow watchers reading the whole log
	pods     int // low-priority pods the streams create in a round
}

func chaosConfigFromEnv(t *testing.T) chaosConfig {
	return chaosConfig{
		seed:     uint64(envInt(t, "BERTH_CHAOS_SEED", time.Now().UnixNano())),
		rounds:   int(envInt(t, "BERTH_CHAOS_ROUNDS", 3)),
		streams:  int(envInt(t, "BERTH_CHAOS_STREAMS", 4)),
		watchers: int(envInt(t, "BERTH_CHAOS_WATCHERS", 1)),
		pods:     int(envInt(t, "BERTH_CHAOS_PODS", 160)),
	}
}

// chaosLog is every decision any watcher received, by revision: a
// revision must always carry the same decision.
type chaosLog struct {
	mu   sync.Mutex
	seen map[uint64]*berthv1.Decision
	errs []string
}

func (l *chaosLog) record(who string, ds []*berthv1.Decision) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range ds {
		if prev, ok := l.seen[d.GetRevision()]; ok && !proto.Equal(prev, d) {
			l.errs = append(l.errs, fmt.Sprintf("%s: revision %d is %v, was %v", who, d.GetRevision(), d, prev))
			continue
		}
		l.seen[d.GetRevision()] = d
	}
}

func (l *chaosLog) maxRevision() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var m uint64
	for r := range l.seen {
		m = max(m, r)
	}
	return m
}

func envInt(t *testing.T, name string, def int64) int64 {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// kill -9 berthd at random points (seeded; the seed is logged) while
// several Sync streams create pods, an orchestrator watches and acts on
// its decisions, a slow watcher lags, one never reads, and others come and
// go; restart it, re-list, and go on. Over the whole run: every revision
// any watcher saw carries the same decision after every restart, the log's
// revisions are contiguous, no pod is bound twice, and no node ever holds
// more than its cpu (binds minus evictions, in log order).
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs berthd")
	}
	cfg := chaosConfigFromEnv(t)
	t.Logf("seed %d, %d kill -9 rounds, %d pods a round, %d Sync streams, %d slow watchers, 1 stalled, %d vanishing (rerun with BERTH_CHAOS_SEED=%d)",
		cfg.seed, cfg.rounds, cfg.pods, cfg.streams, cfg.watchers, chaosVanishing, cfg.seed)
	rng := rand.New(rand.NewPCG(cfg.seed, 0))

	bin := buildBerthd(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "berthd.sock")
	args := []string{"--listen", "unix://" + sock, "--metrics-listen", "", "--data-dir", filepath.Join(dir, "data"), "--initial-sync-timeout", "1m"}

	var nodes []*berthv1.Object
	for i := range chaosNodes {
		nodes = append(nodes, loadNode(fmt.Sprintf("n%02d", i)))
	}
	log := &chaosLog{seen: map[uint64]*berthv1.Decision{}}
	w := &chaosWorld{cfg: cfg, log: log, running: map[string]string{}, stopped: map[string]bool{}, from: 1}
	for round := range cfg.rounds + 1 {
		last := round == cfg.rounds
		// Decisions the orchestrator receives in the round before the kill;
		// the last round, not killed, lasts until its load is decided.
		killAt := 20 + rng.IntN(100)
		if last {
			killAt = w.cfg.pods
		}
		p := startBerthd(t, bin, args...)
		conn := dial(t, sock)
		stats := w.round(t, conn, p, nodes, round, killAt, last, rng.Uint64())
		t.Logf("round %d: %s", round, stats)
		if last {
			break
		}
	}

	// The whole log, read again after the last restart.
	conn := dial(t, sock)
	want := log.maxRevision()
	log.mu.Lock()
	seen := len(log.seen)
	log.mu.Unlock()
	all := watchAll(t, conn, 1).waitFor(t, "the log", func(got []*berthv1.Decision) bool {
		return len(got) > 0 && got[len(got)-1].GetRevision() >= want
	})
	log.record("final replay", all)
	checkChaosLog(t, all)
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, e := range log.errs {
		t.Error(e)
	}
	t.Logf("%d decisions in the log, %d of them seen by watchers before the final replay", len(all), seen)
}

// chaosWorld is the orchestrator's truth across berthd's lives.
type chaosWorld struct {
	cfg     chaosConfig
	log     *chaosLog
	running map[string]string // pod -> node it runs on
	stopped map[string]bool   // victims stopped
	created []string          // pods created so far, in order
	from    uint64            // where the orchestrator's watch resumes
	logID   string
}

// round serves one life of berthd: re-list, load, watchers, and (unless
// last) kill -9 once the orchestrator has received killAt decisions in
// the round.
func (w *chaosWorld) round(t *testing.T, conn *grpc.ClientConn, p *proc, nodes []*berthv1.Object, round, killAt int, last bool, seed uint64) string {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	o := newOrchestrator(t, ctx, conn)
	o.running, o.stopped = w.running, w.stopped
	w.relist(t, ctx, o, nodes)

	var peakRSS string
	var killOnce sync.Once
	killed := make(chan struct{})
	kill := func() {
		killOnce.Do(func() {
			defer close(killed)
			peakRSS = procPeakRSS(p.cmd.Process.Pid)
			if !last {
				_ = p.cmd.Process.Kill()
			}
		})
	}
	var wg sync.WaitGroup
	watch, err := berthv1.NewDecisionServiceClient(conn).Watch(ctx, &berthv1.WatchRequest{FromRevision: w.from, LogId: w.logID}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	received := 0
	wg.Go(func() { // the orchestrator
		for {
			r, err := watch.Recv()
			if err != nil {
				return
			}
			w.log.record("orchestrator", r.GetDecisions())
			for _, d := range r.GetDecisions() {
				o.act(ctx, d)
			}
			o.mu.Lock()
			w.from, w.logID = r.GetNextRevision(), r.GetLogId()
			received += len(r.GetDecisions())
			n := received
			o.mu.Unlock()
			if n >= killAt {
				kill()
			}
		}
	})
	for i := range w.cfg.watchers {
		wg.Go(func() { chaosWatcher(ctx, conn, w.log, fmt.Sprintf("slow watcher %d", i), 1, -1, 2*time.Millisecond) })
	}
	if _, err := berthv1.NewDecisionServiceClient(conn).Watch(ctx, &berthv1.WatchRequest{FromRevision: 1}); err != nil {
		t.Fatal(err) // a watcher that never reads
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range chaosVanishing {
		vseed := rng.Uint64()
		wg.Go(func() {
			r := rand.New(rand.NewPCG(vseed, 2))
			for ctx.Err() == nil {
				chaosWatcher(ctx, conn, w.log, fmt.Sprintf("vanishing watcher %d", i), 1+r.Uint64N(w.log.maxRevision()+1), 1+r.IntN(5), 0)
			}
		})
	}

	names := w.newPods(round)
	var load sync.WaitGroup
	streamErrs := make([]error, w.cfg.streams)
	for s := range w.cfg.streams {
		load.Go(func() { streamErrs[s] = w.create(ctx, conn, names, s) })
	}
	load.Wait()
	for s, err := range streamErrs {
		if last && err != nil { // earlier rounds may be killed mid-stream
			t.Errorf("round %d: Sync stream %d: %v", round, s, err)
		}
	}
	// Every pod created gets a decision (a Bind, or Unschedulable), so the
	// orchestrator reaches killAt.
	select {
	case <-killed:
	case <-t.Context().Done():
		t.Fatalf("round %d: the test ended with %d of %d decisions received", round, received, killAt)
	}
	if last {
		peakRSS = procPeakRSS(p.cmd.Process.Pid) // the peak over the whole load
	}
	if !last {
		<-p.exited
	}
	cancel()
	wg.Wait()
	o.reports.Wait()
	return fmt.Sprintf("%d decisions to the orchestrator, %d pods created in all, %d running, %d stopped; berthd peak RSS %s",
		received, len(w.created), len(w.running), len(w.stopped), peakRSS)
}

// newPods adds the round's pods to what the orchestrator creates: low
// priority ones and, from the second round, some high priority ones that
// preempt once the nodes are full.
func (w *chaosWorld) newPods(round int) []string {
	var names []string
	for i := range w.cfg.pods {
		names = append(names, fmt.Sprintf("l%03d", round*w.cfg.pods+i))
		if round > 0 && i%20 == 0 {
			names = append(names, fmt.Sprintf("h%02d-%03d", round, i/20))
		}
	}
	w.created = append(w.created, names...)
	return names
}

// create sends stream s's share of names in batches of five on a Sync
// stream of its own and waits for their acks; the stream then stays open
// until the round ends (a stream held). It fails once berthd goes away.
func (w *chaosWorld) create(ctx context.Context, conn *grpc.ClientConn, names []string, s int) error {
	stream, err := berthv1.NewStateServiceClient(conn).Sync(ctx)
	if err != nil {
		return err
	}
	var batch []*berthv1.Mutation
	sent := 0
	for i := s; i < len(names); i += w.cfg.streams {
		batch = append(batch, upsertMut(loadPod(names[i], "")))
		if len(batch) == 5 || i+w.cfg.streams >= len(names) {
			if err := stream.Send(&berthv1.SyncRequest{BatchId: uint64(i + 1), Mutations: batch}); err != nil {
				return err
			}
			batch, sent = nil, sent+1
		}
	}
	for range sent {
		ack, err := stream.Recv()
		if err != nil {
			return err
		}
		if len(ack.GetErrors()) > 0 {
			return fmt.Errorf("batch %d refused: %v", ack.GetBatchId(), ack.GetErrors()[0])
		}
	}
	return nil
}

// relist sends what exists, bracketed by resync markers: the nodes and
// the pending pods first, then the running ones (as in TestCrashUnderLoad).
func (w *chaosWorld) relist(t *testing.T, ctx context.Context, o *orchestrator, nodes []*berthv1.Object) {
	t.Helper()
	pending, running := relistMutations(nodes, w.created, w.running, w.stopped)
	s, err := o.state.Sync(ctx, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	sendRelist(t, s, pending, running, 0)
	_ = s.CloseSend()
}

// chaosWatcher watches from a revision and records what it receives,
// after at most n responses (n < 0: until ctx ends), sleeping pause
// before each read.
func chaosWatcher(ctx context.Context, conn *grpc.ClientConn, log *chaosLog, who string, from uint64, n int, pause time.Duration) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ws, err := berthv1.NewDecisionServiceClient(conn).Watch(ctx, &berthv1.WatchRequest{FromRevision: from})
	if err != nil {
		return
	}
	for i := 0; n < 0 || i < n; i++ {
		if pause > 0 {
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				return
			}
		}
		r, err := ws.Recv()
		if err != nil {
			return
		}
		log.record(who, r.GetDecisions())
	}
}

// checkChaosLog checks the invariants over the whole log: revisions
// 1, 2, 3, ...; each pod bound once; no node's cpu exceeded by the pods
// bound to it and not evicted, at any point.
func checkChaosLog(t *testing.T, all []*berthv1.Decision) {
	t.Helper()
	boundTo := map[string]string{} // uid -> node, while bound and not evicted
	bindsOf := map[string]int{}
	used := map[string]int64{}
	for i, d := range all {
		if want := uint64(i + 1); d.GetRevision() != want {
			t.Fatalf("decision %d has revision %d, want %d", i, d.GetRevision(), want)
		}
		uid, name := d.GetPod().GetUid(), d.GetPod().GetName()
		switch {
		case d.GetBind() != nil:
			bindsOf[uid]++
			if bindsOf[uid] > 1 {
				t.Errorf("revision %d binds %s again (to %s)", d.GetRevision(), uid, d.GetBind().GetNode())
			}
			node := d.GetBind().GetNode()
			boundTo[uid] = node
			used[node] += loadPodCPU(name)
			if used[node] > loadNodeCPU {
				t.Errorf("revision %d overcommits %s: %dm of %dm cpu", d.GetRevision(), node, used[node], loadNodeCPU)
			}
		case d.GetEvict() != nil:
			v := d.GetEvict().GetVictim()
			if node, ok := boundTo[v.GetUid()]; ok {
				used[node] -= loadPodCPU(v.GetName())
				delete(boundTo, v.GetUid())
			}
		}
	}
}

// procPeakRSS is a process's peak resident set (VmHWM), as /proc tells.
func procPeakRSS(pid int) string {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
