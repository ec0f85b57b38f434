package berth

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ReasonNotLeader is the ErrorInfo reason of a write refused by a berthd
// replica that is not the leader (UNAVAILABLE); its metadata "leader" is
// the leader's advertised host:port, empty while none is known.
const ReasonNotLeader = "NOT_LEADER"

// NotLeader tells whether err is a replica's NOT_LEADER refusal, and the
// leader it named ("" while no leader is known).
func NotLeader(err error) (leader string, ok bool) {
	if status.Code(err) != codes.Unavailable {
		return "", false
	}
	info := ErrorInfo(err)
	if info == nil || info.GetReason() != ReasonNotLeader {
		return "", false
	}
	return info.GetMetadata()["leader"], true
}

// LeaderPoll caps the backoff between tries that a replica answered
// NOT_LEADER: while an election goes on (up to berthd's lease TTL, 10s by
// default) the replicas are asked again at least this often, so that a
// write reaches the new leader soon after it wins.
const LeaderPoll = time.Second

// leaderBackoff is b capped at LeaderPoll when err is a NOT_LEADER answer.
func leaderBackoff(b Backoff, err error) Backoff {
	if _, ok := NotLeader(err); ok && (b.Max <= 0 || b.Max > LeaderPoll) {
		b.Max = LeaderPoll
	}
	return b
}

// maxRedirects bounds the NOT_LEADER answers one unary call follows. With
// DefaultBackoff capped at LeaderPoll the waits between them add up to
// about 26s: more than an election with berthd's default lease TTL (10s)
// takes. Sessions and watchers retry for as long as they run.
const maxRedirects = 30

// router is the connection of a Client made by Dial: one gRPC connection
// per berthd replica, the endpoints given first and the leaders they named
// after. Every call goes to the current endpoint. A NOT_LEADER answer makes
// the leader it names current (or the next endpoint, when it names none);
// an UNAVAILABLE one, with several endpoints, the next endpoint. Unary
// calls are retried there; streams are not (Session and Watcher reopen them,
// with backoff, and reach the new current endpoint).
type router struct {
	dial    func(addr string) (*grpc.ClientConn, error)
	clock   Clock
	backoff Backoff

	mu  sync.Mutex // guards the fields below
	eps []*endpoint
	cur int // index in eps of the endpoint calls go to
}

// endpoint is one berthd replica and its connection (made by grpc.NewClient,
// which connects lazily).
type endpoint struct {
	addr string
	conn *grpc.ClientConn
}

var _ grpc.ClientConnInterface = (*router)(nil)

func newRouter(addrs []string, dial func(string) (*grpc.ClientConn, error), cfg config) (*router, error) {
	r := &router{dial: dial, clock: cfg.clock, backoff: cfg.backoff}
	for _, a := range addrs {
		if r.find(a) >= 0 {
			continue
		}
		conn, err := dial(a)
		if err != nil {
			_ = r.Close()
			return nil, err
		}
		r.eps = append(r.eps, &endpoint{addr: a, conn: conn})
	}
	if len(r.eps) == 0 {
		return nil, errors.New("berth client: no endpoint given")
	}
	return r, nil
}

// find returns the index of the endpoint of addr, -1 if there is none.
// The caller holds mu or has not shared r yet.
func (r *router) find(addr string) int {
	return slices.IndexFunc(r.eps, func(e *endpoint) bool { return e.addr == addr })
}

// current returns the endpoint calls go to now, and whether there are
// several to choose from.
func (r *router) current() (*endpoint, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.eps[r.cur], len(r.eps) > 1
}

// target is the address of the current endpoint.
func (r *router) target() string {
	ep, _ := r.current()
	return ep.addr
}

// verdict is what observe made of a call's error.
type verdict int

const (
	verdictDone     verdict = iota // success, or a failure another endpoint would not change
	verdictRedirect                // NOT_LEADER: current now names the leader (or the next endpoint)
	verdictFailover                // UNAVAILABLE with several endpoints: current moved on
)

// observe updates the current endpoint after a call to ep ended with err.
// A failure of ep moves current only while ep is current, so that a late
// failure of an endpoint left behind does not undo a redirect.
func (r *router) observe(ep *endpoint, err error) verdict {
	if err == nil || errors.Is(err, io.EOF) {
		return verdictDone
	}
	leader, notLeader := NotLeader(err)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case notLeader && leader != "" && leader != ep.addr:
		if err := r.useLocked(leader); err != nil {
			r.advanceLocked(ep)
		}
		return verdictRedirect
	case notLeader:
		r.advanceLocked(ep)
		return verdictRedirect
	case status.Code(err) == codes.Unavailable && len(r.eps) > 1:
		r.advanceLocked(ep)
		return verdictFailover
	}
	return verdictDone
}

// useLocked makes the endpoint of addr current, connecting to it the first
// time a replica names it.
func (r *router) useLocked(addr string) error {
	i := r.find(addr)
	if i < 0 {
		conn, err := r.dial(addr)
		if err != nil {
			return err
		}
		r.eps = append(r.eps, &endpoint{addr: addr, conn: conn})
		i = len(r.eps) - 1
	}
	r.cur = i
	return nil
}

// advanceLocked makes the endpoint after ep current, if ep is current. The
// new one's reconnection backoff is reset: it may have failed a while ago
// and be back since.
func (r *router) advanceLocked(ep *endpoint) {
	if r.eps[r.cur] != ep {
		return
	}
	r.cur = (r.cur + 1) % len(r.eps)
	r.eps[r.cur].conn.ResetConnectBackoff()
}

// callOptions makes a call fail fast when there are several endpoints:
// waiting for an unreachable replica to come back (Session's and Watcher's
// WaitForReady) would keep the call from the others.
func callOptions(opts []grpc.CallOption, several bool) []grpc.CallOption {
	if !several {
		return opts
	}
	return append(slices.Clip(opts), grpc.WaitForReady(false))
}

// Invoke makes a unary call on the current endpoint, following NOT_LEADER
// answers (at once the first time, then with backoff) and, with several
// endpoints, going on to the next on UNAVAILABLE. It gives up after
// maxRedirects NOT_LEADER answers, or when every endpoint in a row could
// not be reached (a replica that answers NOT_LEADER while an election goes
// on shows the group alive: the dead leader's endpoint is skipped again).
// berth.v1's writes are idempotent (upserts, deletes, bind outcomes,
// evictions of a pod already evicted), so a call that broke with the
// connection may be sent again.
func (r *router) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	redirects, unreachable := 0, 0
	var refused error // the last NOT_LEADER answer
	for {
		ep, several := r.current()
		err := ep.conn.Invoke(ctx, method, args, reply, callOptions(opts, several)...)
		switch r.observe(ep, err) {
		case verdictRedirect:
			redirects, unreachable, refused = redirects+1, 0, err
			if redirects >= maxRedirects || wait(ctx, r.clock, leaderBackoff(r.backoff, err), redirects-1) != nil {
				return err
			}
		case verdictFailover:
			unreachable++
			if unreachable >= r.size() {
				return err
			}
		default:
			// The deadline ended a try made while looking for the leader:
			// that no replica led is what the caller needs to know, not
			// that the last try was cut short.
			if refused != nil && status.Code(err) == codes.DeadlineExceeded && ctx.Err() != nil {
				return refused
			}
			return err
		}
	}
}

func (r *router) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.eps)
}

// NewStream opens a stream on the current endpoint; its errors are observed
// as those of unary calls are, and returned to the caller, whose loop opens
// the next stream.
func (r *router) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	ep, several := r.current()
	s, err := ep.conn.NewStream(ctx, desc, method, callOptions(opts, several)...)
	if err != nil {
		r.observe(ep, err)
		return nil, err
	}
	return &observedStream{ClientStream: s, r: r, ep: ep}, nil
}

// observedStream reports the error that ends a stream to its router.
type observedStream struct {
	grpc.ClientStream
	r  *router
	ep *endpoint
}

func (s *observedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil {
		s.r.observe(s.ep, err)
	}
	return err
}

// Close closes every endpoint's connection.
func (r *router) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, e := range r.eps {
		errs = append(errs, e.conn.Close())
	}
	return errors.Join(errs...)
}

// SplitEndpoints splits a comma-separated list of berthd addresses (as
// berthctl's --server takes them), dropping blanks around and between them.
func SplitEndpoints(list string) []string {
	var out []string
	for a := range strings.SplitSeq(list, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// reconnectAtOnce tells whether a stream that failed with err may be opened
// again without a backoff wait: with several endpoints, one could not be
// reached (UNAVAILABLE, not NOT_LEADER) and the router moved to the next,
// fewer times in a row (*hops) than there are endpoints. A replica that is
// down then costs no wait while the others elect; a whole round unreachable
// backs off as one failure.
func (c *Client) reconnectAtOnce(err error, hops *int) bool {
	_, notLeader := NotLeader(err)
	if c.router == nil || notLeader || status.Code(err) != codes.Unavailable {
		*hops = 0
		return false
	}
	*hops++
	if *hops >= c.router.size() {
		*hops = 0
		return false
	}
	return true
}
