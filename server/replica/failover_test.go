package replica

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	clientv3 "go.etcd.io/etcd/client/v3"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
	"github.com/berthsched/berth/store"
	"github.com/berthsched/berth/store/etcdstore"
	"github.com/berthsched/berth/store/storetest"
)

// The failover test's knobs. CI runs it with a 1s lease; the documented
// measurement uses the default one:
//
//	go test ./server/replica -run TestFailover -v -failover.ttl=10s
var (
	failoverTTL   = flag.Duration("failover.ttl", time.Second, "the replicas' lease TTL in TestFailover")
	failoverSeed  = flag.Uint64("failover.seed", 1, "seed of TestFailover's kill moments")
	failoverKills = flag.Int("failover.kills", 10, "how many leaders TestFailover kills")
)

const (
	clusterNodes = 5
	nodeCPU      = 4000
	podCPU       = 1000
	podsPerRound = 4
)

// TestFailover kills the leader of three replicas abruptly, again and
// again, while a client streams pods through whichever replica leads and
// a watcher follows every replica. Each time: revisions stay contiguous,
// every replica streams every decision identically, the dead leader's
// fence refuses a write, and in the end no pod was bound twice and no node
// is overcommitted. It logs the failover times (death to next decision).
func TestFailover(t *testing.T) {
	g := newGroup(t, 3, *failoverTTL)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	log := &sharedLog{byRev: map[uint64]*berthv1.Decision{}}
	for i := range g.nodes {
		w := &follower{addr: g.nodes[i].addr, log: log}
		go w.run(ctx, t)
	}
	cl := &orchestrator{g: g, log: log, pods: map[string]string{}}
	rng := rand.New(rand.NewPCG(*failoverSeed, 0))
	cl.send(ctx, t, nil)
	poke := func() { cl.toLeader(ctx, t, func(*grpc.ClientConn) error { return nil }) }

	var failovers []time.Duration
	for round := range *failoverKills {
		cl.send(ctx, t, cl.newPods(round))
		log.waitFor(ctx, t, poke, func(l *sharedLog) bool { return l.decided(cl.pending()) })
		time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)

		lead := g.leader()
		fence := electionKey(ctx, t, lead.cli)
		last := log.last()
		died := time.Now()
		stopped := g.kill(lead)
		slot := slices.Index(g.nodes, lead)

		cl.dead = lead.addr                     // a dead process answers nothing
		cl.send(ctx, t, cl.newPods(round+1000)) // something for the new leader to decide
		t.Logf("round %d: re-listed and sent on %s %v after the kill", round, cl.leader, time.Since(died))
		log.waitFor(ctx, t, poke, func(l *sharedLog) bool { return l.lastRev > last })
		failovers = append(failovers, log.timeOf(last+1).Sub(died))
		checkFenced(ctx, t, g.nodes[(slot+1)%3].cli, fence)
		stopped()
		g.nodes[slot] = g.start(lead.addr) // the dead replica comes back
		cl.dead = ""
	}
	log.waitFor(ctx, t, poke, func(l *sharedLog) bool { return l.decided(cl.pending()) && l.caughtUp(len(g.nodes)) })
	cl.checkFinal(ctx, t)
	reportFailovers(t, failovers)
}

// electionKey returns the current leader's fence.
func electionKey(ctx context.Context, t *testing.T, cli *clientv3.Client) *etcdstore.Fence {
	t.Helper()
	resp, err := cli.Get(ctx, "/ha/election/", clientv3.WithFirstCreate()...)
	if err != nil || len(resp.Kvs) == 0 {
		t.Fatalf("read the leader's election key: %v, %v", resp, err)
	}
	return &etcdstore.Fence{Key: string(resp.Kvs[0].Key), CreateRevision: resp.Kvs[0].CreateRevision}
}

// checkFenced writes as the dead leader would: it must be refused.
func checkFenced(ctx context.Context, t *testing.T, cli *clientv3.Client, fence *etcdstore.Fence) {
	t.Helper()
	st, err := etcdstore.Open(ctx, cli, etcdstore.Options{Prefix: "/ha/", Fence: fence, CompactInterval: -1})
	if err != nil {
		t.Fatalf("open the store as the deposed leader: %v", err)
	}
	defer st.Close()
	_, err = st.Commit(ctx, storetest.Batch("from a deposed leader"))
	if !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a deposed leader's commit = %v; want store.ErrFenced", err)
	}
}

func reportFailovers(t *testing.T, ds []time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	pct := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	t.Logf("failover (leader killed -> next decision) over %d kills, lease TTL %v: min %v, median %v, p90 %v, max %v; all: %v",
		len(s), *failoverTTL, s[0].Round(time.Millisecond), pct(0.5).Round(time.Millisecond), pct(0.9).Round(time.Millisecond),
		s[len(s)-1].Round(time.Millisecond), roundAll(ds))
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

// sharedLog is the decision log as the watchers saw it: every watcher's
// decision at a revision must equal every other's.
type sharedLog struct {
	mu      sync.Mutex
	byRev   map[uint64]*berthv1.Decision
	seenAt  map[uint64]time.Time
	lastRev uint64
	next    map[string]uint64 // by watcher's address: the revision it waits for
	changed chan struct{}
	err     error
}

// add records a watcher's decision.
func (l *sharedLog) add(addr string, d *berthv1.Decision) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seenAt == nil {
		l.seenAt = map[uint64]time.Time{}
	}
	rev := d.GetRevision()
	if prev, ok := l.byRev[rev]; ok {
		if !proto.Equal(prev, d) && l.err == nil {
			l.err = fmt.Errorf("revision %d differs on %s: %v, elsewhere %v", rev, addr, d, prev)
		}
	} else {
		l.byRev[rev] = d
		l.seenAt[rev] = time.Now()
	}
	l.lastRev = max(l.lastRev, rev)
	if l.next == nil {
		l.next = map[string]uint64{}
	}
	l.next[addr] = rev + 1
	l.wake()
}

// caughtUp reports whether n watchers each saw every revision (l locked).
func (l *sharedLog) caughtUp(n int) bool {
	if len(l.next) < n {
		return false
	}
	for _, next := range l.next {
		if next != l.lastRev+1 {
			return false
		}
	}
	return true
}

func (l *sharedLog) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
	l.wake()
}

func (l *sharedLog) wake() {
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
}

func (l *sharedLog) last() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastRev
}

func (l *sharedLog) timeOf(rev uint64) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seenAt[rev]
}

// waitFor waits until cond holds (called with l locked), failing on a
// watcher's error; the test's context bounds it. Every second without a
// new decision it calls poke (the orchestrator checks that the leader it
// writes to has had its re-list, as after a leader change nobody caused).
func (l *sharedLog) waitFor(ctx context.Context, t *testing.T, poke func(), cond func(*sharedLog) bool) {
	t.Helper()
	for {
		l.mu.Lock()
		if l.err != nil {
			err := l.err
			l.mu.Unlock()
			t.Fatal(err)
		}
		if cond(l) {
			l.mu.Unlock()
			return
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(time.Second):
			poke()
		case <-ctx.Done():
			t.Fatalf("waiting for decisions: %v; last revision %d", ctx.Err(), l.last())
		}
	}
}

// decided reports whether every pod named has a Bind or an Unschedulable
// decision (l locked).
func (l *sharedLog) decided(pods []string) bool {
	done := map[string]bool{}
	for _, d := range l.byRev {
		if d.GetBind() != nil || d.GetUnschedulable() != nil {
			done[d.GetPod().GetName()] = true
		}
	}
	for _, p := range pods {
		if !done[p] {
			return false
		}
	}
	return true
}

// follower watches one replica's address from revision 1, resuming after
// every break (the replica killed, restarted, changing role) from the
// revision after the last it got, with the log id: a gap or a repeat fails
// the test.
type follower struct {
	addr string
	log  *sharedLog
}

func (w *follower) run(ctx context.Context, t *testing.T) {
	conn, err := grpc.NewClient(w.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		w.log.fail(err)
		return
	}
	defer conn.Close()
	next, logID := uint64(1), ""
	for ctx.Err() == nil {
		stream, err := berthv1.NewDecisionServiceClient(conn).Watch(ctx, &berthv1.WatchRequest{FromRevision: next, LogId: logID})
		for err == nil {
			var resp *berthv1.WatchResponse
			if resp, err = stream.Recv(); err != nil {
				break
			}
			if logID == "" {
				logID = resp.GetLogId()
			}
			for _, d := range resp.GetDecisions() {
				if d.GetRevision() != next {
					w.log.fail(fmt.Errorf("watcher of %s: got revision %d, want %d", w.addr, d.GetRevision(), next))
					return
				}
				next++
				w.log.add(w.addr, d)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// orchestrator plays the orchestrator: it sends nodes and pods to the
// leader, following NOT_LEADER, re-lists everything on a new leader, and
// confirms binds by sending the pod with its node.
type orchestrator struct {
	g      *group
	log    *sharedLog
	leader string            // the address writes go to
	dead   string            // the address of the replica killed last, until it is back
	term   uint64            // the leader's term the last re-list went to
	pods   map[string]string // pod name -> node it is known bound to ("" pending)
	conns  map[string]*grpc.ClientConn
}

func (o *orchestrator) conn(t *testing.T, addr string) *grpc.ClientConn {
	if o.conns == nil {
		o.conns = map[string]*grpc.ClientConn{}
		t.Cleanup(func() {
			for _, c := range o.conns {
				c.Close()
			}
		})
	}
	if c, ok := o.conns[addr]; ok {
		return c
	}
	c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	o.conns[addr] = c
	return c
}

func (o *orchestrator) newPods(round int) []string {
	var out []string
	for i := range podsPerRound {
		name := fmt.Sprintf("pod-%d-%d", round, i)
		o.pods[name] = ""
		out = append(out, name)
	}
	return out
}

// pending lists every pod sent.
func (o *orchestrator) pending() []string {
	var out []string
	for p := range o.pods {
		out = append(out, p)
	}
	return out
}

// learnBinds takes the binds the watchers saw.
func (o *orchestrator) learnBinds() {
	o.log.mu.Lock()
	defer o.log.mu.Unlock()
	for _, d := range o.log.byRev {
		if b := d.GetBind(); b != nil {
			o.pods[d.GetPod().GetName()] = b.GetNode()
		}
	}
}

func (o *orchestrator) objects(names []string) []*berthv1.Object {
	var objs []*berthv1.Object
	for _, n := range names {
		objs = append(objs, podObj(n, podCPU, o.pods[n]))
	}
	return objs
}

func (o *orchestrator) nodes() []*berthv1.Object {
	var objs []*berthv1.Object
	for i := range clusterNodes {
		objs = append(objs, nodeObj(fmt.Sprintf("node-%d", i), nodeCPU))
	}
	return objs
}

// send applies new pods on the leader.
func (o *orchestrator) send(ctx context.Context, t *testing.T, names []string) {
	t.Helper()
	objs := o.objects(names)
	o.toLeader(ctx, t, func(c *grpc.ClientConn) error { return apply(ctx, c, objs...) })
}

// relist re-sends every node and pod on a Sync stream, bracketed by
// RESYNC_BEGIN and RESYNC_END, as an orchestrator does on a new leader;
// the pods it saw bound go with their node.
func (o *orchestrator) relist(ctx context.Context, c *grpc.ClientConn) error {
	o.learnBinds()
	names := o.pending()
	slices.Sort(names)
	var muts []*berthv1.Mutation
	for _, obj := range append(o.nodes(), o.objects(names)...) {
		muts = append(muts, &berthv1.Mutation{Op: &berthv1.Mutation_Upsert{Upsert: obj}})
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := berthv1.NewStateServiceClient(c).Sync(sctx)
	if err != nil {
		return err
	}
	for _, req := range []*berthv1.SyncRequest{
		{BatchId: 1, Resync: berthv1.Resync_RESYNC_BEGIN, Mutations: muts},
		{BatchId: 2, Resync: berthv1.Resync_RESYNC_END},
	} {
		if err := stream.Send(req); err != nil {
			_, err = stream.Recv()
			return err
		}
		resp, err := stream.Recv()
		if err != nil {
			return err
		}
		if len(resp.GetErrors()) > 0 {
			return fmt.Errorf("relist: %v", resp.GetErrors()[0])
		}
	}
	return stream.CloseSend()
}

// leaderTerm asks the replica at addr for its role: its term if it leads.
func (o *orchestrator) leaderTerm(ctx context.Context, t *testing.T, addr string) (uint64, bool) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	info, err := berthv1.NewAdminServiceClient(o.conn(t, addr)).ServerInfo(ctx, &berthv1.ServerInfoRequest{})
	if err != nil || info.GetRole() != berthv1.ReplicaRole_REPLICA_ROLE_LEADER {
		return 0, false
	}
	return info.GetTerm(), true
}

// toLeader runs call against the leader, first re-listing everything on it
// when it is a leader, or a term, the orchestrator has not re-listed on
// yet; it follows NOT_LEADER errors and tries every replica while no
// leader is known.
func (o *orchestrator) toLeader(ctx context.Context, t *testing.T, call func(*grpc.ClientConn) error) {
	t.Helper()
	for i := 0; ctx.Err() == nil; i++ {
		addr := o.leader
		if addr == "" || addr == o.dead {
			addr = o.g.nodes[i%len(o.g.nodes)].addr
		}
		if addr == o.dead {
			continue
		}
		term, ok := o.leaderTerm(ctx, t, addr)
		if ok && term != o.term {
			if err := o.relist(ctx, o.conn(t, addr)); err != nil {
				ok = false
			} else {
				o.term = term
			}
		}
		if ok {
			err := call(o.conn(t, addr))
			if err == nil {
				o.leader = addr
				return
			}
			if leader, isNotLeader := notLeader(err); isNotLeader {
				o.leader = leader
			}
		} else {
			o.leader = ""
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no leader took the call: %v", ctx.Err())
}

// checkFinal checks the whole log: revisions 1..last, every pod bound at
// most once, no node beyond its CPU.
func (o *orchestrator) checkFinal(ctx context.Context, t *testing.T) {
	t.Helper()
	l := o.log
	l.mu.Lock()
	defer l.mu.Unlock()
	bound := map[string]string{}
	used := map[string]int64{}
	for rev := uint64(1); rev <= l.lastRev; rev++ {
		d, ok := l.byRev[rev]
		if !ok {
			t.Fatalf("revision %d never seen", rev)
		}
		if u := d.GetUnschedulable(); u != nil && testing.Verbose() {
			t.Logf("revision %d: %s unschedulable: %s", rev, d.GetPod().GetName(), u.GetMessage())
		}
		b := d.GetBind()
		if b == nil {
			continue
		}
		uid := d.GetPod().GetUid()
		if prev, twice := bound[uid]; twice {
			t.Errorf("pod %s bound twice: to %s, then at revision %d to %s", uid, prev, rev, b.GetNode())
		}
		bound[uid] = b.GetNode()
		used[b.GetNode()] += podCPU
	}
	for node, cpu := range used {
		if cpu > nodeCPU {
			t.Errorf("node %s holds %d millicores of binds; it has %d", node, cpu, nodeCPU)
		}
	}
	if want := min(len(o.pods), clusterNodes*nodeCPU/podCPU); len(bound) != want {
		t.Errorf("%d pods bound; want %d (every pod, or the cluster full)", len(bound), want)
	}
	t.Logf("%d decisions, %d pods bound, over %d failovers", l.lastRev, len(bound), *failoverKills)
}
