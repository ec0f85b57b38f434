package leader

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/berthsched/berth/store/etcdstore"
)

// DefaultTTL is the session's lease TTL: how long a dead leader keeps the
// lead at most.
const DefaultTTL = 10 * time.Second

// electionName is the election's name below the store's prefix; its
// candidates' keys are Prefix + "election/" + lease ID.
const electionName = "election"

// httpName holds each candidate's advertised HTTP address beside the
// election, under its lease: Prefix + "election-http/" + lease ID. The
// election's own value stays the gRPC address alone, so that replicas of
// an older release, which read it whole, still name a dialable leader.
const httpName = "election-http/"

// Options configure an Elector.
type Options struct {
	// Client is the etcd client; it stays the caller's.
	Client *clientv3.Client
	// Prefix is the store's key prefix; the election lives under
	// Prefix + "election/".
	Prefix string
	// TTL is the lease's; 0 means DefaultTTL. etcd counts in seconds, so it
	// is rounded up to one.
	TTL time.Duration
	// Address is this replica's advertised gRPC address, the election's
	// value while it leads.
	Address string
	// HTTPAddress, if set, is this replica's advertised HTTP API address,
	// which followers name to HTTP clients beside Address.
	HTTPAddress string
	// OnChange, if set, is called whenever the leader's term as this
	// Elector knows it changes (0: no leader known), with the leader's
	// address.
	OnChange func(addr string, term uint64)
}

// Elector campaigns for one replica.
type Elector struct {
	opts Options

	mu         sync.Mutex
	leader     string // the leader's address as last observed; "" unknown
	leaderHTTP string // its HTTP address; "" unknown or none advertised
	term       uint64 // etcd revision of the leader's key as last observed
}

// New returns an Elector.
func New(opts Options) (*Elector, error) {
	if opts.Client == nil || opts.Address == "" {
		return nil, errors.New("leader: Options.Client and Options.Address are required")
	}
	if opts.TTL < 0 {
		return nil, fmt.Errorf("leader: negative TTL %v", opts.TTL)
	}
	opts.TTL = cmp.Or(opts.TTL, DefaultTTL)
	return &Elector{opts: opts}, nil
}

// Key is the election's name; its candidates' keys are below Key()+"/".
func (e *Elector) Key() string { return e.opts.Prefix + electionName }

func (e *Elector) ttlSeconds() int { return max(1, int((e.opts.TTL+time.Second-1)/time.Second)) }

// Term is one replica's time as the leader.
type Term struct {
	session  *concurrency.Session
	election *concurrency.Election
	cancel   context.CancelFunc // ends the session's keep-alives
}

// Campaign opens a session and blocks until this replica leads, or ctx ends.
// The session outlives ctx: it lasts until the term is resigned or its
// lease ends.
func (e *Elector) Campaign(ctx context.Context) (*Term, error) {
	sctx, cancel := context.WithCancel(context.Background())
	detach := context.AfterFunc(ctx, cancel) // until the campaign is won
	s, err := concurrency.NewSession(e.opts.Client, concurrency.WithTTL(e.ttlSeconds()), concurrency.WithContext(sctx))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("leader: open an etcd session: %w", err)
	}
	el := concurrency.NewElection(s, e.Key())
	if e.opts.HTTPAddress != "" {
		// Written before the candidate key, so that whoever sees this
		// replica lead finds it.
		_, err = e.opts.Client.Put(ctx, e.httpKey(s.Lease()), e.opts.HTTPAddress, clientv3.WithLease(s.Lease()))
	}
	if err == nil {
		err = el.Campaign(ctx, e.opts.Address)
	}
	if err == nil && !detach() {
		err = ctx.Err() // ctx ended as the campaign was won
	}
	if err != nil {
		// Closing revokes the lease, so that a half-made campaign key
		// does not wait for its TTL.
		_ = s.Close()
		cancel()
		return nil, fmt.Errorf("leader: campaign: %w", err)
	}
	e.set(e.opts.Address, e.opts.HTTPAddress, uint64(el.Rev()))
	return &Term{session: s, election: el, cancel: cancel}, nil
}

// Fence is what the leader's writes are conditioned on.
func (t *Term) Fence() *etcdstore.Fence {
	return &etcdstore.Fence{Key: t.election.Key(), CreateRevision: t.election.Rev()}
}

// Number is the term's identity: the etcd revision its election key was
// created at, growing from term to term.
func (t *Term) Number() uint64 { return uint64(t.election.Rev()) }

// Done is closed when the term's session ends: its lease expired or was
// revoked, or etcd could not be reached for the TTL.
func (t *Term) Done() <-chan struct{} { return t.session.Done() }

// Resign gives the lead up at once (a graceful stop) and ends the session.
func (t *Term) Resign(ctx context.Context) error {
	defer t.cancel()
	err := t.election.Resign(ctx)
	return errors.Join(err, t.session.Close())
}

// Abandon ends a term whose session already ended (Done is closed),
// without asking etcd for anything.
func (t *Term) Abandon() { t.cancel() }

// Observe follows the election until ctx ends, keeping Leader current.
// Errors (etcd unreachable) end one observation; it starts again.
func (e *Elector) Observe(ctx context.Context) {
	for ctx.Err() == nil {
		e.observeOnce(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// observeOnce reads the leader (the candidate key created first) and
// reads it again on every change of the election's keys, until the watch
// or ctx ends.
func (e *Elector) observeOnce(ctx context.Context) {
	defer e.set("", "", 0)
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	cli, prefix := e.opts.Client, e.Key()+"/"
	for {
		resp, err := cli.Get(ctx, prefix, clientv3.WithFirstCreate()...)
		if err != nil {
			return
		}
		if len(resp.Kvs) == 0 {
			e.set("", "", 0)
		} else {
			kv := resp.Kvs[0]
			e.set(string(kv.Value), e.readHTTP(ctx, string(kv.Key[len(prefix):])), uint64(kv.CreateRevision))
		}
		if !waitChange(ctx, cli, prefix, resp.Header.Revision) {
			return
		}
	}
}

// waitChange reports whether a key under prefix changed after etcd
// revision rev; false when the watch ended first.
func waitChange(ctx context.Context, cli *clientv3.Client, prefix string, rev int64) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := range cli.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1)) {
		if w.Err() != nil {
			return false
		}
		if len(w.Events) > 0 {
			return true
		}
	}
	return false
}

// httpKey is where the candidate of lease keeps its HTTP address; the
// lease is written as the election writes it in its candidates' keys.
func (e *Elector) httpKey(lease clientv3.LeaseID) string {
	return e.leaseHTTPKey(fmt.Sprintf("%x", lease))
}

func (e *Elector) leaseHTTPKey(lease string) string { return e.opts.Prefix + httpName + lease }

// readHTTP returns the HTTP address the candidate of lease advertised;
// "" when it advertised none (an older release, no --http-listen) or etcd
// could not say.
func (e *Elector) readHTTP(ctx context.Context, lease string) string {
	resp, err := e.opts.Client.Get(ctx, e.leaseHTTPKey(lease))
	if err != nil || len(resp.Kvs) == 0 {
		return ""
	}
	return string(resp.Kvs[0].Value)
}

func (e *Elector) set(addr, httpAddr string, term uint64) {
	e.mu.Lock()
	changed := term != e.term
	e.leader, e.leaderHTTP, e.term = addr, httpAddr, term
	e.mu.Unlock()
	if changed && e.opts.OnChange != nil {
		e.opts.OnChange(addr, term)
	}
}

// LeaderHTTP returns the HTTP API address the leader advertised, as last
// observed; "" when unknown or none.
func (e *Elector) LeaderHTTP() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leaderHTTP
}

// Leader returns the leader's address and term as last observed; "" and 0
// when there is none or it is not known.
func (e *Elector) Leader() (addr string, term uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leader, e.term
}
