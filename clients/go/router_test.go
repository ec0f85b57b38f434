package berth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	berthv1 "github.com/berthsched/berth/api/berth/v1"
)

// cluster is berthd's replicas as the Go client sees them: servers on
// loopback over one fakeBerth (one store: the same decision log and log id
// everywhere), of which one is the leader. The others refuse StateService
// calls with NOT_LEADER naming the leader; every replica serves Watch.
type cluster struct {
	t    *testing.T
	fake *fakeBerth

	mu       sync.Mutex // guards the fields below
	replicas []*replica
	leader   int          // index in replicas; -1: no leader
	unaware  map[int]bool // replicas that do not know the leader (answer NOT_LEADER with it empty)
	calls    []string     // "rN Method" per call or stream opened, in order
	watches  []string     // "rN from=F log=L" per Watch
	// electAt > 0: after that many refusals replica elect becomes the
	// leader (an election that ends while a call goes round).
	electAt, elect, refusals int
}

type replica struct {
	addr string
	srv  *grpc.Server
}

func newCluster(t *testing.T, n, leader int) *cluster {
	c := &cluster{t: t, fake: newFakeBerth(), leader: leader, unaware: map[int]bool{}}
	c.fake.logID = "log-1"
	for i := range n {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer(grpc.UnaryInterceptor(c.unary(i)), grpc.StreamInterceptor(c.stream(i)))
		berthv1.RegisterStateServiceServer(srv, c.fake)
		berthv1.RegisterDecisionServiceServer(srv, c.fake)
		go srv.Serve(lis) //nolint:errcheck // ends with Stop
		c.replicas = append(c.replicas, &replica{addr: lis.Addr().String(), srv: srv})
		t.Cleanup(srv.Stop)
	}
	return c
}

// addrs are the addresses of the replicas named by index.
func (c *cluster) addrs(idx ...int) []string {
	out := make([]string, len(idx))
	for i, r := range idx {
		out[i] = c.replicas[r].addr
	}
	return out
}

// name is "rN" for the replica at addr, for readable expectations.
func (c *cluster) name(addr string) string {
	for i, r := range c.replicas {
		if r.addr == addr {
			return fmt.Sprintf("r%d", i)
		}
	}
	return addr
}

// setLeader makes replica i the leader (-1: none). The objects are
// dropped: a new leader holds only what the orchestrator re-lists.
func (c *cluster) setLeader(i int) {
	c.mu.Lock()
	c.leader = i
	c.mu.Unlock()
	c.fake.mu.Lock()
	c.fake.objects = map[string]*berthv1.Object{}
	c.fake.mu.Unlock()
}

// stop kills replica i: its streams break, its address refuses connections.
func (c *cluster) stop(i int) { c.replicas[i].srv.Stop() }

func (c *cluster) record(i int, method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("r%d %s", i, method[strings.LastIndex(method, "/")+1:]))
}

// refusal is replica i's NOT_LEADER answer to a write, nil on the leader.
func (c *cluster) refusal(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i == c.leader {
		return nil
	}
	if c.refusals++; c.refusals == c.electAt {
		defer func() { c.leader = c.elect }()
	}
	leader := ""
	if c.leader >= 0 && !c.unaware[i] {
		leader = c.replicas[c.leader].addr
	}
	st, _ := status.New(codes.Unavailable, "fake: not the leader").WithDetails(&errdetails.ErrorInfo{
		Reason: ReasonNotLeader, Domain: "berth.v1", Metadata: map[string]string{"leader": leader},
	})
	return st.Err()
}

func isWrite(method string) bool { return strings.HasPrefix(method, "/berth.v1.StateService/") }

func (c *cluster) unary(i int) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		c.record(i, info.FullMethod)
		if err := c.refusal(i); err != nil && isWrite(info.FullMethod) {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// stream refuses a Sync stream on a follower at once, and ends the Sync
// stream of a leader deposed since at its next request.
func (c *cluster) stream(i int) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		c.record(i, info.FullMethod)
		if !isWrite(info.FullMethod) {
			return handler(srv, &watchRecorder{ServerStream: ss, c: c, i: i})
		}
		if err := c.refusal(i); err != nil {
			return err
		}
		fs := &fencedStream{ServerStream: ss, c: c, i: i}
		err := handler(srv, fs)
		if fs.deposed != nil {
			return fs.deposed
		}
		return err
	}
}

type fencedStream struct {
	grpc.ServerStream
	c       *cluster
	i       int
	deposed error
}

func (s *fencedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	s.deposed = s.c.refusal(s.i)
	return s.deposed
}

type watchRecorder struct {
	grpc.ServerStream
	c *cluster
	i int
}

func (s *watchRecorder) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if req, ok := m.(*berthv1.WatchRequest); ok && err == nil {
		s.c.mu.Lock()
		s.c.watches = append(s.c.watches, fmt.Sprintf("r%d from=%d log=%s", s.i, req.GetFromRevision(), req.GetLogId()))
		s.c.mu.Unlock()
	}
	return err
}

func (c *cluster) callsMade() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

func (c *cluster) dial(clock *fakeClock, endpoints ...int) *Client {
	cl, err := DialEndpoints(c.t.Context(), c.addrs(endpoints...), WithClock(clock))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { cl.Close() })
	return cl
}

func TestUnaryWritesFollowTheLeader(t *testing.T) {
	tests := []struct {
		name      string
		leader    int
		endpoints []int
		unaware   []int // replicas that do not know the leader
		stopped   []int
		electAt   int // refusals after which replica 2 leads
		wantCalls []string
		wantWaits int    // backoff waits between redirects
		wantErr   string // NotLeader's leader when the call fails with NOT_LEADER; "" for success
		wantAt    int    // the replica Target names after the call
	}{
		{name: "the first endpoint leads", leader: 0, endpoints: []int{0, 1, 2}, wantCalls: []string{"r0 Apply"}, wantAt: 0},
		{
			name: "a follower names the leader", leader: 2, endpoints: []int{1, 2, 0},
			wantCalls: []string{"r1 Apply", "r2 Apply"}, wantAt: 2,
		},
		{
			name: "a follower names a leader not among the endpoints", leader: 0, endpoints: []int{1},
			wantCalls: []string{"r1 Apply", "r0 Apply"}, wantAt: 0,
		},
		{
			name: "a follower that knows no leader: the next endpoint", leader: 0, endpoints: []int{1, 2, 0}, unaware: []int{1},
			wantCalls: []string{"r1 Apply", "r2 Apply", "r0 Apply"}, wantWaits: 1, wantAt: 0,
		},
		{
			name: "an endpoint down: the next one", leader: 1, endpoints: []int{0, 1}, stopped: []int{0},
			wantCalls: []string{"r1 Apply"}, wantAt: 1,
		},
		{
			name: "an endpoint down while the others elect: round again until one leads", leader: -1, endpoints: []int{0, 1, 2},
			stopped: []int{0}, electAt: 4,
			wantCalls: []string{"r1 Apply", "r2 Apply", "r1 Apply", "r2 Apply", "r1 Apply", "r2 Apply"}, wantWaits: 4, wantAt: 2,
		},
		{
			name: "no leader anywhere: NOT_LEADER after 30 answers", leader: -1, endpoints: []int{0, 1},
			wantCalls: slices.Repeat([]string{"r0 Apply", "r1 Apply"}, 15), wantWaits: 28, wantErr: "NOT_LEADER", wantAt: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t, 3, tt.leader)
			for _, i := range tt.unaware {
				c.unaware[i] = true
			}
			for _, i := range tt.stopped {
				c.stop(i)
			}
			c.electAt, c.elect = tt.electAt, 2
			clock := &fakeClock{}
			cl := c.dial(clock, tt.endpoints...)

			err := cl.Apply(t.Context(), nodeObj("n1"))

			if _, notLeader := NotLeader(err); tt.wantErr != "" && !notLeader {
				t.Errorf("Apply() = %v, want NOT_LEADER", err)
			} else if tt.wantErr == "" && err != nil {
				t.Errorf("Apply() = %v, want success", err)
			}
			if diff := cmp.Diff(tt.wantCalls, c.callsMade()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if len(clock.waits) != tt.wantWaits {
				t.Errorf("backoff waits = %v, want %d", clock.waits, tt.wantWaits)
			}
			if got, want := c.name(cl.Target()), fmt.Sprintf("r%d", tt.wantAt); got != want {
				t.Errorf("Target() = %s, want %s", got, want)
			}
		})
	}
}

// A session re-lists on each new leader: one named by the deposed leader
// (alive, refusing the next request), then one found after the leader's
// death by trying the next endpoint. Every call is answered, and the new
// leader holds what the orchestrator holds.
func TestSessionFollowsLeaderChanges(t *testing.T) {
	c := newCluster(t, 3, 0)
	clock := &fakeClock{}
	cl := c.dial(clock, 1, 0, 2)
	st := &store{}
	st.add(nodeObj("n1"))
	s, resyncs, _ := runSession(t, cl, st.list)
	<-resyncs

	upsert := func(name string) {
		t.Helper()
		st.add(podObj(name, ""))
		if err := s.Upsert(t.Context(), podObj(name, "")); err != nil {
			t.Fatalf("Upsert(%s) = %v", name, err)
		}
	}
	upsert("a")
	c.setLeader(2) // r0 is deposed and stays up
	upsert("b")
	if r := <-resyncs; r.Sent != 3 {
		t.Errorf("re-list on r2 sent %d objects, want 3", r.Sent)
	}
	c.setLeader(1)
	c.stop(2)   // the leader dies
	upsert("c") // in the re-list on r1, or sent after it
	if r := <-resyncs; r.Sent != 3 && r.Sent != 4 {
		t.Errorf("re-list on r1 sent %d objects, want 3 or 4", r.Sent)
	}

	if diff := cmp.Diff([]string{"a", "b", "c", "n1"}, c.fake.keys()); diff != "" {
		t.Errorf("objects the leader holds (-want +got):\n%s", diff)
	}
	want := []string{"r1 Sync", "r0 Sync", "r2 Sync", "r1 Sync"}
	if diff := cmp.Diff(want, c.callsMade()); diff != "" {
		t.Errorf("Sync streams opened (-want +got):\n%s", diff)
	}
	if got := c.name(cl.Target()); got != "r1" {
		t.Errorf("Target() = %s, want r1", got)
	}
	// One backoff wait after each NOT_LEADER; none to leave the dead leader.
	clock.mu.Lock()
	defer clock.mu.Unlock()
	if diff := cmp.Diff([]time.Duration{100 * time.Millisecond, 100 * time.Millisecond}, clock.waits); diff != "" {
		t.Errorf("backoff waits (-want +got):\n%s", diff)
	}
}

// While the others elect, a session skips the dead leader's endpoint without
// waiting and asks the followers again after a backoff capped at LeaderPoll.
func TestSessionWaitsOutAnElectionPastADeadReplica(t *testing.T) {
	c := newCluster(t, 3, -1)
	c.stop(0)
	c.electAt, c.elect = 4, 2
	clock := &fakeClock{}
	cl := c.dial(clock, 0, 1, 2)

	_, resyncs, _ := runSession(t, cl, func() []*berthv1.Object { return []*berthv1.Object{nodeObj("n1")} })
	<-resyncs

	want := []string{"r1 Sync", "r2 Sync", "r1 Sync", "r2 Sync", "r1 Sync", "r2 Sync"}
	if diff := cmp.Diff(want, c.callsMade()); diff != "" {
		t.Errorf("Sync streams opened (-want +got):\n%s", diff)
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	ms := time.Millisecond
	if diff := cmp.Diff([]time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, LeaderPoll}, clock.waits); diff != "" {
		t.Errorf("backoff waits (-want +got):\n%s", diff)
	}
}

// A watcher whose replica dies resumes on the next one from the revision
// after the last it handled, with the log id it learned: every decision is
// handled once, in order, across the failover.
func TestWatcherResumesOnAnotherReplica(t *testing.T) {
	c := newCluster(t, 3, 0)
	c.fake.decide("a", "b", "c")
	cl := c.dial(&fakeClock{}, 0, 1, 2)
	ctx, cancel := context.WithCancel(t.Context())
	var handled []uint64
	h := func(_ context.Context, d *berthv1.Decision) error {
		handled = append(handled, d.GetRevision())
		switch d.GetRevision() {
		case 2:
			c.stop(0) // the watched replica dies; revision 3 may or may not arrive first
			c.fake.decide("d", "e")
		case 5:
			cancel()
		}
		return nil
	}
	cp := &MemoryCheckpoint{}

	err := cl.NewWatcher(cp, h, StartAt(1)).Run(ctx)

	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run() = %v, want context.Canceled", err)
	}
	if diff := cmp.Diff([]uint64{1, 2, 3, 4, 5}, handled); diff != "" {
		t.Errorf("revisions handled (-want +got):\n%s", diff)
	}
	c.mu.Lock()
	watches := append([]string(nil), c.watches...)
	c.mu.Unlock()
	if len(watches) != 2 || watches[0] != "r0 from=1 log=" {
		t.Fatalf("watches = %q, want r0 from 1, then r1", watches)
	}
	if w := watches[1]; w != "r1 from=3 log=log-1" && w != "r1 from=4 log=log-1" {
		t.Errorf("second watch = %q, want r1 from 3 or 4 (as far as r0 got) with log-1", w)
	}
	if rev, _ := cp.Load(t.Context()); rev != 6 {
		t.Errorf("checkpoint = %d, want 6", rev)
	}
}

// A replica serving another log (a misconfigured one) refuses the resumed
// watch instead of letting it skip or repeat decisions.
func TestWatcherRefusesAnotherLogOnFailover(t *testing.T) {
	c := newCluster(t, 2, 0)
	c.fake.decide("a", "b")
	cl := c.dial(&fakeClock{}, 0, 1)
	h := func(_ context.Context, d *berthv1.Decision) error {
		if d.GetRevision() == 2 {
			c.stop(0)
			c.fake.mu.Lock()
			c.fake.logID = "log-2"
			c.fake.mu.Unlock()
		}
		return nil
	}

	err := cl.NewWatcher(&MemoryCheckpoint{}, h, StartAt(1)).Run(t.Context())

	if info := ErrorInfo(err); status.Code(err) != codes.FailedPrecondition || info.GetReason() != ReasonLogIDMismatch {
		t.Errorf("Run() = %v, want FAILED_PRECONDITION %s", err, ReasonLogIDMismatch)
	}
}

// Dial takes the replicas as one comma-separated string.
func TestDialTakesAList(t *testing.T) {
	c := newCluster(t, 2, 1)
	cl, err := Dial(t.Context(), strings.Join(c.addrs(0, 1), ", "), WithClock(&fakeClock{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	if err := cl.Apply(t.Context(), nodeObj("n1")); err != nil {
		t.Fatalf("Apply() = %v", err)
	}
	if got := c.name(cl.Target()); got != "r1" {
		t.Errorf("Target() = %s, want r1", got)
	}
}

func TestSplitEndpoints(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{in: "a:1", want: []string{"a:1"}},
		{in: " a:1, b:2 ,,c:3,", want: []string{"a:1", "b:2", "c:3"}},
		{in: " , ", want: nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SplitEndpoints(tt.in)); diff != "" {
			t.Errorf("SplitEndpoints(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
